/**
 * The one place HTTP statuses are decided, for every error the server answers. A deny is not here: it is
 * a Decision, answered 200. Errors are answered as `{ error: { code, message, details? } }` with a Warden
 * error code; never a stack trace, and for an error that is not a WardenError only a generic message.
 *
 *   INVALID_INPUT          400  the body or a parameter is wrong; `details.fields` names the fields
 *   LTL_PARSE              400  a formula given in the request does not parse
 *   MODEL_CONFIG           400  the request picked an engine that needs a model and the server has none
 *                               (the server's own model is checked at start, so only the request can
 *                               change to avoid it: pick another engine, or start the server with --model)
 *   POLICY_NOT_FOUND       404  no preloaded policy has that name
 *   INVALID_POLICY         422  a policy document is invalid
 *   EXTRACTION_FAILED      422  the subject could not be read
 *   UNSUPPORTED            501  the server cannot do what was asked
 *   MISSING_DEPENDENCY     501  what was asked needs an optional package this server's install lacks
 *                               (a model provider, pg, node-llama-cpp, QuickJS); `details.install` says
 *                               how the operator adds it
 *   MODEL_UNAVAILABLE      502  the model provider failed or answered nonsense (engines usually turn
 *   MODEL_OUTPUT_INVALID   502  these into fail-closed Decisions; these statuses are for the rest)
 *   MODEL_TIMEOUT          504
 *   SANDBOX_TIMEOUT        504
 *   CHECK_TIMEOUT          504  (the guard service answers a check past its time limit with a fail-closed
 *                               Decision, 200; the status is here for completeness)
 *   STORE_ERROR            503  the memory store is unavailable
 *   ABORTED                503  the server is shutting down or the request was cancelled
 *   everything else        500
 *
 * Conditions of the HTTP layer itself carry INVALID_INPUT with a `details.reason` that picks the status:
 *
 *   unauthorized           401  no API key, or one that is unknown or revoked (with WWW-Authenticate: Bearer)
 *   forbidden              403  the key lacks the scope, or may not use the policy, that the request needs
 *   host-not-allowed       403  the Host header does not name this service (DNS rebinding); 403 rather than
 *                               421 so that no client retries it elsewhere
 *   origin-not-allowed     403  a browser sent it for a page of an origin not allowed with --cors-origin
 *   route-not-found        404
 *   session-not-found      404  no session of that id opened by this key (another key's session included)
 *   session-finished       409  the session was finished; no more steps
 *   session-busy           409  other writers kept appending steps to the session first; send it again
 *   session-full           409  the session holds the most steps one trajectory may
 *   rate-limited           429  the key is over its rate limit (with Retry-After: seconds)
 *   audit-not-enabled      404  GET /v1/audit on a service that keeps no audit log
 *   entry-not-found        404  GET /v1/audit/:id for an id (or seq) the log does not hold
 *   body-too-large         413
 *   unsupported-media-type 415  a POST body not declared Content-Type: application/json
 *   too-deep               400  a body value nested deeper than the limit (the default status, named here
 *                               because a RangeError, a stack or string overflow past the boundary, is
 *                               answered the same way instead of 500)
 */
import type { ErrorCode } from "../core/errors.js";
import { isWardenError, WardenError } from "../core/errors.js";

export const HTTP_STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  INVALID_INPUT: 400,
  INVALID_POLICY: 422,
  POLICY_NOT_FOUND: 404,
  MODEL_CONFIG: 400,
  MODEL_UNAVAILABLE: 502,
  MODEL_TIMEOUT: 504,
  MODEL_OUTPUT_INVALID: 502,
  CASSETTE_MISS: 500,
  SANDBOX_SYNTAX: 500,
  SANDBOX_RUNTIME: 500,
  SANDBOX_TIMEOUT: 504,
  SANDBOX_MEMORY: 500,
  SANDBOX_LIMIT: 500,
  SANDBOX_INTERNAL: 500,
  STORE_ERROR: 503,
  EXTRACTION_FAILED: 422,
  LTL_PARSE: 400,
  DATASET_INVALID: 500,
  UNSUPPORTED: 501,
  ABORTED: 503,
  CHECK_TIMEOUT: 504,
  CHECK_WORKER_FAILED: 500,
  MISSING_DEPENDENCY: 501,
  INTERNAL: 500,
};

/** `details.reason` values the HTTP layer sets on its own INVALID_INPUT errors. */
export const HTTP_REASON_STATUS = {
  unauthorized: 401,
  forbidden: 403,
  "host-not-allowed": 403,
  "origin-not-allowed": 403,
  "route-not-found": 404,
  "session-not-found": 404,
  "session-finished": 409,
  "session-busy": 409,
  "session-full": 409,
  "rate-limited": 429,
  "audit-not-enabled": 404,
  "entry-not-found": 404,
  "approval-not-found": 404,
  "approval-not-pending": 409,
  "body-too-large": 413,
  "unsupported-media-type": 415,
  "too-deep": 400,
} as const;
export type HttpReason = keyof typeof HTTP_REASON_STATUS;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

/** The status and body the server answers for anything thrown while handling a request. */
export function httpErrorFor(options: { error: unknown }): { status: number; body: ErrorBody } {
  const { error } = options;
  if (isOverflow({ error })) return httpErrorFor({ error: tooDeepOrLarge() });
  if (!isWardenError(error)) {
    return { status: 500, body: { error: { code: "INTERNAL", message: "internal error" } } };
  }
  const reason = error.details?.reason;
  const status =
    typeof reason === "string" && Object.hasOwn(HTTP_REASON_STATUS, reason)
      ? HTTP_REASON_STATUS[reason as HttpReason]
      : HTTP_STATUS_BY_CODE[error.code];
  // INTERNAL errors may quote a bug's message; only the code goes out.
  const message = error.code === "INTERNAL" ? "internal error" : error.message;
  const details = error.code === "INTERNAL" ? undefined : error.details;
  return {
    status,
    body: { error: { code: error.code, message, ...(details !== undefined ? { details } : {}) } },
  };
}

/** A RangeError, thrown as is or wrapped as an INTERNAL WardenError. */
function isOverflow(options: { error: unknown }): boolean {
  const { error } = options;
  if (error instanceof RangeError) return true;
  return isWardenError(error) && error.code === "INTERNAL" && error.cause instanceof RangeError;
}

/**
 * A RangeError is a value the code past the boundary could not hold (call stack or string length
 * exceeded): the request's doing, so a 400 that says so rather than a 500.
 */
function tooDeepOrLarge(): WardenError {
  return new WardenError({
    code: "INVALID_INPUT",
    message: "the request holds a value too deeply nested or too large to check; flatten or shorten it",
    details: { reason: "too-deep", fields: ["(body)"] },
  });
}
