/**
 * Stage 1 of deciding a step (step-decision.ts): assign. The predicates of the rules in scope get the
 * values that the step and the trajectory determine without a model — Search (history bindings),
 * Binary-Check conditions, Detect — plus the model's answers for this very step when it is a re-check
 * of the pending step that shows the model the same thing (asking again would cost a call and could
 * change nothing). Everything else stays open, in a stable order: the order in which the Markov-logic
 * decision marginalises them, so a reordering would be a different computation.
 *
 * Values are plain data returned as new objects (`withAnswers`), so each later stage receives the
 * values it decides on and cannot change what an earlier stage saw.
 */
import type { Predicate } from "../../../core/policy.js";
import type { Step } from "../../../core/subject.js";
import { assignPredicates } from "../assign/assign-predicates.js";
import { buildStepFacts, type StepFacts } from "../assign/step-facts.js";
import type { DetectorRegistry } from "../detectors/registry.js";
import { historyMatches, type PendingStep, type TrajectoryState } from "./trajectory-state.js";
import type { ShieldOperation } from "./workflow-memory.js";

/** Where a value a model gave came from: the model now, or a remembered workflow (by id). */
export type AnswerSource = "model" | `memory:${string}`;

/** The truth values of a step's predicates at some point of the pipeline. */
export interface StepValues {
  /** Assigned values; open predicates are absent. */
  values: Readonly<Record<string, boolean>>;
  /** Predicates without a value, in the order they became open. */
  open: readonly string[];
  /** The values a model gave at this step (asked now, reused from the pending step or from memory). */
  answers: Readonly<Record<string, boolean>>;
  answeredBy: Readonly<Record<string, AnswerSource>>;
}

export interface StepAssignment extends StepValues {
  facts: StepFacts;
  /** History-bound action predicates whose condition the step itself satisfies (it performs them). */
  historyMatches: string[];
  /** The operation that assigns each predicate the rules in scope read. */
  operations: Readonly<Record<string, ShieldOperation>>;
  notes: readonly string[];
}

export function operationOf(options: { predicate: Predicate | undefined }): ShieldOperation {
  switch (options.predicate?.binding?.kind) {
    case "history":
      return "search";
    case "condition":
    case "ask":
      return "binary-check";
    case "detector":
      return "detect";
    default:
      return "unassigned";
  }
}

/** The values with `answers` assigned (and no longer open); `values` itself is left as it was. */
export function withAnswers(options: {
  values: StepValues;
  answers: Readonly<Record<string, { value: boolean; by: AnswerSource }>>;
}): StepValues {
  const names = Object.keys(options.answers);
  if (names.length === 0) return options.values;
  const before = options.values;
  const values = { ...before.values };
  const answers = { ...before.answers };
  const answeredBy = { ...before.answeredBy };
  for (const name of names) {
    const { value, by } = options.answers[name]!;
    values[name] = value;
    answers[name] = value;
    answeredBy[name] = by;
  }
  const answered = new Set(names);
  return { values, open: before.open.filter((n) => !answered.has(n)), answers, answeredBy };
}

/**
 * The pending step's model answers when `index` re-checks that same step showing the model the same
 * thing (fingerprint and shown digest, trajectory-state.ts); none otherwise.
 */
export function reusablePendingAnswers(options: {
  pending: PendingStep | undefined;
  index: number;
  fingerprint: string;
  shown: string;
}): Readonly<Record<string, boolean>> {
  const p = options.pending;
  return p?.index === options.index && p.fingerprint === options.fingerprint && p.shown === options.shown
    ? p.answers
    : {};
}

/**
 * Assigns the step at `index`. Reads the state's rules in scope, task, context and history-bound
 * actions; advances its assignment history (the incremental cache of Search bindings), nothing else.
 */
export function assignStep(options: {
  state: TrajectoryState;
  steps: readonly Step[];
  index: number;
  detectors: DetectorRegistry;
  /** Model answers to keep (reusablePendingAnswers). */
  reused?: Readonly<Record<string, boolean>>;
}): StepAssignment {
  const { state, steps, index } = options;
  const { scoped } = state;
  const assignment = assignPredicates({
    predicates: scoped.predicates,
    trajectory: steps,
    index,
    detectors: options.detectors,
    history: state.history,
    input: state.input,
    ...(state.context ? { context: state.context } : {}),
  });
  const facts = buildStepFacts({ step: steps[index]!, index, input: state.input, context: state.context });
  const operations: Record<string, ShieldOperation> = {};
  for (const p of scoped.predicates) operations[p.name] = operationOf({ predicate: p });
  for (const u of scoped.undeclared) operations[u] = "unassigned";
  const deterministic: StepValues = {
    values: { ...assignment.values },
    open: [...new Set([...assignment.unassigned, ...scoped.undeclared])],
    answers: {},
    answeredBy: {},
  };
  const reused: Record<string, { value: boolean; by: AnswerSource }> = {};
  for (const [name, value] of Object.entries(options.reused ?? {})) reused[name] = { value, by: "model" };
  const values = withAnswers({ values: deterministic, answers: reused });
  return {
    values: values.values,
    open: values.open,
    answers: values.answers,
    answeredBy: values.answeredBy,
    facts,
    historyMatches: historyMatches({ state, facts }),
    operations,
    notes: [...assignment.notes],
  };
}
