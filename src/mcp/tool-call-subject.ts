/**
 * What the guard proxy asks Warden about one MCP `tools/call`: the agent's task (the proxy's configured
 * input, or nothing), the call itself as the agent's output, the call again as structured context (so no
 * parsing is needed), and the session's earlier calls as the trajectory for step-wise engines.
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
}): Subject {
  const { tool, args } = options;
  return {
    input: options.task ?? "",
    output: JSON.stringify({ method: "tools/call", params: { name: tool, arguments: args } }),
    context: { ...options.context, toolCalls: [{ name: tool, arguments: args }] },
    // Copies: the proxy fills in a step's observation later, after this check may still be running.
    trajectory: [...(options.history ?? []).map((step) => ({ ...step })), { action: tool, args }],
  };
}
