/**
 * Stage 3 of deciding a step (step-decision.ts): resolve the open predicates. The Binary-Check
 * questions of the `ask`-bound predicates that can matter — those of the selected circuits, plus those
 * of rules that look back in time or are judged at the end, whose values every step must record — go
 * to the model in one structured call when one is configured; without one they stay open and are
 * marginalised. With a store, long-term memory (workflow-memory.ts) first supplies the answers of
 * identical questions and names the checks a similar workflow found useless, which are held back until
 * the verifier says whether the verdict depends on them (`resolveSkipped`). `rememberWorkflow` keeps
 * the workflow of an allowed step whose assignment needed the model.
 *
 * A model failure is recorded (`failed`, `failure`), never thrown: the verifier decides whether the
 * verdict depends on what could not be answered.
 */
import { addCost, type Cost } from "../../../core/decision.js";
import type { WardenError } from "../../../core/errors.js";
import { type Policy, type Predicate, policyRef } from "../../../core/policy.js";
import type { Step } from "../../../core/subject.js";
import type { ModelClient } from "../../../llm/model.js";
import type { Store } from "../../../store/store.js";
import { type BinaryQuestion, binaryCheck, binaryQuestionKey } from "./binary-check.js";
import type { ShieldRule } from "./compiled-shield-policy.js";
import type { PlanStep } from "./shielding-plan.js";
import { type AnswerSource, type StepValues, withAnswers } from "./step-decision-assign.js";
import {
  planReuse,
  type RetrievedWorkflow,
  retrieveWorkflows,
  type ShieldOperation,
  type ShieldWorkflowPlan,
  saveWorkflow,
} from "./workflow-memory.js";

/** What the plan did at a step (kept in the Resolution, shown in the trace, stored with the workflow). */
export interface PlannedStep {
  steps: PlanStep[];
  /** The operation the plan chose for each predicate it assigned. */
  operations: Record<string, ShieldOperation>;
  /** Ids of the workflows shown as exemplars. */
  exemplars: string[];
}

/** What long-term memory did for the step (shown in the Decision's trace). */
export interface MemoryTrace {
  retrieved: Array<{ id: string; action: string; distance: number }>;
  /** Predicate -> id of the workflow whose answer was reused. */
  reusedAnswers: Record<string, string>;
  /** Predicate -> id of the workflow that found its check useless (not asked). */
  skipped: Record<string, string>;
  /** Skipped checks asked after all, because the verdict depended on them. */
  askedAfterAll: string[];
  /** Ids of the workflows stored for this step. */
  stored: string[];
  error?: string;
}

export interface Resolution {
  values: StepValues;
  /** The Binary-Check questions the step needed. */
  questions: readonly BinaryQuestion[];
  /** Memory key of each question (only with a model and a store). */
  keys: Readonly<Record<string, string>>;
  /** Questions held back on memory's word, not asked yet. */
  skipped: readonly BinaryQuestion[];
  /** Predicates whose question the model failed to answer (an error, not "unknown"). */
  failed: readonly string[];
  /** The last model error. */
  failure?: WardenError;
  /** Questions sent to the model. */
  asked: number;
  notes: readonly string[];
  cost: Cost;
  /** Present when the step has a store and needed questions (or retrieved workflows). */
  memory?: MemoryTrace;
  /** The shielding plan that assigned the open predicates (planning "plan"). */
  planned?: PlannedStep;
}

/** Where the questions go: the model and what a Binary-Check prompt shows it. */
export interface AskContext {
  model: ModelClient | undefined;
  input: string;
  steps: readonly Step[];
  index: number;
  signal?: AbortSignal;
}

/** The `ask`-bound open predicates that can matter: relevant ones, and those rules need every step. */
export function neededQuestions(options: {
  predicates: readonly Predicate[];
  rules: readonly ShieldRule[];
  open: readonly string[];
  relevant: ReadonlySet<string>;
}): BinaryQuestion[] {
  const asks = options.predicates.filter((p) => p.binding?.kind === "ask");
  if (asks.length === 0) return [];
  const needed = new Set(options.relevant);
  for (const r of options.rules) if (r.needsHistory) for (const a of r.atoms) needed.add(a);
  const open = new Set(options.open);
  return asks
    .filter((p) => open.has(p.name) && needed.has(p.name))
    .map((p) => ({ predicate: p.name, question: (p.binding as { question: string }).question }));
}

