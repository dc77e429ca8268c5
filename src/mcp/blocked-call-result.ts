/**
 * The tool result the guard proxy answers instead of forwarding a call Warden did not allow: `isError`
 * with a text the agent (and its user) can act on — which rules, why, and for "ask" that a human must
 * confirm — and the whole Decision under `_meta["warden/decision"]` for programs.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Decision } from "../core/decision.js";

export const DECISION_META_KEY = "warden/decision";

export function blockedCallResult(options: {
  tool: string;
  decision: Decision;
  /** Why an ask was not confirmed (declined, timed out, no elicitation support…). */
  reason?: string;
}): CallToolResult {
  const { tool, decision: d } = options;
  const policy = d.policy ? `policy ${d.policy.name} v${d.policy.version}` : "the policy";
  const lines: string[] = [];
  if (d.failure) {
    lines.push(
      `Warden blocked the call to ${tool}: the check against ${policy} could not be completed, so it fails closed.`,
      `Reason: ${d.failure.message}`,
    );
  } else if (d.verdict === "ask") {
    lines.push(`Warden held the call to ${tool}: ${policy} requires a human's confirmation first.`);
  } else {
    lines.push(`Warden denied the call to ${tool}: it violates ${policy}.`);
  }
  for (const v of d.violations) {
    if (v.ruleId === "warden.undecidable") continue;
    lines.push(`- [${v.ruleId}] ${v.message}${v.source ? ` (rule source: ${v.source})` : ""}`);
    if (v.countermeasure) lines.push(`  Instead: ${v.countermeasure}`);
  }
  if (!d.failure && d.violations.length === 0) lines.push(d.explanation);
  if (options.reason) lines.push(`Not confirmed: ${options.reason}.`);
  lines.push(
    d.verdict === "ask"
      ? "A human must confirm this call before it can run; it was not sent to the tool. Ask the user to confirm it, or do something else."
      : "The call was not sent to the tool.",
  );
  return {
    isError: true,
    content: [{ type: "text", text: lines.join("\n") }],
    _meta: { [DECISION_META_KEY]: d },
  };
}
