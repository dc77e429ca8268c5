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
 * "body-too-large" 413, "route-not-found" 404.
 */
import type { ErrorCode } from "../core/errors.js";
import { isWardenError } from "../core/errors.js";

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
  INTERNAL: 500,
};

/** `details.reason` values the HTTP layer sets on its own INVALID_INPUT errors. */
export const HTTP_REASON_STATUS = {
  "body-too-large": 413,
  "route-not-found": 404,
} as const;
export type HttpReason = keyof typeof HTTP_REASON_STATUS;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

/** The status and body the server answers for anything thrown while handling a request. */
export function httpErrorFor(options: { error: unknown }): { status: number; body: ErrorBody } {
  const { error } = options;
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