/** One Binary-Check call with `questions`; its answers applied to `resolution`. */
export async function askQuestions(options: {
  ask: AskContext;
  resolution: Resolution;
  questions: readonly BinaryQuestion[];
}): Promise<Resolution> {
  const { ask, resolution, questions } = options;
  if (!ask.model || questions.length === 0) return resolution;
  const r = await binaryCheck({
    model: ask.model,
    questions,
    input: ask.input,
    steps: ask.steps,
    index: ask.index,
    ...(ask.signal ? { signal: ask.signal } : {}),
  });
  const answers: Record<string, { value: boolean; by: AnswerSource }> = {};
  for (const [name, value] of Object.entries(r.answers)) answers[name] = { value, by: "model" };
  const next: Resolution = {
    ...resolution,
    values: withAnswers({ values: resolution.values, answers }),
    cost: addCost(resolution.cost, r.usage),
    asked: resolution.asked + questions.length,
  };
  if (r.error) {
    next.failed = [...resolution.failed, ...questions.map((q) => q.predicate)];
    next.failure = r.error;
    next.notes = [...resolution.notes, `binary-check failed (${r.error.code}): ${r.error.message}`];
  } else if (r.unknown.length > 0) {
    next.notes = [...resolution.notes, `the model could not tell: ${r.unknown.join(", ")}`];
  }
  return next;
}

/** Each question's memory key: the exact prompt, the policy's name and version, and the model. */
function questionKeys(options: {
  ask: AskContext;
  questions: readonly BinaryQuestion[];
  policy: Policy;
}): Record<string, string> {
  const { ask } = options;
  const keys: Record<string, string> = {};
  if (!ask.model) return keys;
  for (const q of options.questions)
    keys[q.predicate] = binaryQuestionKey({
      question: q,
      input: ask.input,
      steps: ask.steps,
      index: ask.index,
      policy: policyRef(options.policy),
      model: ask.model.id,
    });
  return keys;
}

/** Answers from long-term memory, and the questions it says need not be asked up front. */
async function consultMemory(options: {
  resolution: Resolution;
  store: Store;
  policy: Policy;
  actions: readonly string[];
  query: string;
  memoryK: number;
}): Promise<Resolution> {
  const { resolution } = options;
  const { questions, keys } = resolution;
  const memory: MemoryTrace = { ...resolution.memory! };
  let hits: RetrievedWorkflow[] = [];
  try {
    hits = await retrieveWorkflows({
      store: options.store,
      policy: options.policy.name,
      actions: options.actions,
      query: options.query,
      k: options.memoryK,
      keys: Object.values(keys),
    });
  } catch (error) {
    memory.error = `retrieval failed: ${(error as Error).message}`;
  }
  memory.retrieved = hits.map((h) => ({ id: h.id, action: h.action, distance: h.distance }));
  const reuse = planReuse({
    hits,
    questions: questions.map((q) => ({ ...q, ...(keys[q.predicate] ? { key: keys[q.predicate] } : {}) })),
  });
  const answers: Record<string, { value: boolean; by: AnswerSource }> = {};
  memory.reusedAnswers = {};
  for (const [name, r] of Object.entries(reuse.answers)) {
    answers[name] = { value: r.value, by: `memory:${r.workflow}` };
    memory.reusedAnswers[name] = r.workflow;
  }
  const skipped = questions.filter((q) => reuse.skip[q.predicate] !== undefined);
  memory.skipped = {};
  for (const q of skipped) memory.skipped[q.predicate] = reuse.skip[q.predicate]!.workflow;
  return { ...resolution, values: withAnswers({ values: resolution.values, answers }), skipped, memory };
}

