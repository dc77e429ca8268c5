/**
 * A readable summary of a compiled policy for human review: what each rule says and where it came
 * from, followed by the verification findings.
 */
import type { Policy } from "../core/policy.js";
import type { Finding } from "./verify-policy.js";

export function summarizePolicy(options: { policy: Policy; findings?: readonly Finding[] }): string {
  const { policy } = options;
  const r = policy.rules ?? {};
  const out: string[] = [
    `Policy ${policy.name} v${policy.version}${policy.description ? ` — ${policy.description}` : ""}`,
  ];
  const v = r.vocabulary;
  if (v) {
    const parts = [
      v.resources ? `${Object.keys(v.resources).length} tables` : "",
      v.roles ? `${v.roles.length} roles` : "",
      v.attributes ? `${Object.keys(v.attributes).length} attributes` : "",
      v.actions ? `${v.actions.length} actions` : "",
    ].filter(Boolean);
    if (parts.length) out.push(`Vocabulary: ${parts.join(", ")}`);
  }
  if (r.access) {
    out.push(`Access control (${r.access.rules.length} roles; unknown roles: ${r.access.unknownRole}):`);
    for (const rule of r.access.rules) {
      const tables = Object.entries(rule.allow).map(([t, cs]) => `${t}(${cs === "*" ? "*" : cs.length})`);
      out.push(`  [${rule.id}] ${rule.role}: ${tables.join(", ")}`);
    }
  }
  if (r.attributeRules?.length) {
    out.push(`Attribute rules (${r.attributeRules.length}):`);
    for (const rule of r.attributeRules) {
      const req = rule.require
        .map((q) => `${q.attribute} ${q.operator} ${JSON.stringify(q.value)}`)
        .join(" and ");
      out.push(`  [${rule.id}] ${rule.description} requires ${req} — else "${rule.message}"`);
    }
  }
  if (r.toolRules?.length || r.toolDefault) {
    out.push(`Tool rules (${r.toolRules?.length ?? 0}; default: ${r.toolDefault ?? "allow"}):`);
    for (const rule of r.toolRules ?? []) {
      out.push(
        `  [${rule.id}] ${rule.effect.toUpperCase()} ${rule.tool}${rule.when ? " when " + JSON.stringify(rule.when) : ""} — ${rule.message}`,
      );
    }
  }
  if (r.temporalRules?.length) {
    out.push(`Temporal rules (${r.temporalRules.length}) over ${r.predicates?.length ?? 0} predicates:`);
    for (const rule of r.temporalRules.slice(0, 50)) {
      out.push(`  [${rule.id}] ${rule.formula}  (w=${rule.weight}, ${rule.check}) — ${rule.description}`);
    }
    if (r.temporalRules.length > 50) out.push(`  ... and ${r.temporalRules.length - 50} more`);
  }
  const findings = options.findings ?? [];
  const errors = findings.filter((f) => f.severity === "error");
  const warnings = findings.filter((f) => f.severity === "warning");
  out.push(`Verification: ${errors.length} error(s), ${warnings.length} warning(s)`);
  for (const f of [...errors, ...warnings]) out.push(`  ${f.severity.toUpperCase()} ${f.path}: ${f.message}`);
  return out.join("\n");
}
