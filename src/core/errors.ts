/**
 * The one error family of Warden. Every failure that is not a policy decision is a WardenError with a
 * stable `code`; the CLI, HTTP server and MCP server each map codes to their own status in one place.
 * A deny is never an error: it is a returned Decision.
 */

export const ERROR_CODES = [
  "INVALID_INPUT",
  "INVALID_POLICY",
  "POLICY_NOT_FOUND",
  "MODEL_CONFIG",
  "MODEL_UNAVAILABLE",
  "MODEL_TIMEOUT",
  "MODEL_OUTPUT_INVALID",
  "CASSETTE_MISS",
  "SANDBOX_SYNTAX",
  "SANDBOX_RUNTIME",
  "SANDBOX_TIMEOUT",
  "SANDBOX_MEMORY",
  "SANDBOX_LIMIT",
  "SANDBOX_INTERNAL",
  "STORE_ERROR",
  "EXTRACTION_FAILED",
  "LTL_PARSE",
  "DATASET_INVALID",
  "UNSUPPORTED",
  "ABORTED",
  "CHECK_TIMEOUT",
  "CHECK_WORKER_FAILED",
  "MISSING_DEPENDENCY",
  "INTERNAL",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface WardenErrorOptions {
  code: ErrorCode;
  message: string;
  /** Structured context: the offending field, the position of a parse error, the provider's status... */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class WardenError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(options: WardenErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "WardenError";
    this.code = options.code;
    this.details = options.details;
  }

  toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export function isWardenError(value: unknown): value is WardenError {
  return value instanceof WardenError;
}

/** Wraps anything thrown into a WardenError, keeping a WardenError as it is. */
export function toWardenError(options: { error: unknown; code?: ErrorCode; message?: string }): WardenError {
  const { error } = options;
  if (error instanceof WardenError) return error;
  const text = error instanceof Error ? error.message : String(error);
  return new WardenError({
    code: options.code ?? "INTERNAL",
    message: options.message ? `${options.message}: ${text}` : text,
    cause: error,
  });
}
