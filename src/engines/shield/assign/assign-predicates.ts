/**
 * Predicate assignment: the truth value of each policy predicate at one step of a trajectory, from its
 * binding — `condition` over the step's facts, `history` (Search: some step in the window up to and
 * including this one matches), `detector` (Detect: a registered detector over the step; an optional
 * `params.when` condition gates it, so "a message to the user that mentions X" is one predicate), and
 * `ask` (Binary-Check: left unassigned here; the shield asks the model when one is configured).
 * Whatever cannot be decided — ask bindings, predicates without a binding, unknown detectors, a
 * detector answering "cannot tell", a condition over a value that has no canonical form (three-valued
 * evaluation: "unknown"), any predicate of a step whose action is code Warden cannot read — is listed
 * in `unassigned` for the shield to marginalise, never read as false.
 *
 * History is incremental: an AssignmentHistory remembers, per history predicate, the steps that
 * matched, so assigning step n after step n-1 reads only step n. It assumes the trajectory only grows;
 * if the last step it read changed, it starts over.
 */
import {
  type Condition,
  evaluateConditionTri,
  type PreparedFacts,
  prepareConditionFacts,
  type Tri,
} from "../../../core/condition.js";
import { WardenError } from "../../../core/errors.js";
import { type Predicate, PredicateSchema } from "../../../core/policy.js";
import type { Step } from "../../../core/subject.js";
import { parseWith } from "../../../core/validate.js";
import type { DetectorRegistry } from "../detectors/registry.js";
import { buildStepFacts, type StepFacts } from "./step-facts.js";

export interface Assignment {
  /** Predicate name -> truth value, for every predicate that could be assigned. */
  values: Record<string, boolean>;
  /** Predicates left open (ask bindings, no binding, unknown detector, detector could not tell). */
  unassigned: string[];
  /** Why some predicates are unassigned when it is not by design (e.g. a detector nobody registered). */
  notes: string[];
}

interface HistoryEntry {
  condition: Condition;
  /** The condition's JSON, to notice a predicate whose binding changed between calls. */
  key: string;
  /** Ascending indices of the steps whose facts satisfy the condition. */
  matches: number[];
  /** Ascending indices of the steps where the condition could not be evaluated ("unknown"). */
  unknown: number[];
}

/** Step facts prepared for condition evaluation (canonical forms computed once per step). */
const preparedFacts = new WeakMap<StepFacts, PreparedFacts>();

function prepared(facts: StepFacts): PreparedFacts {
  let pf = preparedFacts.get(facts);
  if (!pf) {
    const schemas = facts.context.toolSchemas;
    const inputSchema =
      schemas && typeof schemas === "object" && Object.hasOwn(schemas, facts.action)
        ? (schemas as Record<string, unknown>)[facts.action]
        : undefined;
    pf = prepareConditionFacts({ facts, ...(inputSchema !== undefined ? { scope: { inputSchema } } : {}) });
    preparedFacts.set(facts, pf);
  }
  return pf;
}

/**
 * A binding's condition, three-valued: "unknown" when it depends on a value that could not be
 * determined, or cannot be evaluated at all (an invalid regular expression), so the predicate is left
 * open rather than read as false. Comparisons over several values read as a deny rule's would ("any").
 */
export function conditionValue(options: { condition: Condition; facts: StepFacts }): {
  value: Tri;
  why: string[];
} {
  const { condition, facts } = options;
  // A step whose action is code Warden cannot read may do anything: nothing about it is known.
  if (facts.unreadable !== undefined) return { value: "unknown", why: [facts.unreadable] };
  try {
    const r = evaluateConditionTri({ condition, facts: prepared(facts), strictWhen: true });
    return { value: r.value, why: r.unknown };
  } catch (error) {
    return { value: "unknown", why: [error instanceof Error ? error.message : String(error)] };
  }
}

/** Incremental state for history bindings; create one per trajectory being checked. */
export interface AssignmentHistory {
  /** Number of steps already read. */
  readonly consumed: number;
}

