/**
 * Deciding one step (and, at the end, the whole trajectory) — the shielding pipeline of ShieldAgent
 * §3.3 over one trajectory state:
 *  1. assign the predicates of the rules in scope: Search (history bindings over the interaction so
 *     far), Binary-Check (condition bindings deterministically; `ask` bindings by the model when one is
 *     configured), Detect (detector bindings);
 *  2. extract the invoked action predicates (true at this step; history-bound ones when the step
 *     itself satisfies their condition) and the possibly invoked ones (left open), and fetch their
 *     circuits' step rules;
 *  3. with a model: retrieve similar past workflows (long-term memory) and ask the `ask` questions the
 *     circuits need — plus those of rules that look back in time or are judged at the end, whose
 *     values every step must record — in one structured call;
 *  4. Formal Verify: each rule's LTLf monitor reads the step in μ+ (as taken) and in μ− (no action:
 *     every invoked or possibly invoked action predicate false, history-bound ones as they were before
 *     the step), and the Markov-logic decision compares the two (open predicates marginalised);
 *  5. explain every violated rule with its clause and countermeasure.
 * When the model fails, the predicates it should have answered stay open; if the verdict depends on
 * them (it differs between their completions) the step is undecidable and the Decision fails closed
 * (or open, if so configured) saying why.
 */
import {
  addCost,
  allowDecision,
  type Cost,
  type Decision,
  denyDecision,
  failureDecision,
  type Trace,
} from "../../../core/decision.js";
import { type ErrorCode, WardenError } from "../../../core/errors.js";
import type { Predicate } from "../../../core/policy.js";
import { policyRef } from "../../../core/policy.js";
import type { Step } from "../../../core/subject.js";
import type { ModelClient } from "../../../llm/model.js";
import type { Store } from "../../../store/store.js";
import { assignPredicates, conditionValue } from "../assign/assign-predicates.js";
import { buildStepFacts } from "../assign/step-facts.js";
import type { DetectorRegistry } from "../detectors/registry.js";
import {
  type MlnProblem,
  type MlnResult,
  type MlnRule,
  type MlnSide,
  type MlnWorld,
  prepareMln,
  solveMln,
} from "../mln/index.js";
import { type BinaryQuestion, binaryCheck, binaryQuestionKey } from "./binary-check.js";
import type { CompiledShieldPolicy, ScopedRules, ShieldRule } from "./compiled-shield-policy.js";
import { explainDenial, verdictOf, violationsFrom } from "./shield-violations.js";
import {
  historyMatches as historyMatchesOf,
  historyValueWithout,
  type PendingStep,
  shownDigest,
  stepFingerprint,
  type TrajectoryState,
} from "./trajectory-state.js";
import {
  planReuse,
  type RetrievedWorkflow,
  retrieveWorkflows,
  type ShieldOperation,
  type ShieldWorkflowPlan,
  saveWorkflow,
  stepQuery,
} from "./workflow-memory.js";

export const SHIELD_ENGINE_NAME = "shield";

export interface ShieldRuntime {
  model: ModelClient | undefined;
  store: Store | undefined;
  detectors: DetectorRegistry;
  /** The engine's ε; the policy's `rules.epsilon` applies when absent; default 0. */
  epsilon: number | undefined;
  failMode: "closed" | "open";
  sampling: { exactLimit?: number; samples?: number; seed?: number };
  /** Workflows retrieved per step (default 3). */
  memoryK: number;
}

/** Most completions tried when checking whether a verdict depends on a few predicates. */
const ROBUST_LIMIT = 8;

