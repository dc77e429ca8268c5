/**
 * The compiled decision: code, not a model, applies the policy to the extracted facts — role-based
 * access (the exact inaccessible set), attribute rules (every violated rule), tool rules (deny beats ask
 * beats allow). The semantics match the toolbox's CheckAccess (see access-grants.ts) and CheckRule.
 * Tool-rule conditions see the call and the caller (`context`, `input`). A call whose effect depends
 * on a condition that could not be evaluated (an undetermined canonical form, say) makes the verdict
 * undetermined — unless something else already denies, since nothing could loosen a deny.
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
  /**
   * Present when the verdict depends on what could not be determined (a tool rule's condition over an
   * undetermined value), in words: the caller fails closed or asks a model; `effect` is then "deny".
   */
  undetermined?: string[];
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
  // The access rule is looked at first, so its violation or reason starts its list: that list is a
  // one-element literal (push on an empty array reserves room for 16), the others are made empty after.
  let violations: Violation[] | undefined;
  let reasons: string[] | undefined;
  const asks: Violation[] = [];

  if (compiled.access) {
    const role = facts.identity?.role ?? "";
    const entry = compiled.access.byRole.get(role);
    const needed = facts.resources ?? {};
    if (!entry) {
      if (compiled.access.unknownRole === "deny") {
        violations = [
          {
            ruleId: "access.unknown-role",
            message: `Access denied: role "${role || "(none)"}" has no access rule, so it may read nothing`,
            details: { role, inaccessible: needed },
          },
        ];
      } else reasons = [`role "${role}" has no access rule; unknown roles are allowed`];
    } else {
      const result = checkCompiledAccess({ grants: entry.grants, needed });
      if (result.denied) {
        const { id: ruleId, role, source } = entry.rule;
        const message = `Access denied: the ${role} role may not read ${describeInaccessible(result.inaccessible)}`;
        const details = { role, inaccessible: result.inaccessible };
        // Two literals rather than a spread: the violation is built in its final shape (same key order).
        violations = [source ? { ruleId, message, source, details } : { ruleId, message, details }];
      } else {
        reasons = [`every table and column read is allowed for the ${entry.rule.role} role`];
      }
    }
  }
  violations ??= [];
  reasons ??= [];

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

  let undetermined: string[] | undefined;
  // The caller's context and input, as conditions read them beside the call.
  const callerFacts = facts.caller ?? {};
  for (const call of facts.toolCalls ?? NO_CALLS) {
    const match = matchToolRule({
      rules: compiled.toolRules,
      call,
      default: compiled.toolDefault,
      facts: callerFacts,
      ...compiled.toolScope,
    });
    if (match.undetermined && match.undetermined.length > 0) {
      undetermined ??= [];
      undetermined.push(`whether the tool rules allow "${call.name}" (${match.undetermined.join("; ")})`);
      continue;
    }
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
  if (undetermined) return { effect: "deny", violations: [], reasons, undetermined };
  if (asks.length > 0) return { effect: "ask", violations: asks, reasons };
  return { effect: "allow", violations: [], reasons };
}
