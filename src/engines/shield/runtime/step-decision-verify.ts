/**
 * Stage 4 of deciding a step (step-decision.ts): Formal Verify and the Markov-logic decision. Each
 * selected rule's LTLf monitor reads the step in μ+ (as taken) and in μ− (no action: every invoked or
 * possibly invoked action predicate false, history-bound ones as they were before the step); the
 * decision compares the two worlds with the open predicates marginalised (src/engines/shield/mln).
 *
 * `prepareVerification` fixes everything that does not depend on the values (the rules, the μ−
 * overrides, how a rule is read); `verifyStep` is then a pure function of the values, so the pipeline
 * can ask "what if" — a predicate fixed or left open — without side effects: `verdictIsRobust` (is the
 * verdict the same for every completion of a few predicates?), `settleUnanswered` (may the step be
 * decided without the answers the model failed to give?) and `usefulAnswers` (did an answer matter?).
 */
import {
  type MlnProblem,
  type MlnResult,
  type MlnRule,
  type MlnSide,
  prepareMln,
  solveMln,
} from "../mln/index.js";
import type { CompiledShieldPolicy, ScopedRules, ShieldRule } from "./compiled-shield-policy.js";
import type { StepValues } from "./step-decision-assign.js";
import type { CircuitSelection } from "./step-decision-circuits.js";
import { historyValueWithout, type TrajectoryState } from "./trajectory-state.js";

/** Most completions tried when checking whether a verdict depends on a few predicates. */
export const ROBUST_LIMIT = 8;

export interface ShieldSampling {
  exactLimit?: number;
  samples?: number;
  seed?: number;
}

export interface StepVerification {
  /** The selected step rules, in order (the MLN's rules). */
  rules: readonly ShieldRule[];
  mlnRules: MlnRule[];
  /** The predicates the rules read. */
  relevant: ReadonlySet<string>;
  /** Whether rule `rule` holds in a complete world (the monitors read the step, no state changes). */
  holds: MlnSide["holds"];
  /** The values of the invoked and possibly invoked actions in μ− (the step not taken). */
  minusOverrides: Readonly<Record<string, boolean>>;
  sampling: ShieldSampling;
  epsilon: number;
}

export interface StepVerdict {
  problem: MlnProblem;
  result: MlnResult;
}

/**
 * For each selected rule (by index) that the trajectory before this step already violates beyond
 * repair, the action predicates it governs; undefined for the others.
 */
export function breachedActions(options: {
  rules: readonly ShieldRule[];
  state: TrajectoryState;
  scoped: ScopedRules;
  compiled: CompiledShieldPolicy;
}): Array<string[] | undefined> {
  const { state, scoped, compiled } = options;
  return options.rules.map((r) => {
    const monitor = state.monitors[scoped.positionOf.get(r.index)!]!;
    if (monitor.length === 0 || monitor.reading().verdict !== "violated") return undefined;
    return r.atoms.filter((a) => compiled.predicates.get(a)?.kind === "action");
  });
}

export function prepareVerification(options: {
  state: TrajectoryState;
  selection: Pick<CircuitSelection, "rules" | "relevant" | "invoked" | "possible">;
  index: number;
  sampling: ShieldSampling;
  epsilon: number;
}): StepVerification {
  const { state, selection, index } = options;
  const { scoped, compiled } = state;
  const rules = selection.rules;
  const breach = breachedActions({ rules, state, scoped, compiled });
  const holds: MlnSide["holds"] = ({ rule, world }) => {
    const actions = breach[rule];
    // A safety rule the earlier steps already broke can never hold again, so μ+ and μ− would both
    // fail it and the step would go through as "no worse". Instead, every further action the rule
    // governs counts as breaking it again: an agent (or a caller reporting its steps) that got one
    // violation through gets no free pass for the next.
    if (actions) return !actions.some((a) => world[a] === true);
    return state.monitors[scoped.positionOf.get(rules[rule]!.index)!]!.peek({ step: world }).atStart;
  };
  const minusOverrides: Record<string, boolean> = {};
  for (const a of [...selection.invoked, ...selection.possible]) {
    const p = compiled.predicates.get(a);
    minusOverrides[a] =
      p?.binding?.kind === "history" ? historyValueWithout({ state, name: a, index }) : false;
  }
  return {
    rules,
    mlnRules: rules.map((r) => ({ id: r.rule.id, weight: r.rule.weight, atoms: r.atoms })),
    relevant: selection.relevant,
    holds,
    minusOverrides,
    sampling: options.sampling,
    epsilon: options.epsilon,
  };
}

