/**
 * Picks the effect of a policy's tool rules for one call. Semantics:
 * - A rule applies when its `tool` pattern matches the call's name (see tool-glob.ts) and its `when`
 *   condition, if any, holds over the facts `{ ...facts, tool, name, args, id, format }`.
 * - Among the rules that apply, the strictest effect wins: deny beats ask beats allow (an explicit deny
 *   cannot be overridden by a broader or narrower allow; "deny all but X" is written as a deny
 *   `toolDefault` plus allow rules).
 * - The rule reported as the reason is the most specific one with the winning effect (exact name over
 *   glob, more literal characters over fewer, a `when` condition over none), ties broken by order.
 * - When no rule applies, the effect is `default` (fail-closed "deny" unless the caller says otherwise).
 * - A condition that cannot be evaluated (an invalid regular expression, say) counts as holding for
 *   deny and ask rules and as not holding for allow rules, so an error never loosens the policy.
 */
import { evaluateCondition } from "../../../../core/condition.js";
import type { Effect, ToolRule } from "../../../../core/policy.js";
import { matchesToolGlob, toolGlobSpecificity } from "./tool-glob.js";
import type { ToolCall } from "./types.js";

export interface ToolRuleMatch {
  effect: Effect;
  /** The rule that decided; absent when no rule applied and `default` was used. */
  rule?: ToolRule;
  /** Every rule that applied, in policy order. */
  matches: ToolRule[];
  defaulted: boolean;
  reason: string;
  /** Conditions that could not be evaluated, by rule id. */
  errors?: string[];
}

const STRICTNESS: Record<Effect, number> = { allow: 0, ask: 1, deny: 2 };

function specificity(rule: ToolRule): number {
  return toolGlobSpecificity({ pattern: rule.tool }) * 2 + (rule.when ? 1 : 0);
}

export function matchToolRule(options: {
  rules: readonly ToolRule[];
  call: Pick<ToolCall, "name" | "args"> & Partial<Pick<ToolCall, "id" | "format">>;
  /** Effect when no rule applies (the policy's `toolDefault`); "deny" when not given. */
  default?: Effect;
  /** Further facts conditions may read, e.g. `{ context, input }`; the call's own fields take precedence. */
  facts?: Record<string, unknown>;
}): ToolRuleMatch {
  const { call } = options;
  const facts = {
    ...options.facts,
    tool: call.name,
    name: call.name,
    args: call.args,
    ...(call.id !== undefined ? { id: call.id } : {}),
    ...(call.format !== undefined ? { format: call.format } : {}),
  };
  const matches: ToolRule[] = [];
  const errors: string[] = [];
  for (const rule of options.rules) {
    if (!matchesToolGlob({ pattern: rule.tool, name: call.name })) continue;
    if (rule.when) {
      let holds: boolean;
      try {
        holds = evaluateCondition(rule.when, facts);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        errors.push(`${rule.id}: ${why}`);
        holds = rule.effect !== "allow";
      }
      if (!holds) continue;
    }
    matches.push(rule);
  }
  const errorPart = errors.length > 0 ? { errors } : {};
  if (matches.length === 0) {
    const effect = options.default ?? "deny";
    return {
      effect,
      matches,
      defaulted: true,
      reason: `no tool rule applies to "${call.name}"; default effect ${effect}`,
      ...errorPart,
    };
  }
  let best = matches[0]!;
  for (const rule of matches.slice(1)) {
    const stricter = STRICTNESS[rule.effect] - STRICTNESS[best.effect];
    if (stricter > 0 || (stricter === 0 && specificity(rule) > specificity(best))) best = rule;
  }
  return {
    effect: best.effect,
    rule: best,
    matches,
    defaulted: false,
    reason: `${best.effect} by rule ${best.id} (${best.tool}): ${best.message}`,
    ...errorPart,
  };
}
