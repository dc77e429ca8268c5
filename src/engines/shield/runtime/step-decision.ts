/**
 * Deciding one step (and, at the end, the whole trajectory) — the shielding pipeline of ShieldAgent
 * §3.3 over one trajectory state, as five stages that each take plain data and return plain data:
 *  1. assign (step-decision-assign.ts): the predicates the step and trajectory determine — Search
 *     (history bindings), Binary-Check conditions, Detect — and the pending step's model answers;
 *  2. select circuits (step-decision-circuits.ts): the invoked (and possibly invoked) action
 *     predicates and the step rules of their circuits;
 *  3. resolve open predicates (step-decision-resolve.ts): the `ask` questions those circuits need —
 *     plus those of rules that look back in time or are judged at the end, whose values every step
 *     must record — answered by long-term memory or the model in one structured call, else left open;
 *     or, with `planning: "plan"`, assigned by a shielding plan the model writes with similar
 *     successful workflows as exemplars (step-decision-plan.ts);
 *  4. verify (step-decision-verify.ts): each rule's LTLf monitor reads the step in μ+ (as taken) and
 *     μ− (no action), and the Markov-logic decision compares the two (open predicates marginalised);
 *  5. explain (step-decision-explain.ts): the Decision, with every violated rule's clause and
 *     countermeasure.
 * `decideStep` only sequences them, writes the pending step into the trajectory state (the one write
 * besides the assignment history's cache) and, for an allowed step whose values needed the model,
 * stores its workflow. When the model fails, the predicates it should have answered stay open; if the
 * verdict depends on them (it differs between their completions) the step is undecidable and the
 * Decision fails closed (or open, if so configured) saying why.
 */
import { addCost, allowDecision, type Decision, denyDecision, type Trace } from "../../../core/decision.js";
import { WardenError } from "../../../core/errors.js";
import { policyRef } from "../../../core/policy.js";
import type { Step } from "../../../core/subject.js";
import type { ModelClient } from "../../../llm/model.js";
import type { Sandbox, SandboxLimits } from "../../../sandbox/sandbox.js";
import type { Store } from "../../../store/store.js";
import type { DetectorRegistry } from "../detectors/registry.js";
import { type MlnProblem, type MlnRule, type MlnSide, prepareMln, solveMln } from "../mln/index.js";
import type { ShieldRule } from "./compiled-shield-policy.js";
import { SHIELD_ENGINE_NAME } from "./shield-engine-name.js";
import { explainDenial, verdictOf, violationsFrom } from "./shield-violations.js";
import { assignStep, reusablePendingAnswers, type StepAssignment } from "./step-decision-assign.js";
import { type CircuitSelection, selectCircuits } from "./step-decision-circuits.js";
import { explainStep, type StepExplanation } from "./step-decision-explain.js";
import { planOpenPredicates } from "./step-decision-plan.js";
import {
  type AskContext,
  type Resolution,
  rememberWorkflow,
  resolveOpenPredicates,
  resolveSkipped,
  workflowPlan,
} from "./step-decision-resolve.js";
import {
  prepareVerification,
  type ShieldSampling,
  type StepVerdict,
  type StepVerification,
  settleUnanswered,
  usefulAnswers,
  verdictIsRobust,
  verifyStep,
} from "./step-decision-verify.js";
import { type PendingStep, shownDigest, stepFingerprint, type TrajectoryState } from "./trajectory-state.js";
import { stepQuery } from "./workflow-memory.js";

export { SHIELD_ENGINE_NAME };

export interface ShieldRuntime {
  model: ModelClient | undefined;
  store: Store | undefined;
  detectors: DetectorRegistry;
  /** The engine's ε; the policy's `rules.epsilon` applies when absent; default 0. */
  epsilon: number | undefined;
  failMode: "closed" | "open";
  sampling: ShieldSampling;
  /** Workflows retrieved per step (default 3). */
  memoryK: number;
  /**
   * How open predicates are assigned with a model: "binary-check" (default: each `ask` binding's
   * question, in one call) or "plan" (a shielding plan the model writes, step-decision-plan.ts).
   */
  planning?: "binary-check" | "plan";
  /** Where a plan's Formal-Verify code runs; without one such a plan step fails (closed). */
  sandbox?: Sandbox;
  sandboxLimits?: Partial<SandboxLimits>;
}

