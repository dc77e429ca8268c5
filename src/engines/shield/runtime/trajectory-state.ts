/**
 * Short-term memory of the shield: everything it keeps about one trajectory so that deciding step n
 * after steps 0..n−1 reads step n only — one LTLf monitor per rule in scope (fed the committed truth
 * values of every step), the incremental history of Search bindings, and the last decided step, kept
 * "pending" (not yet fed to the monitors) so that it can be re-checked or replaced by another proposal
 * for the same position (an agent whose step was denied proposes a different one).
 *
 * Steps are identified by a fingerprint of what the agent did (action, url, element, value, args),
 * the same one the assignment history uses. A state that no longer matches the trajectory it is given
 * (another trajectory under the same key, an edited prefix) is discarded and rebuilt from the steps.
 * Under an explicit trajectory identity the first and last committed steps are compared (O(1): a
 * named trajectory only grows); without one, every committed step is (fingerprints are cached per
 * step object, so this is a cheap pass).
 * Committed values are the final truth values of the step; a predicate that stayed open is committed
 * as false (monitors follow one trace; marginalising over the whole past would be exponential).
 */
import { createHash } from "node:crypto";
import { evaluateCondition } from "../../../core/condition.js";
import type { Predicate } from "../../../core/policy.js";
import type { Step } from "../../../core/subject.js";
import {
  type AssignmentHistory,
  assignPredicates,
  createAssignmentHistory,
} from "../assign/assign-predicates.js";
import { buildStepFacts, type StepFacts } from "../assign/step-facts.js";
import type { DetectorRegistry } from "../detectors/registry.js";
import { createMonitor, type LtlMonitor } from "../ltl/index.js";
import type { CompiledShieldPolicy, ScopedRules } from "./compiled-shield-policy.js";
import type { ShieldOperation } from "./workflow-memory.js";

export interface PendingStep {
  index: number;
  fingerprint: string;
  /** Truth values of the step (bindings, model answers); open predicates are absent. */
  values: Record<string, boolean>;
  /** Predicates still open after every operation. */
  open: string[];
  operations: Record<string, ShieldOperation>;
  /**
   * Model answers (and memory reuses) of this step, kept so a re-check does not ask again — only a
   * re-check whose step shows the model the same thing (`shown`).
   */
  answers: Record<string, boolean>;
  /** Digest of what the step shows a Binary-Check prompt beyond its fingerprint (see shownDigest). */
  shown?: string;
  /** History-bound action predicates whose condition the step itself satisfies. */
  historyMatches: string[];
  notes: string[];
}

interface HistoryAction {
  predicate: Predicate & { binding: { kind: "history" } };
  /** Last committed step that satisfied the condition, −1 if none. */
  lastMatch: number;
}

export interface TrajectoryState {
  key: string;
  compiled: CompiledShieldPolicy;
  scoped: ScopedRules;
  input: string;
  context: Record<string, unknown> | undefined;
  /** One monitor per rule of `scoped.rules`, same order. */
  monitors: LtlMonitor[];
  history: AssignmentHistory;
  historyActions: HistoryAction[];
  committed: number;
  firstFingerprint: string;
  lastFingerprint: string;
  /**
   * Fingerprints of every committed step, kept when the trajectory has no explicit identity (its key is
   * a hash of the task and first step, which two trajectories can share): then every committed step is
   * compared, not only the first and the last.
   */
  fingerprints: string[] | undefined;
  pending: PendingStep | undefined;
  /** Serialises checks of one trajectory (model calls make them asynchronous). */
  lock: Promise<unknown>;
}

const fingerprintCache = new WeakMap<object, string>();

export function stepFingerprint(options: { step: Step | undefined }): string {
  const s = options.step;
  if (!s) return "";
  // Cached per step object: a growing trajectory passes the same objects again and again.
  const known = fingerprintCache.get(s);
  if (known !== undefined) return known;
  const f = JSON.stringify([s.action, s.url, s.element, s.value, s.args]);
  fingerprintCache.set(s, f);
  return f;
}

/**
 * What a step shows the model beyond its fingerprint: its observation and the agent's reasoning. The
 * fingerprint leaves them out on purpose (the MCP proxy fills in a step's observation after it was
 * decided, and the trajectory must still fit), but the pending step's model answers are reused only
 * when they are the same, since the question the model answered showed them.
 */
export function shownDigest(options: { step: Step | undefined }): string {
  const s = options.step;
  return createHash("sha256")
    .update(JSON.stringify([s?.observation ?? null, s?.thought ?? null]))
    .digest("base64");
}

