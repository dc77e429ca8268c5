/**
 * Stage 2 of deciding a step (step-decision.ts): select circuits. The action predicates the step
 * invokes (true at this step; a history-bound one when the step itself satisfies its condition) and
 * those it may invoke (open, or history-bound with a condition the step cannot evaluate) select their
 * action circuits (ShieldAgent §3.3); the step rules of those circuits in scope are the rules this step
 * is verified against, and their atoms the predicates that can matter to the verdict.
 */
import { conditionValue } from "../assign/assign-predicates.js";
import type { StepFacts } from "../assign/step-facts.js";
import type { CompiledShieldPolicy, ScopedRules, ShieldRule } from "./compiled-shield-policy.js";
import type { StepValues } from "./step-decision-assign.js";

export interface CircuitSelection {
  /** Action predicates the step performs. */
  invoked: string[];
  /** Action predicates the step may perform (their value is unknown). */
  possible: string[];
  /** The invoked and possible actions that have a circuit. */
  circuitActions: string[];
  /** The step rules (in scope) of those circuits, in the order of the rules in scope. */
  rules: ShieldRule[];
  /** The predicates those rules read. */
  relevant: ReadonlySet<string>;
}

export function selectCircuits(options: {
  compiled: CompiledShieldPolicy;
  scoped: ScopedRules;
  values: Pick<StepValues, "values" | "open">;
  facts: StepFacts;
  historyMatches: readonly string[];
}): CircuitSelection {
  const { compiled, scoped, facts } = options;
  const { values } = options.values;
  const open = new Set(options.values.open);
  const actionPreds = scoped.predicates.filter((p) => p.kind === "action");
  const invoked = actionPreds
    .filter((p) =>
      p.binding?.kind === "history" ? options.historyMatches.includes(p.name) : values[p.name] === true,
    )
    .map((p) => p.name);
  // Open action predicates may be invoked by this step, and so may a history-bound one whose condition
  // could not be evaluated on this step (an undetermined value): its circuit must be checked.
  const possible = actionPreds
    .filter(
      (p) =>
        !invoked.includes(p.name) &&
        (open.has(p.name) ||
          (p.binding?.kind === "history" &&
            conditionValue({ condition: p.binding.when, facts }).value === "unknown")),
    )
    .map((p) => p.name);
  const circuitActions = [...invoked, ...possible].filter((a) => compiled.circuitRules.has(a));
  const positions = new Set<number>();
  for (const a of circuitActions)
    for (const i of compiled.circuitRules.get(a)!) {
      const pos = scoped.positionOf.get(i);
      if (pos !== undefined && scoped.rules[pos]!.rule.check === "step") positions.add(pos);
    }
  const rules = [...positions].sort((a, b) => a - b).map((pos) => scoped.rules[pos]!);
  return { invoked, possible, circuitActions, rules, relevant: new Set(rules.flatMap((r) => r.atoms)) };
}
