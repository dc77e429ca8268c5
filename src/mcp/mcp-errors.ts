/**
 * The one place Warden's error codes become MCP (JSON-RPC) error codes. A deny is not here: the Warden
 * MCP server answers it as a Decision and the guard proxy as a tool result with `isError: true`.
 *
 *   INVALID_INPUT, INVALID_POLICY, POLICY_NOT_FOUND, LTL_PARSE,
 *   EXTRACTION_FAILED, MODEL_CONFIG               -32602 InvalidParams  (the arguments must change; for
 *                                                  MODEL_CONFIG: pick an engine this server has a model for)
 *   UNSUPPORTED                                    -32600 InvalidRequest
 *   MODEL_TIMEOUT, SANDBOX_TIMEOUT, CHECK_TIMEOUT  -32001 RequestTimeout (a check past the guard
 *                                                  service's limit is a fail-closed Decision, not this)
 *   ABORTED                                        -32000 ConnectionClosed (shutting down or cancelled)
 *   everything else                                -32603 InternalError (MISSING_DEPENDENCY among them:
 *                                                  the server's install lacks an optional package; its
 *                                                  `details.install` names the command)
 *
 * The error's `data` carries the Warden code and details: `{ wardenCode, details? }`. An INTERNAL error,
 * or anything that is not a WardenError, goes out as "internal error" with nothing of its message.
 */
import { McpError, ErrorCode as McpErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { type ErrorCode, isWardenError } from "../core/errors.js";

export const MCP_ERROR_CODE_BY_WARDEN_CODE: Readonly<Record<ErrorCode, number>> = {
  INVALID_INPUT: McpErrorCode.InvalidParams,
  INVALID_POLICY: McpErrorCode.InvalidParams,
  POLICY_NOT_FOUND: McpErrorCode.InvalidParams,
  MODEL_CONFIG: McpErrorCode.InvalidParams,
  MODEL_UNAVAILABLE: McpErrorCode.InternalError,
  MODEL_TIMEOUT: McpErrorCode.RequestTimeout,
  MODEL_OUTPUT_INVALID: McpErrorCode.InternalError,
  CASSETTE_MISS: McpErrorCode.InternalError,
  SANDBOX_SYNTAX: McpErrorCode.InternalError,
  SANDBOX_RUNTIME: McpErrorCode.InternalError,
  SANDBOX_TIMEOUT: McpErrorCode.RequestTimeout,
  SANDBOX_MEMORY: McpErrorCode.InternalError,
  SANDBOX_LIMIT: McpErrorCode.InternalError,
  SANDBOX_INTERNAL: McpErrorCode.InternalError,
  STORE_ERROR: McpErrorCode.InternalError,
  EXTRACTION_FAILED: McpErrorCode.InvalidParams,
  LTL_PARSE: McpErrorCode.InvalidParams,
  DATASET_INVALID: McpErrorCode.InternalError,
  UNSUPPORTED: McpErrorCode.InvalidRequest,
  ABORTED: McpErrorCode.ConnectionClosed,
  CHECK_TIMEOUT: McpErrorCode.RequestTimeout,
  CHECK_WORKER_FAILED: McpErrorCode.InternalError,
  MISSING_DEPENDENCY: McpErrorCode.InternalError,
  INTERNAL: McpErrorCode.InternalError,
};

/** McpError prefixes its message with "MCP error <code>: "; the wire message should be the plain one. */
function plainMcpError(code: number, message: string, data?: unknown): McpError {
  const error = new McpError(code, message, data);
  error.message = message;
  return error;
}

const SDK_PREFIX = /^MCP error -?\d+: /;

/** The MCP error to answer for anything thrown while serving a request. An McpError is kept as it is. */
export function toMcpError(options: { error: unknown }): McpError {
  const { error } = options;
  if (error instanceof McpError)
    return plainMcpError(error.code, error.message.replace(SDK_PREFIX, ""), error.data);
  if (!isWardenError(error) || error.code === "INTERNAL") {
    return plainMcpError(McpErrorCode.InternalError, "internal error", { wardenCode: "INTERNAL" });
  }
  return plainMcpError(MCP_ERROR_CODE_BY_WARDEN_CODE[error.code], error.message, {
    wardenCode: error.code,
    ...(error.details !== undefined ? { details: error.details } : {}),
  });
}