/** The Markov-logic decision on `values`, with `fixed` predicates set and `alsoOpen` ones left open. */
export function verifyStep(options: {
  verification: StepVerification;
  values: Pick<StepValues, "values" | "open">;
  fixed?: Readonly<Record<string, boolean>>;
  alsoOpen?: readonly string[];
}): StepVerdict {
  const { verification: v } = options;
  const fixed = options.fixed ?? {};
  const alsoOpen = options.alsoOpen ?? [];
  const values: Record<string, boolean> = { ...options.values.values, ...fixed };
  for (const a of alsoOpen) delete values[a];
  const openNow = [...options.values.open, ...alsoOpen].filter((p) => v.relevant.has(p) && !(p in fixed));
  const plus: MlnSide = { values, unassigned: openNow, holds: v.holds };
  const minus: MlnSide = {
    values: { ...values, ...v.minusOverrides },
    unassigned: openNow.filter((p) => !(p in v.minusOverrides)),
    holds: v.holds,
  };
  const problem = prepareMln({ rules: v.mlnRules, plus, minus, ...v.sampling });
  return { problem, result: solveMln({ problem, epsilon: v.epsilon }) };
}

export interface Robustness {
  robust: boolean;
  /** The verdict every completion reached (absent when none was tried or they differ). */
  verdict?: boolean;
  /** Completions tried. */
  tried: number;
}

/** Whether the verdict is the same for every completion of `names` (the relevant ones). */
export function verdictIsRobust(options: {
  verification: StepVerification;
  values: Pick<StepValues, "values" | "open">;
  names: readonly string[];
}): Robustness {
  const list = options.names.filter((n) => options.verification.relevant.has(n));
  if (list.length === 0) return { robust: true, tried: 0 };
  if (list.length > ROBUST_LIMIT) return { robust: false, tried: 0 };
  let verdict: boolean | undefined;
  for (let mask = 0; mask < 2 ** list.length; mask += 1) {
    const fixed: Record<string, boolean> = {};
    list.forEach((n, b) => {
      fixed[n] = ((mask >>> b) & 1) === 1;
    });
    const allowed = verifyStep({ ...options, fixed }).result.allowed;
    if (verdict === undefined) verdict = allowed;
    else if (verdict !== allowed) return { robust: false, tried: mask + 1 };
  }
  return { robust: true, verdict, tried: 2 ** list.length };
}

export type Settled =
  | { decidable: true; verdict: StepVerdict; note?: string }
  | { decidable: false; unanswered: string[] };

/**
 * Whether the step can be decided although the model failed on `failed`: the relevant ones still open
 * make it undecidable when the verdict depends on them; when it does not, the verdict is the one every
 * completion reaches.
 */
export function settleUnanswered(options: {
  verification: StepVerification;
  values: Pick<StepValues, "values" | "open">;
  failed: readonly string[];
  verdict: StepVerdict;
}): Settled {
  const { verification, values, verdict } = options;
  if (options.failed.length === 0) return { decidable: true, verdict };
  const open = new Set(values.open);
  const unanswered = options.failed.filter((f) => verification.relevant.has(f) && open.has(f));
  if (unanswered.length === 0) return { decidable: true, verdict };
  const r = verdictIsRobust({ verification, values, names: unanswered });
  if (!r.robust) return { decidable: false, unanswered };
  const note = `the model could not answer ${unanswered.join(", ")}, but the verdict is the same whatever the answers (${r.tried} completions tried)`;
  if (r.verdict === undefined || r.verdict === verdict.result.allowed)
    return { decidable: true, verdict, note };
  const fixed: Record<string, boolean> = {};
  for (const n of unanswered) fixed[n] = false;
  return { decidable: true, verdict: verifyStep({ verification, values, fixed }), note };
}

/** For each relevant predicate the model answered now: whether leaving it open changes the verdict. */
export function usefulAnswers(options: {
  verification: StepVerification;
  values: StepValues;
  allowed: boolean;
}): Record<string, boolean> {
  const { verification, values } = options;
  const useful: Record<string, boolean> = {};
  for (const n of verification.relevant) {
    if (values.answeredBy[n] !== "model") continue;
    useful[n] = verifyStep({ verification, values, alsoOpen: [n] }).result.allowed !== options.allowed;
  }
  return useful;
}