export function createTrajectoryState(options: {
  key: string;
  compiled: CompiledShieldPolicy;
  scoped: ScopedRules;
  input: string;
  context: Record<string, unknown> | undefined;
  /** Compare every committed step on each check (for trajectories without an explicit identity). */
  verifyAll?: boolean;
}): TrajectoryState {
  const { scoped, verifyAll, ...rest } = options;
  return {
    ...rest,
    scoped,
    fingerprints: verifyAll ? [] : undefined,
    monitors: scoped.rules.map((r) => createMonitor({ ast: r.ast })),
    history: createAssignmentHistory(),
    historyActions: scoped.predicates
      .filter((p) => p.kind === "action" && p.binding?.kind === "history")
      .map((p) => ({ predicate: p as HistoryAction["predicate"], lastMatch: -1 })),
    committed: 0,
    firstFingerprint: "",
    lastFingerprint: "",
    pending: undefined,
    lock: Promise.resolve(),
  };
}

/** Whether the state's steps are a prefix of `steps` with the decided step at `index`. */
export function stateFits(options: {
  state: TrajectoryState;
  steps: readonly Step[];
  index: number;
}): boolean {
  const { state, steps, index } = options;
  if (state.committed > index) return false;
  if (state.committed > 0) {
    if (stepFingerprint({ step: steps[0] }) !== state.firstFingerprint) return false;
    if (stepFingerprint({ step: steps[state.committed - 1] }) !== state.lastFingerprint) return false;
    if (state.fingerprints) {
      for (let i = 1; i < state.committed - 1; i += 1)
        if (stepFingerprint({ step: steps[i] }) !== state.fingerprints[i]) return false;
    }
  }
  const p = state.pending;
  if (p && p.index < index && stepFingerprint({ step: steps[p.index] }) !== p.fingerprint) return false;
  return true;
}

/** Feeds one step's final values to every monitor and moves the state past it. */
export function commitStep(options: {
  state: TrajectoryState;
  step: Step;
  index: number;
  values: Record<string, boolean>;
  historyMatches: readonly string[];
}): void {
  const { state, step, index, values } = options;
  for (const m of state.monitors) m.push({ step: values });
  for (const h of state.historyActions)
    if (options.historyMatches.includes(h.predicate.name)) h.lastMatch = index;
  const fingerprint = stepFingerprint({ step });
  if (index === 0) state.firstFingerprint = fingerprint;
  state.lastFingerprint = fingerprint;
  state.fingerprints?.push(fingerprint);
  state.committed = index + 1;
}

/** History-bound action predicates whose condition this step satisfies (it performs the action). */
export function historyMatches(options: { state: TrajectoryState; facts: StepFacts }): string[] {
  return options.state.historyActions
    .filter((h) => evaluateCondition(h.predicate.binding.when, options.facts))
    .map((h) => h.predicate.name);
}

/** The value of a history-bound action predicate at `index` had the step at `index` not happened. */
export function historyValueWithout(options: {
  state: TrajectoryState;
  name: string;
  index: number;
}): boolean {
  const h = options.state.historyActions.find((x) => x.predicate.name === options.name);
  if (!h || h.lastMatch < 0) return false;
  const within = h.predicate.binding.within;
  return within === undefined ? true : h.lastMatch >= options.index - within + 1;
}

/**
 * Brings the state up to (not including) `index`: commits the pending step if it precedes `index`,
 * then assigns and commits every step in between without deciding it (no model: open predicates
 * are committed as false). Call only when `stateFits`.
 */
export function advanceTo(options: {
  state: TrajectoryState;
  steps: readonly Step[];
  index: number;
  detectors: DetectorRegistry;
}): void {
  const { state, steps, index, detectors } = options;
  const p = state.pending;
  if (p && p.index < index) {
    commitStep({
      state,
      step: steps[p.index]!,
      index: p.index,
      values: p.values,
      historyMatches: p.historyMatches,
    });
    state.pending = undefined;
  } else if (p && p.index === index && stepFingerprint({ step: steps[index] }) !== p.fingerprint) {
    state.pending = undefined;
  }
  for (let i = state.committed; i < index; i += 1) {
    const a = assignPredicates({
      predicates: state.scoped.predicates,
      trajectory: steps,
      index: i,
      detectors,
      history: state.history,
      input: state.input,
      ...(state.context ? { context: state.context } : {}),
    });
    const facts =
      state.historyActions.length > 0
        ? buildStepFacts({ step: steps[i]!, index: i, input: state.input, context: state.context })
        : undefined;
    commitStep({
      state,
      step: steps[i]!,
      index: i,
      values: a.values,
      historyMatches: facts ? historyMatches({ state, facts }) : [],
    });
  }
}
