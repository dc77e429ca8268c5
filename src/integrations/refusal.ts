/**
 * What a refused tool call tells the agent, the same on every face that hands the refusal back to a model
 * (AI SDK feedback mode, OpenAI Agents rejections, LangChain tool results, coding-agent hook reasons):
 * that the call did not run, which rules it broke, why, and what to do instead — ShieldAgent's online
 * guardrail, where the agent reads the guard's feedback and corrects course. `ask` says a person must
 * approve it first. Plain text, bounded, so a model can read it and a hook can print it.
 */
import type { Decision } from "../core/decision.js";

/** Longest refusal text: enough for every rule a call usually breaks, never a log-sized tool result. */
const MAX_REFUSAL_CHARS = 4000;

export function refusalText(options: { decision: Decision; tool: string }): string {
  const { decision, tool } = options;
  const head =
    decision.verdict === "ask"
      ? `Warden held the call to ${tool}: it needs a person's approval first, and it did not run.`
      : `Warden refused the call to ${tool}: it did not run.`;
  const lines = [head];
  for (const violation of decision.violations) {
    const source = violation.source ? ` (${violation.source})` : "";
    lines.push(`- ${violation.ruleId}: ${violation.message}${source}`);
    if (violation.countermeasure) lines.push(`  Instead: ${violation.countermeasure}`);
  }
  if (decision.failure) lines.push(`The check could not be completed: ${decision.failure.message}`);
  else if (decision.violations.length === 0 && decision.explanation) lines.push(decision.explanation);
  lines.push(
    decision.verdict === "ask"
      ? "Ask the user to approve this call, or do the task another way."
      : "Do not retry the same call; change the arguments so they follow these rules, or do the task another way.",
  );
  const text = lines.join("\n");
  return text.length <= MAX_REFUSAL_CHARS ? text : `${text.slice(0, MAX_REFUSAL_CHARS - 1)}…`;
}
