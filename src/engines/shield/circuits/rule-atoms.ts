/**
 * The predicates a temporal rule reads: its formula's atoms, parsed once per distinct formula text.
 * A formula that does not parse is a policy error naming the rule.
 */
import { WardenError } from "../../../core/errors.js";
import type { TemporalRule } from "../../../core/policy.js";
import { atoms, type LtlAst, parseLtl } from "../ltl/index.js";

interface Parsed {
  ast: LtlAst;
  atoms: string[];
}

const cache = new Map<string, Parsed>();

/** The parsed formula of a rule and its atoms (cached by formula text; bounded cache). */
export function parseRule(options: { rule: Pick<TemporalRule, "id" | "formula"> }): Parsed {
  const { rule } = options;
  const hit = cache.get(rule.formula);
  if (hit) return hit;
  let ast: LtlAst;
  try {
    ast = parseLtl({ formula: rule.formula });
  } catch (error) {
    throw new WardenError({
      code: "INVALID_POLICY",
      message: `rule ${rule.id}: formula does not parse: ${(error as Error).message}`,
      details: { field: `rules.temporalRules.${rule.id}.formula` },
      cause: error,
    });
  }
  const parsed = { ast, atoms: atoms({ ast }) };
  if (cache.size > 20_000) cache.clear();
  cache.set(rule.formula, parsed);
  return parsed;
}

/** The atoms (predicate names) a rule's formula mentions, in order of first appearance. */
export function ruleAtoms(options: { rule: Pick<TemporalRule, "id" | "formula"> }): string[] {
  return parseRule(options).atoms;
}
