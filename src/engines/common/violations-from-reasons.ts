/**
 * Turns the free-form `reasons` a guardrail program (or a model's verdict) returns into Warden
 * violations: `{ inaccessible: { table: [columns] } }` becomes one access violation with the exact set;
 * `{ violations: {...} | [...] }` one violation per rule; a string one violation.
 */
import type { Violation } from "../../core/decision.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function normaliseInaccessible(value: unknown): Record<string, string[]> | undefined {
  if (!isRecord(value)) return undefined;
  const out = new Map<string, string[]>();
  for (const [table, columns] of Object.entries(value)) {
    const list = Array.isArray(columns)
      ? columns
      : typeof columns === "string"
        ? columns.split(/\s*,\s*/)
        : [];
    const names = [...new Set(list.map((c) => String(c).trim()).filter((c) => c !== ""))];
    if (names.length > 0) out.set(table.trim(), names);
  }
  // fromEntries, not assignment: a table named "__proto__" stays a table (assigning it set the prototype).
  return Object.fromEntries(out);
}

export function formatInaccessible(inaccessible: Record<string, string[]>): string {
  return Object.entries(inaccessible)
    .map(([table, columns]) => `${table} (${columns.join(", ")})`)
    .join("; ");
}

export function violationsFromReasons(options: { reasons: unknown; ruleIdPrefix?: string }): Violation[] {
  const { reasons } = options;
  const prefix = options.ruleIdPrefix ?? "guard";
  if (reasons === undefined || reasons === null) return [];
  if (typeof reasons === "string")
    return reasons.trim() ? [{ ruleId: `${prefix}.rule`, message: reasons }] : [];
  if (Array.isArray(reasons)) {
    return reasons.flatMap((r, i) =>
      typeof r === "string"
        ? [{ ruleId: `${prefix}.rule-${i + 1}`, message: r }]
        : violationsFromReasons({ reasons: r, ruleIdPrefix: prefix }),
    );
  }
  if (!isRecord(reasons)) return [{ ruleId: `${prefix}.rule`, message: String(reasons) }];
  const out: Violation[] = [];
  const inaccessible = normaliseInaccessible(reasons.inaccessible ?? reasons.inaccessible_db);
  if (inaccessible && Object.keys(inaccessible).length > 0) {
    out.push({
      ruleId: `${prefix}.access`,
      message: `Access denied to ${formatInaccessible(inaccessible)}`,
      details: { inaccessible },
    });
  }
  const violations = reasons.violations ?? reasons.violation ?? reasons.violated_rules;
  if (isRecord(violations)) {
    for (const [rule, message] of Object.entries(violations)) {
      if (message === null || message === undefined || message === false) continue;
      out.push({ ruleId: rule, message: typeof message === "string" && message ? message : rule });
    }
  } else if (Array.isArray(violations)) {
    violations.forEach((v, i) => {
      if (typeof v === "string") out.push({ ruleId: `${prefix}.rule-${i + 1}`, message: v });
      else if (isRecord(v)) {
        const message = String(v.message ?? v.violation ?? v.rule ?? JSON.stringify(v));
        out.push({ ruleId: String(v.rule ?? v.ruleId ?? v.id ?? `${prefix}.rule-${i + 1}`), message });
      }
    });
  } else if (typeof violations === "string" && violations.trim()) {
    out.push({ ruleId: `${prefix}.rule`, message: violations });
  }
  return out;
}
