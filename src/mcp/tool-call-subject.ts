/**
 * What the guard proxy asks Warden about one MCP `tools/call`: the agent's task (the proxy's configured
 * input, or nothing), the call itself as the agent's output, the call again as structured context (so no
 * parsing is needed), the tool's input schema when the upstream listed it (`context.toolSchemas`, so the
 * argument kinds come from the schema), and the session's earlier calls as the trajectory for step-wise
 * engines.
 *
 * `toolCalls` and `toolSchemas` are the proxy's own facts: configured context never replaces them (a
 * `--context` naming another call or a schema that makes a path look like plain text would let the check
 * judge something other than what is forwarded).
 */
import type { Step, Subject } from "../core/subject.js";

export function toolCallSubject(options: {
  /** The tool name as the policy knows it (after any prefix). */
  tool: string;
  args: Record<string, unknown>;
  /** The agent's task, when the proxy was told it. */
  task?: string;
  /** Facts the proxy was configured with (identity, user attributes...). */
  context?: Record<string, unknown>;
  /** Calls already forwarded in this session, oldest first. */
  history?: readonly Step[];
  /** The tool's `inputSchema` from the upstream's `tools/list`, when known. */
  inputSchema?: unknown;
}): Subject {
  const { tool, args } = options;
  const { toolCalls: _calls, toolCall: _call, toolSchemas: _schemas, ...configured } = options.context ?? {};
  return {
    input: options.task ?? "",
    output: JSON.stringify({ method: "tools/call", params: { name: tool, arguments: args } }),
    context: {
      ...configured,
      toolCalls: [{ name: tool, arguments: args }],
      ...(options.inputSchema !== undefined ? { toolSchemas: { [tool]: options.inputSchema } } : {}),
    },
    // Copies: the proxy fills in a step's observation later, after this check may still be running.
    trajectory: [...(options.history ?? []).map((step) => ({ ...step })), { action: tool, args }],
  };
}
