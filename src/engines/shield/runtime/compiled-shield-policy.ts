/**
 * The shield's view of a policy, computed once per policy object: the temporal rules with weight > 0
 * (a weight-0 rule can never change a verdict) parsed into LTLf trees, the predicates by name, the
 * action-based circuits (the policy's own `rules.circuits`, or built with buildCircuits when absent),
 * and per scope set the rules that apply. A circuit is completed with every rule that mentions its
 * action even when a stored circuit omits it (a stale artifact must not let an action go unchecked).
 */
import { WardenError } from "../../../core/errors.js";
import type { Circuit, Policy, Predicate, TemporalRule } from "../../../core/policy.js";
import { buildCircuits } from "../circuits/build-circuits.js";
import { parseRule } from "../circuits/rule-atoms.js";
import type { LtlAst } from "../ltl/index.js";

export interface ShieldRule {
  /** Position among the shield's rules (weight > 0 only). */
  index: number;
  rule: TemporalRule;
  ast: LtlAst;
  atoms: string[];
  /**
   * Whether the rule needs its predicates' values at every step, not only at the steps its circuit is
   * checked: end rules, and rules with past operators (Y, O, H, S) that look back at earlier steps.
   */
  needsHistory: boolean;
}

export interface ScopedRules {
  key: string;
  rules: ShieldRule[];
  /** Predicates the rules read (declared ones; undeclared atoms are never assigned and stay open). */
  predicates: Predicate[];
  /** Undeclared atoms the rules read. */
  undeclared: string[];
  /** Shield rule index -> position in `rules`. */
  positionOf: ReadonlyMap<number, number>;
}

export interface CompiledShieldPolicy {
  policy: Policy;
  rules: ShieldRule[];
  predicates: ReadonlyMap<string, Predicate>;
  circuits: Circuit[];
  /** Action predicate -> indices of the rules of its circuit. */
  circuitRules: ReadonlyMap<string, readonly number[]>;
  inScope(options: { scopes: readonly string[] }): ScopedRules;
}

const PAST = new Set(["Y", "O", "H", "S"]);

function usesPast(ast: LtlAst): boolean {
  const stack: LtlAst[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (PAST.has(node.op)) return true;
    if ("arg" in node) stack.push(node.arg);
    else if ("left" in node) stack.push(node.left, node.right);
  }
  return false;
}

const compiledCache = new WeakMap<Policy, CompiledShieldPolicy>();

export function compileShieldPolicy(options: { policy: Policy }): CompiledShieldPolicy {
  const { policy } = options;
  const hit = compiledCache.get(policy);
  if (hit) return hit;
  if (typeof policy !== "object" || policy === null || typeof policy.name !== "string") {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "policy: expected a Warden policy object",
      details: { field: "policy" },
    });
  }
  const predicates = new Map((policy.rules?.predicates ?? []).map((p) => [p.name, p] as const));
  const rules: ShieldRule[] = [];
  const byId = new Map<string, number>();
  for (const rule of policy.rules?.temporalRules ?? []) {
    const parsed = parseRule({ rule });
    if (!(rule.weight > 0)) continue;
    const index = rules.length;
    byId.set(rule.id, index);
    rules.push({
      index,
      rule,
      ast: parsed.ast,
      atoms: parsed.atoms,
      needsHistory: rule.check === "end" || usesPast(parsed.ast),
    });
  }
  const circuits = policy.rules?.circuits ?? buildCircuits({ policy });
  const circuitRules = new Map<string, number[]>();
  const add = (action: string, index: number) => {
    const list = circuitRules.get(action) ?? [];
    if (!list.includes(index)) list.push(index);
    circuitRules.set(action, list);
  };
  for (const c of circuits) for (const id of c.rules) if (byId.has(id)) add(c.action, byId.get(id)!);
  for (const r of rules) for (const a of r.atoms) if (predicates.get(a)?.kind === "action") add(a, r.index);
  for (const list of circuitRules.values()) list.sort((a, b) => a - b);

  const scoped = new Map<string, ScopedRules>();
  const compiled: CompiledShieldPolicy = {
    policy,
    rules,
    predicates,
    circuits,
    circuitRules,
    inScope({ scopes }) {
      const key = [...scopes].sort().join("|");
      const known = scoped.get(key);
      if (known) return known;
      const set = new Set(scopes);
      const list = rules.filter((r) => r.rule.scope === undefined || set.has(r.rule.scope));
      const names = new Set(list.flatMap((r) => r.atoms));
      const preds = [...names].filter((n) => predicates.has(n)).map((n) => predicates.get(n)!);
      const undeclared = [...names].filter((n) => !predicates.has(n)).sort();
      const positionOf = new Map(list.map((r, i) => [r.index, i] as const));
      const value: ScopedRules = { key, rules: list, predicates: preds, undeclared, positionOf };
      if (scoped.size > 1000) scoped.clear();
      scoped.set(key, value);
      return value;
    },
  };
  compiledCache.set(policy, compiled);
  return compiled;
}