export function epsilonOf(options: { runtime: ShieldRuntime; state: TrajectoryState }): number {
  return options.runtime.epsilon ?? options.state.compiled.policy.rules?.epsilon ?? 0;
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
  const epsilon = epsilonOf({ runtime, state });

  const assigned = assignStep({
    state,
    steps,
    index,
    detectors: runtime.detectors,
    reused: reusablePendingAnswers({ pending: state.pending, index, fingerprint, shown }),
  });
  const { facts } = assigned;
  const selection = selectCircuits({
    compiled,
    scoped,
    values: assigned,
    facts,
    historyMatches: assigned.historyMatches,
  });
  const ask: AskContext = { model: runtime.model, input: state.input, steps, index, signal: options.signal };
  const query = stepQuery({ facts });
  const resolution =
    runtime.planning === "plan" && runtime.model
      ? await planOpenPredicates({
          site: {
            model: runtime.model,
            sandbox: runtime.sandbox,
            ...(runtime.sandboxLimits ? { sandboxLimits: runtime.sandboxLimits } : {}),
            detectors: runtime.detectors,
            input: state.input,
            context: state.context,
            steps,
            index,
            ...(options.signal ? { signal: options.signal } : {}),
          },
          store: runtime.store,
          memoryK: runtime.memoryK,
          policy: policy.name,
          predicates: scoped.predicates,
          byName: compiled.predicates,
          rules: scoped.rules,
          selection,
          values: assigned,
          query,
        })
      : await resolveOpenPredicates({
          ask,
          store: runtime.store,
          memoryK: runtime.memoryK,
          policy,
          predicates: scoped.predicates,
          rules: scoped.rules,
          selection,
          values: assigned,
          query,
        });
  // The plan's choice of operation replaces the binding's for the predicates it assigned.
  const operations = resolution.planned
    ? { ...assigned.operations, ...resolution.planned.operations }
    : assigned.operations;
  const verification = prepareVerification({ state, selection, index, sampling: runtime.sampling, epsilon });
  const { resolved, verdict } = await confirmSkipped({
    ask,
    verification,
    resolved: resolution,
    verdict: verifyStep({ verification, values: resolution.values }),
  });
  const { values } = resolved;
  const notes = [...assigned.notes, ...resolved.notes];

  state.pending = {
    index,
    fingerprint,
    values: { ...values.values },
    open: [...values.open],
    operations: { ...operations },
    answers: { ...values.answers },
    shown,
    historyMatches: assigned.historyMatches,
    notes: [...notes],
  } satisfies PendingStep;
  if (options.capture && selection.rules.length > 0)
    options.capture({ problem: verdict.problem, rules: selection.rules, epsilon });

  // A step no rule applies to is allowed as it is: nothing to settle, nothing worth remembering.
  const outcome =
    selection.rules.length === 0
      ? { result: verdict.result, notes, memory: resolved.memory, undecidable: undefined }
      : await settleStep({
          runtime,
          state,
          verification,
          selection,
          resolved,
          verdict,
          notes,
          query,
          operations,
        });
  return explainStep({
    policy: policyRef(policy),
    step,
    index,
    action: facts.actionType,
    selection,
    values,
    operations,
    notes: outcome.notes,
    cost: { ...resolved.cost },
    result: outcome.result,
    epsilon,
    memory: outcome.memory,
    undecidable: outcome.undecidable,
    ...(resolved.planned ? { plan: resolved.planned } : {}),
  });
}

/**
 * The questions memory held back as useless are asked after all when the verdict depends on them
 * (it differs between their completions, or from the marginalised one); the step is then re-verified.
 */
async function confirmSkipped(options: {
  ask: AskContext;
  verification: StepVerification;
  resolved: Resolution;
  verdict: StepVerdict;
}): Promise<{ resolved: Resolution; verdict: StepVerdict }> {
  const { ask, verification, resolved, verdict } = options;
  if (resolved.skipped.length === 0) return { resolved, verdict };
  const names = resolved.skipped.map((q) => q.predicate);
  const r = verdictIsRobust({ verification, values: resolved.values, names });
  const needed = !r.robust || (r.verdict !== undefined && r.verdict !== verdict.result.allowed);
  const after = await resolveSkipped({ ask, resolution: resolved, needed, relevant: verification.relevant });
  return { resolved: after, verdict: needed ? verifyStep({ verification, values: after.values }) : verdict };
}

/**
 * The final result of a step some rules apply to: undecidable when it depends on answers the model
 * failed to give; otherwise settled, and — for an allowed step whose values needed the model — its
 * workflow stored in long-term memory.
 */
async function settleStep(options: {
  runtime: ShieldRuntime;
  state: TrajectoryState;
  verification: StepVerification;
  selection: CircuitSelection;
  resolved: Resolution;
  verdict: StepVerdict;
  notes: readonly string[];
  query: string;
  operations: StepAssignment["operations"];
}): Promise<Pick<StepExplanation, "result" | "notes" | "memory" | "undecidable">> {
  const { runtime, verification, selection, resolved, verdict, notes } = options;
  const { values } = resolved;
  const settled = settleUnanswered({ verification, values, failed: resolved.failed, verdict });
  if (!settled.decidable) {
    const { failure } = resolved;
    return {
      result: verdict.result,
      notes,
      memory: resolved.memory,
      undecidable: { unanswered: settled.unanswered, failure, failMode: runtime.failMode },
    };
  }
  const result = settled.verdict.result;
  const settledNotes = settled.note ? [...notes, settled.note] : notes;
  const { store } = runtime;
  const memory = resolved.memory;
  if (!store || !memory || !result.allowed || resolved.asked === 0 || resolved.failed.length > 0)
    return { result, notes: settledNotes, memory, undecidable: undefined };
  const plan = workflowPlan({
    rules: selection.rules,
    relevant: selection.relevant,
    operations: options.operations,
    predicates: options.state.compiled.predicates,
    resolution: resolved,
    useful: usefulAnswers({ verification, values, allowed: result.allowed }),
  });
  const policy = options.state.compiled.policy.name;
  const actions = selection.circuitActions;
  return {
    result,
    notes: settledNotes,
    memory: await rememberWorkflow({ store, policy, actions, query: options.query, plan, memory }),
    undecidable: undefined,
  };
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
