/**
 * The compiled decision: code, not a model, applies the policy to the extracted facts — role-based
 * access (the exact inaccessible set), attribute rules (every violated rule), tool rules (deny beats ask
 * beats allow). The semantics match the toolbox's CheckAccess (see access-grants.ts) and CheckRule.
 */
import type { Violation } from "../../core/decision.js";
import type { Effect } from "../../core/policy.js";
import { checkRule } from "../../toolbox/builtins/check-rule.js";
import { checkCompiledAccess } from "./access-grants.js";
import type { CompiledPolicy } from "./compiled-policy.js";
import type { CompiledFacts } from "./extract-facts.js";
import { matchToolRule, type ToolCall } from "./extractors/tool-calls/index.js";

export interface CompiledVerdict {
  effect: Effect;
  violations: Violation[];
  /** Why it was allowed, when it was. */
  reasons: string[];
}

const NO_CALLS: readonly ToolCall[] = [];

/** formatInaccessible's text ("table (a, b); other (c)"), built without the intermediate arrays. */
function describeInaccessible(inaccessible: Record<string, string[]>): string {
  let out = "";
  for (const table of Object.keys(inaccessible)) {
    if (out !== "") out += "; ";
    out += `${table} (${inaccessible[table]!.join(", ")})`;
  }
  return out;
}

export function decide(options: { compiled: CompiledPolicy; facts: CompiledFacts }): CompiledVerdict {
  const { compiled, facts } = options;
  const violations: Violation[] = [];
  const asks: Violation[] = [];
  const reasons: string[] = [];

  if (compiled.access) {
    const role = facts.identity?.role ?? "";
    const entry = compiled.access.byRole.get(role);
    const needed = facts.resources ?? {};
    if (!entry) {
      if (compiled.access.unknownRole === "deny") {
        violations.push({
          ruleId: "access.unknown-role",
          message: `Access denied: role "${role || "(none)"}" has no access rule, so it may read nothing`,
          details: { role, inaccessible: needed },
        });
      } else reasons.push(`role "${role}" has no access rule; unknown roles are allowed`);
    } else {
      const result = checkCompiledAccess({ grants: entry.grants, needed });
      if (result.denied) {
        violations.push({
          ruleId: entry.rule.id,
          message: `Access denied: the ${entry.rule.role} role may not read ${describeInaccessible(result.inaccessible)}`,
          ...(entry.rule.source ? { source: entry.rule.source } : {}),
          details: { role: entry.rule.role, inaccessible: result.inaccessible },
        });
      } else {
        reasons.push(`every table and column read is allowed for the ${entry.rule.role} role`);
      }
    }
  }

  if (compiled.attributeRules.length > 0 && facts.categories) {
    const applicable = new Set(facts.categories.categories.map((c) => c.ruleId));
    const attributes = facts.identity?.attributes ?? {};
    for (const rule of compiled.attributeRules) {
      if (!applicable.has(rule.id)) continue;
      const result = checkRule({
        rules: { [rule.category]: { requirements: rule.require, message: rule.message } },
        userInfo: attributes,
      });
      if (result.denied) {
        violations.push({
          ruleId: rule.id,
          message: rule.message,
          ...(rule.source ? { source: rule.source } : {}),
          details: {
            category: rule.category,
            requires: rule.require,
            user: Object.fromEntries(rule.require.map((r) => [r.attribute, attributes[r.attribute] ?? null])),
            evidence: facts.categories.categories.find((c) => c.ruleId === rule.id)?.evidence ?? [],
          },
        });
      } else {
        reasons.push(`the task falls under "${rule.category}" and the user meets its requirements`);
      }
    }
    if (applicable.size === 0) reasons.push("the task falls under no restricted category");
  }

  for (const call of facts.toolCalls ?? NO_CALLS) {
    const match = matchToolRule({ rules: compiled.toolRules, call, default: compiled.toolDefault });
    const ruleId = match.rule?.id ?? "tool.default";
    const message =
      match.rule?.message ?? `No tool rule allows "${call.name}"; the policy's default is ${match.effect}`;
    const violation: Violation = {
      ruleId,
      message,
      ...(match.rule?.source ? { source: match.rule.source } : {}),
      details: { tool: call.name, args: call.args, effect: match.effect },
    };
    if (match.effect === "deny") violations.push(violation);
    else if (match.effect === "ask") asks.push(violation);
    else reasons.push(match.reason);
  }

  if (violations.length > 0) {
    return { effect: "deny", violations: asks.length > 0 ? [...violations, ...asks] : violations, reasons };
  }
  if (asks.length > 0) return { effect: "ask", violations: asks, reasons };
  return { effect: "allow", violations: [], reasons };
}
