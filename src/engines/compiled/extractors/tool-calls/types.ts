/** The tool calls an agent made or is about to make, read from whichever wire format carried them. */

export type Confidence = "high" | "medium" | "low" | "none";

export const TOOL_CALL_FORMATS = [
  /** OpenAI chat completions: `tool_calls[].function.{name, arguments}` and the legacy `function_call`. */
  "openai-chat",
  /** OpenAI Responses API: `{ type: "function_call", call_id, name, arguments }` output items. */
  "openai-responses",
  /** AI SDK tool-call parts: `{ type: "tool-call", toolCallId, toolName, input | args }`. */
  "ai-sdk",
  /** Anthropic messages: `{ type: "tool_use", id, name, input }` content blocks. */
  "anthropic",
  /** MCP JSON-RPC: `{ method: "tools/call", params: { name, arguments } }`. */
  "mcp",
  /** A bare `{ name, arguments | args | input | parameters }` object. */
  "plain",
] as const;
export type ToolCallFormat = (typeof TOOL_CALL_FORMATS)[number];

export interface ToolCall {
  /** The call's id in its format (tool_call id, call_id, toolCallId, JSON-RPC id), when it has one. */
  id?: string;
  name: string;
  /**
   * The method a call written as code runs, when its name is dotted (`goto` for `page.goto(…)` in
   * BrowserGym's python action space): deny and ask rules that name the method apply to the call too,
   * while an allow rule must name the call itself (match-tool-rule.ts).
   */
  method?: string;
  /** Parsed arguments; `{}` when there were none or they could not be read (see `error`). */
  args: Record<string, unknown>;
  format: ToolCallFormat;
  /** The arguments as received, kept when they could not be parsed into an object. */
  rawArguments?: string;
  /** Why the arguments could not be read. */
  error?: string;
  /**
   * The tool's JSON Schema for its arguments (MCP `inputSchema` from `tools/list`), when the caller knows
   * it: argument kinds (path, url, email, command) are learned from it (src/core/arg-kinds.ts).
   */
  inputSchema?: unknown;
}

export interface ToolCallsResult {
  calls: ToolCall[];
  /**
   * "high" = structured calls with readable arguments; "medium" = calls found as JSON inside prose;
   * "low" = some call's arguments are unreadable, or something call-like could not be parsed;
   * "none" = no call.
   */
  confidence: Confidence;
  reason?: string;
}