interface HistoryState extends AssignmentHistory {
  consumed: number;
  fingerprint: string;
  entries: Map<string, HistoryEntry>;
}

export function createAssignmentHistory(): AssignmentHistory {
  const state: HistoryState = { consumed: 0, fingerprint: "", entries: new Map() };
  return state;
}

function fingerprint(step: Step | undefined): string {
  if (!step) return "";
  return JSON.stringify([step.action, step.url, step.element, step.value, step.args]);
}

const validated = new WeakSet<readonly Predicate[]>();

function validatePredicates(predicates: readonly Predicate[]): void {
  if (validated.has(predicates)) return;
  parseWith({
    schema: PredicateSchema.array(),
    value: predicates,
    what: "predicates",
    path: "predicates",
    code: "INVALID_POLICY",
  });
  validated.add(predicates);
}

function lastAtOrBefore(sorted: number[], index: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= index) {
      found = sorted[mid]!;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

interface Context {
  trajectory: readonly Step[];
  input: string | undefined;
  context: Record<string, unknown> | undefined;
  factsCache: Map<number, StepFacts>;
}

function factsAt(ctx: Context, index: number): StepFacts {
  let facts = ctx.factsCache.get(index);
  if (!facts) {
    facts = buildStepFacts({ step: ctx.trajectory[index]!, index, input: ctx.input, context: ctx.context });
    ctx.factsCache.set(index, facts);
  }
  return facts;
}

/** Brings the history up to and including `index`, reading each step once. */
function advanceHistory(
  state: HistoryState,
  predicates: readonly Predicate[],
  ctx: Context,
  index: number,
): void {
  if (state.consumed > 0 && fingerprint(ctx.trajectory[state.consumed - 1]) !== state.fingerprint) {
    state.consumed = 0;
    state.entries.clear();
  }
  // A history predicate seen for the first time (or with a new condition) catches up on read steps.
  for (const p of predicates) {
    if (p.binding?.kind !== "history") continue;
    const existing = state.entries.get(p.name);
    const key = existing?.condition === p.binding.when ? existing.key : JSON.stringify(p.binding.when);
    if (existing && existing.key === key) continue;
    const entry: HistoryEntry = { condition: p.binding.when, key, matches: [], unknown: [] };
    for (let i = 0; i < Math.min(state.consumed, ctx.trajectory.length); i += 1) {
      readHistoryStep(entry, factsAt(ctx, i), i);
    }
    state.entries.set(p.name, entry);
  }
  for (let i = state.consumed; i <= index; i += 1) {
    const facts = factsAt(ctx, i);
    for (const entry of state.entries.values()) readHistoryStep(entry, facts, i);
  }
  if (index + 1 > state.consumed) {
    state.consumed = index + 1;
    state.fingerprint = fingerprint(ctx.trajectory[index]);
  }
}

function readHistoryStep(entry: HistoryEntry, facts: StepFacts, index: number): void {
  const { value } = conditionValue({ condition: entry.condition, facts });
  if (value === true) entry.matches.push(index);
  else if (value === "unknown") entry.unknown.push(index);
}

function assignOne(
  predicate: Predicate,
  facts: StepFacts,
  index: number,
  state: HistoryState,
  detectors: DetectorRegistry,
  out: Assignment,
): void {
  const binding = predicate.binding;
  if (!binding) {
    out.unassigned.push(predicate.name);
    return;
  }
  switch (binding.kind) {
    case "condition": {
      const { value, why } = conditionValue({ condition: binding.when, facts });
      if (value === "unknown") {
        out.unassigned.push(predicate.name);
        out.notes.push(`${predicate.name}: undetermined (${why.join("; ")})`);
      } else out.values[predicate.name] = value;
      return;
    }
    case "history": {
      const entry = state.entries.get(predicate.name)!;
      const from = binding.within === undefined ? 0 : index - binding.within + 1;
      const last = lastAtOrBefore(entry.matches, index);
      if (last >= 0 && last >= from) out.values[predicate.name] = true;
      else {
        // No step in the window matched; one whose condition was unknown might have.
        const lastUnknown = lastAtOrBefore(entry.unknown, index);
        if (lastUnknown >= 0 && lastUnknown >= from) {
          out.unassigned.push(predicate.name);
          out.notes.push(`${predicate.name}: undetermined at step ${lastUnknown}`);
        } else out.values[predicate.name] = false;
      }
      return;
    }
    case "detector": {
      const detector = detectors.get({ name: binding.detector });
      if (!detector) {
        out.unassigned.push(predicate.name);
        out.notes.push(`${predicate.name}: no detector named '${binding.detector}' is registered`);
        return;
      }
      if (facts.unreadable !== undefined) {
        out.unassigned.push(predicate.name);
        out.notes.push(`${predicate.name}: undetermined (${facts.unreadable})`);
        return;
      }
      const params = binding.params ?? {};
      const gate = params.when as Condition | undefined;
      if (gate !== undefined) {
        const { value, why } = conditionValue({ condition: gate, facts });
        if (value === "unknown") {
          out.unassigned.push(predicate.name);
          out.notes.push(`${predicate.name}: undetermined (${why.join("; ")})`);
          return;
        }
        if (!value) {
          out.values[predicate.name] = false;
          return;
        }
      }
      const value = detector.detect({ facts, params, field: binding.field });
      if (value === undefined) out.unassigned.push(predicate.name);
      else out.values[predicate.name] = value;
      return;
    }
    case "ask":
      out.unassigned.push(predicate.name);
      return;
  }
}

/**
 * Assigns every predicate at step `index` of `trajectory`. Pass the same `history` for successive
 * indices of one trajectory to make history bindings incremental.
 */
export function assignPredicates(options: {
  predicates: readonly Predicate[];
  trajectory: readonly Step[];
  index: number;
  detectors: DetectorRegistry;
  history?: AssignmentHistory;
  /** The task text (facts.input). */
  input?: string;
  /** Structured facts the caller knows (facts.context). */
  context?: Record<string, unknown>;
}): Assignment {
  const { predicates, trajectory, index, detectors } = options;
  if (!Array.isArray(trajectory)) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "trajectory must be an array of steps",
      details: { field: "trajectory" },
    });
  }
  if (!Number.isInteger(index) || index < 0 || index >= trajectory.length) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `index must be an integer in 0..${trajectory.length - 1}, got ${index}`,
      details: { field: "index" },
    });
  }
  validatePredicates(predicates);
  const state = (options.history ?? createAssignmentHistory()) as HistoryState;
  const ctx: Context = { trajectory, input: options.input, context: options.context, factsCache: new Map() };
  advanceHistory(state, predicates, ctx, index);
  const facts = factsAt(ctx, index);
  const out: Assignment = { values: {}, unassigned: [], notes: [] };
  for (const predicate of predicates) assignOne(predicate, facts, index, state, detectors, out);
  return out;
}

export interface PredicateAssigner {
  /** Appends a step and assigns every predicate at it. */
  push(options: { step: Step }): Assignment;
  /** The steps pushed so far. */
  readonly steps: readonly Step[];
}

/** A step-by-step assigner: `push` each step as the agent takes it; earlier steps are never re-read. */
export function createPredicateAssigner(options: {
  predicates: readonly Predicate[];
  detectors: DetectorRegistry;
  input?: string;
  context?: Record<string, unknown>;
}): PredicateAssigner {
  validatePredicates(options.predicates);
  const steps: Step[] = [];
  const history = createAssignmentHistory();
  return {
    steps,
    push({ step }) {
      steps.push(step);
      return assignPredicates({
        predicates: options.predicates,
        trajectory: steps,
        index: steps.length - 1,
        detectors: options.detectors,
        history,
        input: options.input,
        context: options.context,
      });
    },
  };
}