/** Resolves the open predicates the step needs (see the module comment); held-back ones stay open. */
export async function resolveOpenPredicates(options: {
  ask: AskContext;
  store: Store | undefined;
  memoryK: number;
  policy: Policy;
  /** The predicates and rules in scope. */
  predicates: readonly Predicate[];
  rules: readonly ShieldRule[];
  selection: { relevant: ReadonlySet<string>; circuitActions: readonly string[] };
  values: StepValues;
  /** The step's retrieval text (stepQuery). */
  query: string;
}): Promise<Resolution> {
  const { ask, store, selection } = options;
  const { model } = ask;
  const questions = neededQuestions({
    predicates: options.predicates,
    rules: options.rules,
    open: options.values.open,
    relevant: selection.relevant,
  });
  let resolution: Resolution = {
    values: options.values,
    questions,
    // Only memory reads the keys, so they are computed only when there is a store.
    keys: store && questions.length > 0 ? questionKeys({ ask, questions, policy: options.policy }) : {},
    skipped: [],
    failed: [],
    asked: 0,
    notes: [],
    cost: { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 },
  };
  if (store && questions.length > 0)
    resolution.memory = { retrieved: [], reusedAnswers: {}, skipped: {}, askedAfterAll: [], stored: [] };
  if (!model) {
    if (questions.length === 0) return resolution;
    const names = questions.map((q) => q.predicate).join(", ");
    return { ...resolution, notes: [`no model configured: left open (marginalised): ${names}`] };
  }
  if (questions.length === 0) return resolution;
  if (store && selection.circuitActions.length > 0) {
    resolution = await consultMemory({
      resolution,
      store,
      policy: options.policy,
      actions: selection.circuitActions,
      query: options.query,
      memoryK: options.memoryK,
    });
  }
  const held = new Set(resolution.skipped.map((q) => q.predicate));
  const toAsk = questions.filter(
    (q) => !(q.predicate in resolution.values.answers) && !held.has(q.predicate),
  );
  return askQuestions({ ask, resolution, questions: toAsk });
}

/**
 * Settles the questions memory held back: asked after all when `needed` (the verifier found the
 * verdict depends on them), else noted as skipped.
 */
export async function resolveSkipped(options: {
  ask: AskContext;
  resolution: Resolution;
  needed: boolean;
  relevant: ReadonlySet<string>;
}): Promise<Resolution> {
  const { resolution } = options;
  const names = resolution.skipped.map((q) => q.predicate);
  if (names.length === 0) return resolution;
  if (!options.needed) {
    const note = `skipped binary-check of ${names.join(", ")}: the verdict does not depend on them`;
    return { ...resolution, notes: [...resolution.notes, note] };
  }
  const skipped = { ...resolution.memory?.skipped };
  for (const n of names) delete skipped[n];
  const memory: MemoryTrace | undefined = resolution.memory && {
    ...resolution.memory,
    skipped,
    askedAfterAll: names.filter((n) => options.relevant.has(n)),
  };
  return askQuestions({
    ask: options.ask,
    resolution: { ...resolution, skipped: [], ...(memory ? { memory } : {}) },
    questions: resolution.skipped,
  });
}

/** The workflow plan of a step: how each relevant predicate was assigned, and whether answers mattered. */
export function workflowPlan(options: {
  rules: readonly ShieldRule[];
  relevant: ReadonlySet<string>;
  operations: Readonly<Record<string, ShieldOperation>>;
  predicates: ReadonlyMap<string, Predicate>;
  resolution: Resolution;
  /** For the model's answers: whether the verdict changes with the predicate left open. */
  useful: Readonly<Record<string, boolean>>;
}): ShieldWorkflowPlan {
  const { values, answeredBy } = options.resolution.values;
  const { keys } = options.resolution;
  const plan: ShieldWorkflowPlan = {
    kind: "warden.shield-workflow",
    version: 1,
    predicates: {},
    rules: options.rules.map((r) => r.rule.id),
    ...(options.resolution.planned ? { shieldingPlan: options.resolution.planned.steps } : {}),
  };
  for (const n of options.relevant) {
    const entry: ShieldWorkflowPlan["predicates"][string] = {
      operation: options.operations[n] ?? "unassigned",
    };
    const p = options.predicates.get(n);
    if (p?.binding?.kind === "ask") entry.question = p.binding.question;
    if (keys[n] !== undefined && answeredBy[n] !== undefined) entry.key = keys[n];
    if (n in values) entry.value = values[n];
    if (answeredBy[n] === "model") entry.useful = options.useful[n] === true;
    plan.predicates[n] = entry;
  }
  return plan;
}

/** Stores the plan for each circuit action; the memory trace with what was stored (or the error). */
export async function rememberWorkflow(options: {
  store: Store;
  policy: string;
  actions: readonly string[];
  query: string;
  plan: ShieldWorkflowPlan;
  memory: MemoryTrace;
}): Promise<MemoryTrace> {
  const saved = await saveWorkflow({
    store: options.store,
    policy: options.policy,
    actions: options.actions,
    query: options.query,
    plan: options.plan,
    verdict: "allow",
  });
  const memory: MemoryTrace = { ...options.memory, stored: saved.ids };
  if (saved.error) memory.error = `storing the workflow failed: ${saved.error}`;
  return memory;
}
