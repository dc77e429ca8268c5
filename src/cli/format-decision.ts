/** A readable summary of a Decision for terminals. */
import type { Decision } from "../core/decision.js";

function oneLine(value: unknown, max = 200): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function formatDecision(options: { decision: Decision }): string {
  const d = options.decision;
  const head = d.verdict === "allow" ? "ALLOW" : d.verdict === "ask" ? "ASK (needs confirmation)" : "DENY";
  const cost = `${d.cost.llmCalls} LLM call${d.cost.llmCalls === 1 ? "" : "s"}, ${d.cost.ms < 1 ? d.cost.ms.toFixed(3) : d.cost.ms.toFixed(1)} ms`;
  const lines = [
    `${head}  (engine ${d.engine}${d.policy ? `, policy ${d.policy.name} v${d.policy.version}` : ""}; ${cost})`,
  ];
  if (d.failure)
    lines.push(
      `  ! ${d.failure.mode === "closed" ? "fail-closed" : "fail-open"}: ${d.failure.code}: ${d.failure.message}`,
    );
  if (d.risk) {
    // GuardAgent's Q&A risk level (core/risk.ts): the count of violated rules, for policies that ask for it.
    const n = d.risk.violatedRules;
    lines.push(`  risk: ${d.risk.level} (${n} rule${n === 1 ? "" : "s"} violated)`);
  }
  for (const v of d.violations) {
    if (v.ruleId === "warden.undecidable") continue;
    lines.push(`  - [${v.ruleId}] ${v.message}`);
    if (v.countermeasure) lines.push(`      instead: ${v.countermeasure}`);
    if (v.source) lines.push(`      from: ${oneLine(v.source, 160)}`);
  }
  lines.push(`  ${oneLine(d.explanation, 300)}`);
  if (d.views) {
    // The deterministic floor: what the compiled rules and the model each said, and who decided.
    const c = d.views.compiled;
    const compiled = c ? `compiled ${c.verdict}${c.determined ? " (determined)" : " (undetermined)"}` : "";
    const model = d.views.model ? `model ${d.views.model.verdict}` : "";
    lines.push(`  views: ${[compiled, model].filter(Boolean).join(" · ")} → ${d.views.decidedBy} decides`);
  }
  if (d.allowed) lines.push(`  output: ${oneLine(d.output)}`);
  return lines.join("\n");
}
