/**
 * Turns whatever a provider request threw into a WardenError that says which model, at which address,
 * failed and how; and decides which failures are worth retrying (network errors, 429, 5xx) and which
 * are not (validation errors and other 4xx: asking again gets the same answer).
 *
 * The AI SDK is an optional peer dependency, so its APICallError is recognised the way the SDK itself
 * does it (APICallError.isInstance checks a global symbol marker), without importing the package.
 */
import { WardenError } from "../core/errors.js";

/** The fields of the AI SDK's APICallError read here. */
interface ApiCallErrorLike extends Error {
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
}

const API_CALL_ERROR_MARKER = Symbol.for("vercel.ai.error.AI_APICallError");

/** The AI SDK's own test (APICallError.isInstance): the error carries its marker symbol set to true. */
export function isApiCallError(error: unknown): error is ApiCallErrorLike {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[API_CALL_ERROR_MARKER] === true
  );
}

const MAX_BODY_CHARS = 500;

function errorChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && !chain.includes(current) && chain.length < 8) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

/** The most specific network-level message in an error chain ("connect ECONNREFUSED 127.0.0.1:9"). */
export function networkReason(error: unknown): string | undefined {
  const chain = errorChain(error);
  for (let i = chain.length - 1; i >= 0; i--) {
    const item = chain[i] as { code?: unknown; message?: unknown; errors?: unknown } | undefined;
    if (!item || typeof item !== "object") continue;
    // Happy-eyeballs connects fail with an AggregateError whose own message is empty.
    if (Array.isArray(item.errors) && item.errors.length > 0) {
      const first = item.errors[0] as { message?: unknown; code?: unknown };
      if (typeof first?.message === "string" && first.message !== "") return first.message;
    }
    if (typeof item.code === "string" && item.code !== "") {
      return typeof item.message === "string" && item.message !== "" ? item.message : item.code;
    }
  }
  return undefined;
}

export function statusOf(error: unknown): number | undefined {
  return isApiCallError(error) ? error.statusCode : undefined;
}

function isNetworkError(error: unknown): boolean {
  if (isApiCallError(error)) return error.statusCode === undefined;
  if (error instanceof TypeError && /fetch failed|failed to fetch|terminated/i.test(error.message))
    return true;
  return networkReason(error) !== undefined && !(error instanceof WardenError);
}

/** fetch refuses some ports outright (9, 25, 6000...): asking again cannot help. */
function isBlockedPort(error: unknown): boolean {
  return /^bad port$/i.test(networkReason(error) ?? deepestMessage(error));
}

function deepestMessage(error: unknown): string {
  const chain = errorChain(error);
  const last = chain[chain.length - 1];
  return last instanceof Error ? last.message : String(last);
}

export function isRetryableError(error: unknown): boolean {
  if (error instanceof WardenError) return false;
  const status = statusOf(error);
  if (status !== undefined) return status === 429 || status >= 500;
  return isNetworkError(error) && !isBlockedPort(error);
}

/** Seconds or an HTTP date from Retry-After, in ms; undefined when absent or unreadable. */
export function retryAfterMs(error: unknown): number | undefined {
  if (!isApiCallError(error)) return undefined;
  const header = error.responseHeaders?.["retry-after"];
  if (header === undefined) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function providerMessage(error: ApiCallErrorLike): string {
  const message = error.message.trim();
  if (message !== "" && !/^Bad Request$|^Internal Server Error$/i.test(message)) return message;
  return (error.responseBody ?? message).slice(0, MAX_BODY_CHARS);
}

export function toModelError(options: {
  error: unknown;
  /** "provider:model-id" */
  modelId: string;
  endpoint: string;
  requests: number;
}): WardenError {
  const { error, modelId, endpoint, requests } = options;
  if (error instanceof WardenError) return error;
  const where = `model ${modelId} at ${endpoint}`;
  const after = requests > 1 ? ` (after ${requests} requests)` : "";
  const base = { provider: modelId.split(":")[0], model: modelId, endpoint, requests };
  const status = statusOf(error);
  if (isApiCallError(error) && status !== undefined) {
    const responseBody = error.responseBody?.slice(0, MAX_BODY_CHARS);
    const details = { ...base, status, responseBody };
    if (status === 401 || status === 403) {
      return new WardenError({
        code: "MODEL_CONFIG",
        message: `${where} rejected the API key (HTTP ${status}): ${providerMessage(error)}`,
        details,
        cause: error,
      });
    }
    if (status >= 200 && status < 300) {
      return new WardenError({
        code: "MODEL_UNAVAILABLE",
        message: `${where} answered with a response that could not be read: ${error.message}`,
        details,
        cause: error,
      });
    }
    return new WardenError({
      code: "MODEL_UNAVAILABLE",
      message: `${where} answered HTTP ${status}${after}: ${providerMessage(error)}`,
      details,
      cause: error,
    });
  }
  if (isNetworkError(error)) {
    let reason = networkReason(error) ?? deepestMessage(error);
    if (isBlockedPort(error)) reason = `${reason} (fetch refuses to connect to this port; use another)`;
    return new WardenError({
      code: "MODEL_UNAVAILABLE",
      message: `${where} could not be reached${after}: ${reason.replace(/^Cannot connect to API: /, "")}`,
      details: base,
      cause: error,
    });
  }
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new WardenError({
    code: "MODEL_UNAVAILABLE",
    message: `${where} failed: ${text}`,
    details: base,
    cause: error,
  });
}
