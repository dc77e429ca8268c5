/**
 * Stage 5 of deciding a step (step-decision.ts): explain. Turns the verified step into its Decision:
 * allowed (noting rules tolerated within ε), denied with one violation per violated rule (clause,
 * countermeasure, the values it read — shield-violations.ts), or, when the verdict depends on
 * predicates the model failed to answer, a failure Decision (closed or open as configured) saying why.
 * The trace records what every stage did: the invoked actions and circuits, the assignment and the
 * operation behind each value, the formal-verify expectations, the Markov-logic result and memory.
 */
import {
  allowDecision,
  type Cost,
  type Decision,
  denyDecision,
  failureDecision,
  type Trace,
  type Violation,
} from "../../../core/decision.js";
import type { ErrorCode, WardenError } from "../../../core/errors.js";
import type { Step } from "../../../core/subject.js";
import type { MlnResult } from "../mln/index.js";
import { SHIELD_ENGINE_NAME } from "./shield-engine-name.js";
import { explainDenial, verdictOf, violationsFrom } from "./shield-violations.js";
import type { StepValues } from "./step-decision-assign.js";
import type { CircuitSelection } from "./step-decision-circuits.js";
import type { MemoryTrace, PlannedStep } from "./step-decision-resolve.js";
import type { ShieldOperation } from "./workflow-memory.js";

export interface StepExplanation {
  policy: { name: string; version: string };
  step: Step;
  index: number;
  /** The step's action type (its facts). */
  action: string;
  selection: CircuitSelection;
  /** The final values. */
  values: StepValues;
  operations: Readonly<Record<string, ShieldOperation>>;
  notes: readonly string[];
  cost: Cost;
  /** The final Markov-logic result over `selection.rules`. */
  result: MlnResult;
  epsilon: number;
  memory?: MemoryTrace;
  /** The shielding plan that assigned the open predicates, when the shield planned. */
  plan?: PlannedStep;
  /** Set when the verdict depends on predicates the model failed to answer. */
  undecidable?: { unanswered: readonly string[]; failure?: WardenError; failMode: "closed" | "open" };
}

/** The facts of the step's trace (see the module comment). */
export function stepTraceFacts(options: StepExplanation): Record<string, unknown> {
  const { selection, values, operations, result } = options;
  const operationsUsed = [
    ...new Set(
      Object.entries(operations)
        .filter(([n]) => selection.relevant.has(n) || n in values.values)
        .map(([, op]) => op),
    ),
  ];
  if (selection.rules.length > 0) operationsUsed.push("formal-verify");
  const assignment: Record<string, boolean | null> = {};
  for (const n of [...new Set([...selection.relevant, ...Object.keys(values.values)])].sort())
    assignment[n] = n in values.values ? (values.values[n] as boolean) : null;
  const formalVerify: Record<string, { withAction: number | null; withoutAction: number | null }> = {};
  selection.rules.forEach((r, i) => {
    const plus = result.expectations.plus[i];
    const minus = result.expectations.minus[i];
    if (plus !== null && plus !== undefined)
      formalVerify[r.rule.id] = { withAction: plus, withoutAction: minus ?? null };
  });
  const facts: Record<string, unknown> = {
    step: options.index,
    action: options.action,
    invoked: selection.invoked,
    possiblyInvoked: selection.possible,
    circuits: selection.circuitActions,
    rules: selection.rules.map((r) => r.rule.id),
    assignment,
    operations: Object.fromEntries(Object.entries(operations).filter(([n]) => n in assignment)),
    answeredBy: values.answeredBy,
    operationsUsed: operationsUsed.sort(),
    formalVerify,
    mln: {
      delta: result.delta,
      epsilon: options.epsilon,
      method: result.method,
      allowed: result.allowed,
      open: result.unassigned,
      ...(result.newlySatisfied.length > 0 ? { newlySatisfied: result.newlySatisfied } : {}),
    },
  };
  if (options.memory) facts.memory = options.memory;
  if (options.plan) facts.plan = options.plan;
  return facts;
}

function trace(options: StepExplanation, notes: readonly string[]): Trace {
  return { attempts: [], facts: stepTraceFacts(options), notes: [...notes] };
}

/** The step's Decision (see the module comment). */
export function explainStep(options: StepExplanation): Decision {
  const { selection, result, epsilon, policy, step, cost } = options;
  const engine = SHIELD_ENGINE_NAME;
  const where = `Step ${options.index} (${options.action})`;
  if (selection.rules.length === 0) {
    const note =
      selection.invoked.length + selection.possible.length === 0
        ? "no action predicate of the policy is invoked by this step"
        : "the invoked actions have no step rule in scope";
    return allowDecision({
      engine,
      policy,
      output: step,
      cost,
      trace: trace(options, [...options.notes, note]),
    });
  }
  if (options.undecidable) {
    const { unanswered, failure, failMode } = options.undecidable;
    const message = `the model could not answer ${unanswered.join(", ")} for ${where.toLowerCase()}, and the verdict depends on ${unanswered.length === 1 ? "it" : "them"}${failure ? ` (${failure.message})` : ""}`;
    return failureDecision({
      engine,
      policy,
      code: (failure?.code ?? "MODEL_UNAVAILABLE") as ErrorCode,
      message,
      mode: failMode,
      output: step,
      cost,
      trace: trace(options, options.notes),
    });
  }
  if (result.allowed) {
    const notes =
      result.violated.length > 0
        ? [
            ...options.notes,
            `tolerated within ε = ${epsilon}: ${result.violated.map((v) => v.id).join(", ")} (Δ = ${result.delta.toFixed(4)})`,
          ]
        : options.notes;
    return allowDecision({ engine, policy, output: step, cost, trace: trace(options, notes) });
  }
  const violations = stepViolations(options);
  return denyDecision({
    engine,
    policy,
    violations,
    verdict: verdictOf({ violated: result.violated.map((v) => selection.rules[v.index]!) }),
    explanation: explainDenial({ violations, where }),
    cost,
    trace: trace(options, options.notes),
  });
}

/** One violation per violated rule; a circuit-level one when the score drops with no rule to blame. */
function stepViolations(options: StepExplanation): Violation[] {
  const { result, selection, epsilon } = options;
  const violations = violationsFrom({
    result,
    rules: selection.rules,
    values: options.values.values,
    operations: options.operations,
    step: options.index,
    phase: "step",
  });
  if (violations.length > 0) return violations;
  return [
    {
      ruleId: "shield.circuit",
      message: `The step lowers the policy score by ${(-result.delta).toFixed(4)} (more than ε = ${epsilon}) without a single rule to blame`,
      details: { delta: result.delta, rules: selection.rules.map((r) => r.rule.id) },
    },
  ];
}