function operationOf(p: Predicate | undefined): ShieldOperation {
  switch (p?.binding?.kind) {
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

export function epsilonOf(options: { runtime: ShieldRuntime; state: TrajectoryState }): number {
  return options.runtime.epsilon ?? options.state.compiled.policy.rules?.epsilon ?? 0;
}

function zeroUsage(): Cost {
  return { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 };
}

interface StepWork {
  values: Record<string, boolean>;
  open: Set<string>;
  operations: Record<string, ShieldOperation>;
  answers: Record<string, boolean>;
  /** Where each model-assigned value came from. */
  answeredBy: Record<string, "model" | `memory:${string}`>;
  notes: string[];
  cost: Cost;
}

/** The Markov-logic problem a decision was reached with (for weight training). */
export interface CapturedProblem {
  problem: MlnProblem;
  /** The rules of `problem`, in order. */
  rules: readonly ShieldRule[];
  epsilon: number;
}

/** Decides the step at `index` (the last of `steps`); leaves it pending in the state. */
export async function decideStep(options: {
  runtime: ShieldRuntime;
  state: TrajectoryState;
  steps: readonly Step[];
  index: number;
  signal?: AbortSignal;
  /** Receives the final Markov-logic problem of the step (not called when no rule is active). */
  capture?: (captured: CapturedProblem) => void;
}): Promise<Decision> {
  const { runtime, state, steps, index } = options;
  const { compiled, scoped } = state;
  const policy = compiled.policy;
  const step = steps[index]!;
  const fingerprint = stepFingerprint({ step });
  // The pending step's answers are reused only for the same step showing the model the same thing.
  const shown = shownDigest({ step });
  const previous =
    state.pending?.index === index &&
    state.pending.fingerprint === fingerprint &&
    state.pending.shown === shown
      ? state.pending
      : undefined;
  const epsilon = epsilonOf({ runtime, state });

  // 1. Deterministic operations.
  const assignment = assignPredicates({
    predicates: scoped.predicates,
    trajectory: steps,
    index,
    detectors: runtime.detectors,
    history: state.history,
    input: state.input,
    ...(state.context ? { context: state.context } : {}),
  });
  const facts = buildStepFacts({ step, index, input: state.input, context: state.context });
  const matches = historyMatchesOf({ state, facts });
  const work: StepWork = {
    values: { ...assignment.values },
    open: new Set([...assignment.unassigned, ...scoped.undeclared]),
    operations: {},
    answers: {},
    answeredBy: {},
    notes: [...assignment.notes],
    cost: zeroUsage(),
  };
  for (const p of scoped.predicates) work.operations[p.name] = operationOf(p);
  for (const u of scoped.undeclared) work.operations[u] = "unassigned";
  const setAnswer = (name: string, value: boolean, by: StepWork["answeredBy"][string]) => {
    work.values[name] = value;
    work.open.delete(name);
    work.answers[name] = value;
    work.answeredBy[name] = by;
  };
  if (previous) for (const [name, value] of Object.entries(previous.answers)) setAnswer(name, value, "model");

  // 2. Invoked actions and their circuits.
  const actionPreds = scoped.predicates.filter((p) => p.kind === "action");
  const invoked = actionPreds
    .filter((p) => (p.binding?.kind === "history" ? matches.includes(p.name) : work.values[p.name] === true))
    .map((p) => p.name);
  // Open action predicates may be invoked by this step, and so may a history-bound one whose condition
  // could not be evaluated on this step (an undetermined value): its circuit must be checked.
  const possible = actionPreds
    .filter(
      (p) =>
        !invoked.includes(p.name) &&
        (work.open.has(p.name) ||
          (p.binding?.kind === "history" &&
            conditionValue({ condition: p.binding.when, facts }).value === "unknown")),
    )
    .map((p) => p.name);
  const circuitActions = [...invoked, ...possible].filter((a) => compiled.circuitRules.has(a));
  const activeSet = new Set<number>();
  for (const a of circuitActions)
    for (const i of compiled.circuitRules.get(a)!) {
      const pos = scoped.positionOf.get(i);
      if (pos !== undefined && scoped.rules[pos]!.rule.check === "step") activeSet.add(pos);
    }
  const active = [...activeSet].sort((a, b) => a - b).map((pos) => scoped.rules[pos]!);
  const relevant = new Set(active.flatMap((r) => r.atoms));

  // 3. Binary-Check with the model (and long-term memory).
  const needed = new Set(relevant);
  for (const r of scoped.rules) if (r.needsHistory) for (const a of r.atoms) needed.add(a);
  const questions: BinaryQuestion[] = scoped.predicates
    .filter((p) => p.binding?.kind === "ask" && work.open.has(p.name) && needed.has(p.name))
    .map((p) => ({ predicate: p.name, question: (p.binding as { question: string }).question }));
  const memory: {
    retrieved: Array<{ id: string; action: string; distance: number }>;
    reusedAnswers: Record<string, string>;
    skipped: Record<string, string>;
    askedAfterAll: string[];
    stored: string[];
    error?: string;
  } = { retrieved: [], reusedAnswers: {}, skipped: {}, askedAfterAll: [], stored: [] };
  let failed: string[] = [];
  let failure: WardenError | undefined;
  let skipped: BinaryQuestion[] = [];
  let askedNow = 0;
  const query = stepQuery({ facts });
  // Each question's memory key (workflow-memory.ts): the exact prompt it is asked with, the policy's
  // name and version and the model — a remembered answer is reused only for an identical question.
  // Only memory reads them, so they are computed only when there is a store.
  const keys: Record<string, string> = {};
  if (runtime.model && runtime.store)
    for (const q of questions)
      keys[q.predicate] = binaryQuestionKey({
        question: q,
        input: state.input,
        steps,
        index,
        policy: policyRef(policy),
        model: runtime.model.id,
      });
  const ask = async (list: BinaryQuestion[]) => {
    if (!runtime.model || list.length === 0) return;
    const r = await binaryCheck({
      model: runtime.model,
      questions: list,
      input: state.input,
      steps,
      index,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    work.cost = addCost(work.cost, r.usage);
    askedNow += list.length;
    for (const [name, value] of Object.entries(r.answers)) setAnswer(name, value, "model");
    if (r.error) {
      failed = [...failed, ...list.map((q) => q.predicate)];
      failure = r.error;
      work.notes.push(`binary-check failed (${r.error.code}): ${r.error.message}`);
    } else if (r.unknown.length > 0) work.notes.push(`the model could not tell: ${r.unknown.join(", ")}`);
  };
  if (runtime.model && questions.length > 0) {
    let toAsk = questions;
    if (runtime.store && circuitActions.length > 0) {
      let hits: RetrievedWorkflow[] = [];
      try {
        hits = await retrieveWorkflows({
          store: runtime.store,
          policy: policy.name,
          actions: circuitActions,
          query,
          k: runtime.memoryK,
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
      for (const [name, r] of Object.entries(reuse.answers)) {
        setAnswer(name, r.value, `memory:${r.workflow}`);
        memory.reusedAnswers[name] = r.workflow;
      }
      skipped = questions.filter((q) => reuse.skip[q.predicate] !== undefined);
      toAsk = questions.filter(
        (q) => !(q.predicate in reuse.answers) && reuse.skip[q.predicate] === undefined,
      );
      for (const q of skipped) memory.skipped[q.predicate] = reuse.skip[q.predicate]!.workflow;
    }
    await ask(toAsk);
  } else if (questions.length > 0) {
    work.notes.push(
      `no model configured: left open (marginalised): ${questions.map((q) => q.predicate).join(", ")}`,
    );
  }

  // 4. Formal Verify + Markov-logic decision.
  const mlnRules: MlnRule[] = active.map((r) => ({ id: r.rule.id, weight: r.rule.weight, atoms: r.atoms }));
  const breach = breachedActions({ active, state, scoped, compiled });
  const holds: MlnSide["holds"] = ({ rule, world }) => {
    const actions = breach[rule];
    // A safety rule the earlier steps already broke can never hold again, so μ+ and μ− would both
    // fail it and the step would go through as "no worse". Instead, every further action the rule
    // governs counts as breaking it again: an agent (or a caller reporting its steps) that got one
    // violation through gets no free pass for the next.
    if (actions) return !actions.some((a) => world[a] === true);
    return state.monitors[scoped.positionOf.get(active[rule]!.index)!]!.peek({ step: world }).atStart;
  };
  const minusOverrides: Record<string, boolean> = {};
  for (const a of [...invoked, ...possible]) {
    const p = compiled.predicates.get(a);
    minusOverrides[a] =
      p?.binding?.kind === "history" ? historyValueWithout({ state, name: a, index }) : false;
  }
  let lastProblem: MlnProblem | undefined;
  const solve = (fixed: Record<string, boolean>, alsoOpen: readonly string[] = []): MlnResult => {
    const values: Record<string, boolean> = { ...work.values, ...fixed };
    for (const a of alsoOpen) delete values[a];
    const openNow = [...work.open, ...alsoOpen].filter((p) => relevant.has(p) && !(p in fixed));
    const plus: MlnSide = { values, unassigned: openNow, holds };
    const minus: MlnSide = {
      values: { ...values, ...minusOverrides } as MlnWorld,
      unassigned: openNow.filter((p) => !(p in minusOverrides)),
      holds,
    };
    const problem = prepareMln({ rules: mlnRules, plus, minus, ...runtime.sampling });
    if (Object.keys(fixed).length === 0 && alsoOpen.length === 0) lastProblem = problem;
    return solveMln({ problem, epsilon });
  };
  /** Whether the verdict is the same for every completion of `names` (the relevant ones). */
  const robust = (names: readonly string[]): { robust: boolean; verdict?: boolean; tried: number } => {
    const list = names.filter((n) => relevant.has(n));
    if (list.length === 0) return { robust: true, tried: 0 };
    if (list.length > ROBUST_LIMIT) return { robust: false, tried: 0 };
    let verdict: boolean | undefined;
    for (let mask = 0; mask < 2 ** list.length; mask += 1) {
      const fixed: Record<string, boolean> = {};
      list.forEach((n, b) => {
        fixed[n] = ((mask >>> b) & 1) === 1;
      });
      const allowed = solve(fixed).allowed;
      if (verdict === undefined) verdict = allowed;
      else if (verdict !== allowed) return { robust: false, tried: mask + 1 };
    }
    return { robust: true, verdict, tried: 2 ** list.length };
  };

  let result = solve({});
  if (skipped.length > 0) {
    const names = skipped.map((q) => q.predicate);
    const r = robust(names);
    if (!r.robust || (r.verdict !== undefined && r.verdict !== result.allowed)) {
      memory.askedAfterAll = names.filter((n) => relevant.has(n));
      for (const n of names) delete memory.skipped[n];
      await ask(skipped);
      result = solve({});
    } else {
      work.notes.push(`skipped binary-check of ${names.join(", ")}: the verdict does not depend on them`);
    }
  }

  const cost: Cost = { ...work.cost };
  const operationsUsed = [
    ...new Set(
      Object.entries(work.operations)
        .filter(([n]) => relevant.has(n) || n in work.values)
        .map(([, op]) => op),
    ),
  ];
  if (active.length > 0) operationsUsed.push("formal-verify");
  const assignmentView: Record<string, boolean | null> = {};
  for (const n of [...new Set([...relevant, ...Object.keys(work.values)])].sort())
    assignmentView[n] = n in work.values ? (work.values[n] as boolean) : null;
  // Built when the decision is returned, so it shows the final result.
  const trace = (): Trace => {
    const formalVerify: Record<string, { withAction: number | null; withoutAction: number | null }> = {};
    active.forEach((r, i) => {
      const plus = result.expectations.plus[i];
      const minus = result.expectations.minus[i];
      if (plus !== null && plus !== undefined)
        formalVerify[r.rule.id] = { withAction: plus, withoutAction: minus ?? null };
    });
    const stepFacts: Record<string, unknown> = {
      step: index,
      action: facts.actionType,
      invoked,
      possiblyInvoked: possible,
      circuits: circuitActions,
      rules: active.map((r) => r.rule.id),
      assignment: assignmentView,
      operations: Object.fromEntries(Object.entries(work.operations).filter(([n]) => n in assignmentView)),
      answeredBy: work.answeredBy,
      operationsUsed: [...operationsUsed].sort(),
      formalVerify,
      mln: {
        delta: result.delta,
        epsilon,
        method: result.method,
        allowed: result.allowed,
        open: result.unassigned,
        ...(result.newlySatisfied.length > 0 ? { newlySatisfied: result.newlySatisfied } : {}),
      },
    };
    if (runtime.store && (memory.retrieved.length > 0 || questions.length > 0)) stepFacts.memory = memory;
    return { attempts: [], facts: stepFacts, notes: [...work.notes] };
  };
  const ref = policyRef(policy);

  state.pending = {
    index,
    fingerprint,
    values: { ...work.values },
    open: [...work.open],
    operations: { ...work.operations },
    answers: { ...work.answers },
    shown,
    historyMatches: matches,
    notes: [...work.notes],
  } satisfies PendingStep;

  const where = `Step ${index} (${facts.actionType})`;
  if (options.capture && lastProblem && active.length > 0)
    options.capture({ problem: lastProblem, rules: active, epsilon });
  if (active.length === 0) {
    work.notes.push(
      invoked.length + possible.length === 0
        ? "no action predicate of the policy is invoked by this step"
        : "the invoked actions have no step rule in scope",
    );
    return allowDecision({ engine: SHIELD_ENGINE_NAME, policy: ref, output: step, cost, trace: trace() });
  }

  // The model failed on predicates the verdict may depend on.
  const failedRelevant = failed.filter((f) => relevant.has(f) && work.open.has(f));
  if (failedRelevant.length > 0) {
    const r = robust(failedRelevant);
    if (!r.robust) {
      const message = `the model could not answer ${failedRelevant.join(", ")} for ${where.toLowerCase()}, and the verdict depends on ${failedRelevant.length === 1 ? "it" : "them"}${failure ? ` (${failure.message})` : ""}`;
      return failureDecision({
        engine: SHIELD_ENGINE_NAME,
        policy: ref,
        code: (failure?.code ?? "MODEL_UNAVAILABLE") as ErrorCode,
        message,
        mode: runtime.failMode,
        output: step,
        cost,
        trace: trace(),
      });
    }
    work.notes.push(
      `the model could not answer ${failedRelevant.join(", ")}, but the verdict is the same whatever the answers (${r.tried} completions tried)`,
    );
    if (r.verdict !== undefined && r.verdict !== result.allowed) {
      const fixed: Record<string, boolean> = {};
      for (const n of failedRelevant) fixed[n] = false;
      result = solve(fixed);
    }
  }

  // Long-term memory: keep the workflow of an allowed step whose assignment needed the model.
  if (runtime.store && result.allowed && askedNow > 0 && failed.length === 0) {
    const plan: ShieldWorkflowPlan = {
      kind: "warden.shield-workflow",
      version: 1,
      predicates: {},
      rules: active.map((r) => r.rule.id),
    };
    for (const n of relevant) {
      const entry: ShieldWorkflowPlan["predicates"][string] = {
        operation: work.operations[n] ?? "unassigned",
      };
      const p = compiled.predicates.get(n);
      if (p?.binding?.kind === "ask") entry.question = p.binding.question;
      if (keys[n] !== undefined && work.answeredBy[n] !== undefined) entry.key = keys[n];
      if (n in work.values) entry.value = work.values[n];
      if (work.answeredBy[n] === "model") entry.useful = solve({}, [n]).allowed !== result.allowed;
      plan.predicates[n] = entry;
    }
    const saved = await saveWorkflow({
      store: runtime.store,
      policy: policy.name,
      actions: circuitActions,
      query,
      plan,
      verdict: "allow",
    });
    memory.stored = saved.ids;
    if (saved.error) memory.error = `storing the workflow failed: ${saved.error}`;
  }

  if (result.allowed) {
    if (result.violated.length > 0) {
      work.notes.push(
        `tolerated within ε = ${epsilon}: ${result.violated.map((v) => v.id).join(", ")} (Δ = ${result.delta.toFixed(4)})`,
      );
    }
    return allowDecision({ engine: SHIELD_ENGINE_NAME, policy: ref, output: step, cost, trace: trace() });
  }
  const violatedRules = result.violated.map((v) => active[v.index]!);
  let violations = violationsFrom({
    result,
    rules: active,
    values: work.values,
    operations: work.operations,
    step: index,
    phase: "step",
  });
  if (violations.length === 0) {
    violations = [
      {
        ruleId: "shield.circuit",
        message: `The step lowers the policy score by ${(-result.delta).toFixed(4)} (more than ε = ${epsilon}) without a single rule to blame`,
        details: { delta: result.delta, rules: active.map((r) => r.rule.id) },
      },
    ];
  }
  return denyDecision({
    engine: SHIELD_ENGINE_NAME,
    policy: ref,
    violations,
    verdict: verdictOf({ violated: violatedRules }),
    explanation: explainDenial({ violations, where }),
    cost,
    trace: trace(),
  });
}

/**
 * Judges the rules checked at the end ("end" rules) on the complete trajectory, whose last step must be
 * pending (just decided). The reference world satisfies every obligation, so with nothing open this
 * denies iff the weight of the violated end rules exceeds ε; the last step's open predicates are
 * marginalised as for a step.
 */
export function decideEnd(options: {
  runtime: ShieldRuntime;
  state: TrajectoryState;
  capture?: (captured: CapturedProblem) => void;
}): Decision {
  const { runtime, state } = options;
  const { scoped, compiled } = state;
  const pending = state.pending;
  if (!pending) {
    throw new WardenError({ code: "INTERNAL", message: "decideEnd: the last step has not been decided" });
  }
  const ref = policyRef(compiled.policy);
  const endRules: ShieldRule[] = scoped.rules.filter((r) => r.rule.check === "end");
  const epsilon = epsilonOf({ runtime, state });
  if (endRules.length === 0) {
    return allowDecision({
      engine: SHIELD_ENGINE_NAME,
      policy: ref,
      output: null,
      explanation: "No end-of-trajectory rule applies.",
      trace: { attempts: [], facts: { phase: "end", rules: [] }, notes: [] },
    });
  }
  const atoms = new Set(endRules.flatMap((r) => r.atoms));
  const mlnRules: MlnRule[] = endRules.map((r) => ({ id: r.rule.id, weight: r.rule.weight, atoms: r.atoms }));
  const plus: MlnSide = {
    values: pending.values,
    unassigned: pending.open.filter((p) => atoms.has(p)),
    holds: ({ rule, world }) =>
      state.monitors[scoped.positionOf.get(endRules[rule]!.index)!]!.peek({ step: world }).atStart,
  };
  const ideal: MlnSide = { values: {}, unassigned: [], holds: () => true };
  const problem = prepareMln({ rules: mlnRules, plus, minus: ideal, ...runtime.sampling });
  options.capture?.({ problem, rules: endRules, epsilon });
  const result = solveMln({ problem, epsilon });
  const facts = {
    phase: "end",
    steps: pending.index + 1,
    rules: endRules.map((r) => r.rule.id),
    satisfied: Object.fromEntries(endRules.map((r, i) => [r.rule.id, result.expectations.plus[i] ?? null])),
    mln: {
      delta: result.delta,
      epsilon,
      method: result.method,
      allowed: result.allowed,
      open: result.unassigned.plus,
    },
  };
  const trace: Trace = { attempts: [], facts, notes: [] };
  if (result.allowed) {
    if (result.violated.length > 0)
      trace.notes!.push(`tolerated within ε = ${epsilon}: ${result.violated.map((v) => v.id).join(", ")}`);
    return allowDecision({
      engine: SHIELD_ENGINE_NAME,
      policy: ref,
      output: null,
      explanation: "Every end-of-trajectory obligation is met.",
      trace,
    });
  }
  const violations = violationsFrom({
    result,
    rules: endRules,
    values: pending.values,
    operations: pending.operations,
    step: pending.index,
    phase: "end",
  });
  return denyDecision({
    engine: SHIELD_ENGINE_NAME,
    policy: ref,
    violations,
    verdict: verdictOf({ violated: result.violated.map((v) => endRules[v.index]!) }),
    explanation: explainDenial({ violations, where: `The trajectory (${pending.index + 1} steps)` }),
    trace,
  });
}

/** Merges a step decision and the end decision of the same check (`final: true`). */
export function mergeDecisions(options: { step: Decision; end: Decision }): Decision {
  const { step, end } = options;
  const cost = addCost(step.cost, end.cost);
  const trace: Trace = {
    attempts: [],
    facts: { step: step.trace?.facts ?? {}, end: end.trace?.facts ?? {} },
    notes: [...(step.trace?.notes ?? []), ...(end.trace?.notes ?? [])],
  };
  if (step.failure) return { ...step, cost, trace };
  if (step.allowed && end.allowed) return { ...step, cost, trace };
  const violations = [...step.violations, ...end.violations];
  const verdict = step.verdict === "deny" || end.verdict === "deny" ? "deny" : "ask";
  return denyDecision({
    engine: step.engine,
    ...(step.policy ? { policy: step.policy } : {}),
    violations,
    verdict,
    explanation: [step.allowed ? "" : step.explanation, end.allowed ? "" : end.explanation]
      .filter(Boolean)
      .join(" "),
    cost,
    trace,
  });
}

/**
 * For each active step rule (by index) that the trajectory before this step already violates beyond
 * repair, the action predicates it governs; undefined for the others.
 */
function breachedActions(options: {
  active: readonly ShieldRule[];
  state: TrajectoryState;
  scoped: ScopedRules;
  compiled: CompiledShieldPolicy;
}): Array<string[] | undefined> {
  const { active, state, scoped, compiled } = options;
  return active.map((r) => {
    const monitor = state.monitors[scoped.positionOf.get(r.index)!]!;
    if (monitor.length === 0 || monitor.reading().verdict !== "violated") return undefined;
    return r.atoms.filter((a) => compiled.predicates.get(a)?.kind === "action");
  });
}
