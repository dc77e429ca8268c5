/**
 * Turns the Markov-logic result of a step (or of the end of a trajectory) into the Decision's
 * violations and explanation: one violation per violated rule, with the clause it came from, its
 * countermeasure, its formula, the values of the predicates it read and the operation that assigned
 * each, and — when open predicates were marginalised — its probability of holding with and without
 * the action.
 */
import type { Violation } from "../../../core/decision.js";
import type { MlnResult } from "../mln/index.js";
import type { ShieldRule } from "./compiled-shield-policy.js";
import type { ShieldOperation } from "./workflow-memory.js";

export function violationsFrom(options: {
  result: MlnResult;
  /** The rules the MLN was given, in the same order. */
  rules: readonly ShieldRule[];
  values: Readonly<Record<string, boolean>>;
  operations: Readonly<Record<string, ShieldOperation>>;
  step: number;
  /** "step": the action at `step`; "end": the complete trajectory. */
  phase: "step" | "end";
}): Violation[] {
  const { result, rules, values, operations } = options;
  const marginal = result.method !== "hard";
  return result.violated.map((v) => {
    const r = rules[v.index]!;
    const rule = r.rule;
    const predicates: Record<string, { value: boolean | null; operation: ShieldOperation }> = {};
    for (const a of r.atoms) {
      predicates[a] = {
        value: a in values ? (values[a] as boolean) : null,
        operation: operations[a] ?? "unassigned",
      };
    }
    const details: Record<string, unknown> = {
      formula: rule.formula,
      weight: v.weight,
      effect: rule.effect,
      check: rule.check,
      step: options.step,
      phase: options.phase,
      predicates,
      operation: "formal-verify",
    };
    if (rule.scope !== undefined) details.scope = rule.scope;
    if (marginal) details.probability = { withAction: v.plus, withoutAction: v.minus };
    const violation: Violation = {
      ruleId: rule.id,
      message: rule.message ?? rule.description,
      details,
    };
    if (rule.source !== undefined) violation.source = rule.source;
    if (rule.countermeasure !== undefined) violation.countermeasure = rule.countermeasure;
    return violation;
  });
}

/** "deny" unless every violated rule only asks for confirmation. */
export function verdictOf(options: { violated: readonly ShieldRule[] }): "deny" | "ask" {
  return options.violated.length > 0 && options.violated.every((r) => r.rule.effect === "ask")
    ? "ask"
    : "deny";
}

export function explainDenial(options: { violations: readonly Violation[]; where: string }): string {
  const parts = options.violations.map((v) =>
    v.countermeasure ? `${v.message} (instead: ${v.countermeasure})` : v.message,
  );
  return `${options.where} breaks ${parts.length === 1 ? "a rule" : `${parts.length} rules`}: ${parts.join("; ")}`;
}
