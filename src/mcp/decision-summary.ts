/** A one-line summary of a Decision, for the text part of MCP results and for logs. */
import type { Decision } from "../core/decision.js";

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function summarizeDecision(options: { decision: Decision; maxChars?: number }): string {
  const d = options.decision;
  const head = d.verdict === "allow" ? "ALLOW" : d.verdict === "ask" ? "ASK (a human must confirm)" : "DENY";
  const failure = d.failure ? ` (fail-${d.failure.mode}: ${d.failure.code})` : "";
  const where = `${d.policy ? `${d.policy.name} v${d.policy.version} ` : ""}via ${d.engine}`;
  const rules = d.violations.filter((v) => v.ruleId !== "warden.undecidable");
  const why =
    rules.length > 0 && !d.failure
      ? rules.map((v) => `[${v.ruleId}] ${v.message}`).join("; ")
      : d.explanation;
  return oneLine(`${head}${failure} — ${where}: ${why}`, options.maxChars ?? 400);
}
