/**
 * Rule-weight learning (ShieldAgent §3.2.4, design.md "Training"): minimise
 *     Σ_i max(0, m − y_i (Δ_i(w) + ε))     subject to w >= 0,
 * over labelled steps (y = +1 safe, −1 unsafe), Δ_i the Markov-logic score difference of the step's
 * circuit (μ+ against μ−; for an "end" example, the complete trajectory against the world meeting every
 * obligation). Full-batch projected subgradient descent: the gradient of Δ_i with respect to w_r is
 * the rule's probability of holding with the action minus without it (exactly 1[μ+ ⊨ r] − 1[μ− ⊨ r]
 * when nothing is open), each rule's step is divided by the number of examples whose circuits hold that
 * rule, and negative weights are clipped to 0 — deterministic for a given seed (which only seeds the
 * sampling of large open sets).
 *
 * Circuits: the objective is a sum over examples, each of which involves the rules of the circuits
 * its step fetched. The policy keeps ONE weight per rule, so a rule shared by several circuits gets
 * one weight trained on all their examples; when circuits share no rule this is exactly a separate
 * minimisation per circuit, each at its own pace: dividing by the rule's own examples (not by all of
 * them) keeps a task's rule learnable in a policy of thousands of rules, where a share of the whole set
 * would move it by a rounding error. `history` reports the loss per epoch and the final loss per circuit.
 *
 * Examples are evaluated once (every rule on every world, through the same code path as the engine,
 * without a model: `ask` predicates stay open) and re-scored for each epoch's weights. Examples whose
 * Δ depends on no weight (no rule of their circuits is affected by the action) are counted but cannot
 * be learned from.
 */
import { z } from "zod";
import { WardenError } from "../../../core/errors.js";
import type { Policy, TemporalRule } from "../../../core/policy.js";
import { PolicySchema } from "../../../core/policy.js";
import { StepSchema } from "../../../core/subject.js";
import { parseWith } from "../../../core/validate.js";
import { createDetectorRegistry, type DetectorRegistry } from "../detectors/registry.js";
import { type MlnProblem, solveMln } from "../mln/index.js";
import { compileShieldPolicy } from "../runtime/compiled-shield-policy.js";
import { scopesFromContext } from "../runtime/rule-scope.js";
import { type CapturedProblem, decideEnd, decideStep, type ShieldRuntime } from "../runtime/step-decision.js";
import { advanceTo, createTrajectoryState } from "../runtime/trajectory-state.js";
import type { LabelledExample } from "./labelled-steps.js";

export interface TrainingEpoch {
  epoch: number;
  /** Mean hinge loss over the examples. */
  loss: number;
  /** Share of examples decided right (Δ >= −ε for safe, < −ε for unsafe), in [0, 1]. */
  accuracy: number;
}

export interface TrainWeightsResult {
  policy: Policy;
  history: TrainingEpoch[];
  /** Final mean loss per circuit (keyed by the circuit actions of the examples, joined with "+"). */
  circuits: Record<string, { examples: number; loss: number }>;
  examples: { total: number; learnable: number; safe: number; unsafe: number };
  /** Rules whose weight changed: id -> [before, after]. */
  changed: Record<string, [number, number]>;
}

interface PreparedExample {
  y: 1 | -1;
  problem: MlnProblem | undefined;
  /** Global rule index of each problem rule. */
  ruleIndex: number[];
  circuit: string;
}

const OptionsSchema = z.object({
  margin: z.number().positive().finite().optional(),
  epsilon: z.number().nonnegative().finite().optional(),
  epochs: z.number().int().min(0).max(100_000).optional(),
  learningRate: z.number().positive().finite().optional(),
  seed: z.number().int().optional(),
});

const ExampleSchema = z.object({
  trajectory: z.object({
    input: z.string(),
    steps: z.array(StepSchema).min(1),
    context: z.record(z.string(), z.unknown()).optional(),
  }),
  step: z.union([z.number().int().nonnegative(), z.literal("end")]),
  label: z.enum(["safe", "unsafe"]),
  context: z.record(z.string(), z.unknown()).optional(),
  id: z.string().optional(),
});

/** Evaluates every example once; examples sharing a trajectory object share one pass over it. */
async function prepare(
  policy: Policy,
  examples: readonly LabelledExample[],
  runtime: ShieldRuntime,
  ruleIndexOf: Map<string, number>,
): Promise<PreparedExample[]> {
  const compiled = compileShieldPolicy({ policy });
  const byTrajectory = new Map<LabelledExample["trajectory"], number[]>();
  examples.forEach((e, i) => {
    const parsed = parseWith({
      schema: ExampleSchema,
      value: e,
      what: "training example",
      path: `examples.${i}`,
    });
    if (parsed.step !== "end" && parsed.step >= parsed.trajectory.steps.length) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `examples.${i}.step: ${parsed.step} is past the last step (${parsed.trajectory.steps.length - 1})`,
        details: { field: `examples.${i}.step` },
      });
    }
    byTrajectory.set(e.trajectory, [...(byTrajectory.get(e.trajectory) ?? []), i]);
  });
  const prepared: PreparedExample[] = new Array(examples.length);
  for (const [trajectory, indices] of byTrajectory) {
    const first = examples[indices[0]!]!;
    const context = {
      ...(trajectory.context ?? {}),
      ...(first as { context?: Record<string, unknown> }).context,
    };
    const steps = trajectory.steps.map((s) => StepSchema.parse(s));
    const scoped = compiled.inScope({ scopes: scopesFromContext({ context }) });
    const state = createTrajectoryState({
      key: "training",
      compiled,
      scoped,
      input: trajectory.input,
      context,
    });
    const wanted = new Map<number | "end", number[]>();
    for (const i of indices) {
      const s = examples[i]!.step;
      wanted.set(s, [...(wanted.get(s) ?? []), i]);
    }
    const last = wanted.has("end")
      ? steps.length - 1
      : Math.max(...[...wanted.keys()].filter((k): k is number => k !== "end"));
    const record = (key: number | "end", captured: CapturedProblem | undefined, circuit: string) => {
      for (const i of wanted.get(key) ?? []) {
        prepared[i] = {
          y: examples[i]!.label === "safe" ? 1 : -1,
          problem: captured?.problem,
          ruleIndex: captured ? captured.rules.map((r) => ruleIndexOf.get(r.rule.id)!) : [],
          circuit,
        };
      }
    };
    for (let index = 0; index <= last; index += 1) {
      advanceTo({ state, steps, index, detectors: runtime.detectors });
      let captured: CapturedProblem | undefined;
      const decision = await decideStep({
        runtime,
        state,
        steps,
        index,
        capture: (c) => {
          captured = c;
        },
      });
      const circuits = (decision.trace?.facts?.circuits as string[] | undefined) ?? [];
      record(index, captured, circuits.join("+") || "(none)");
    }
    if (wanted.has("end")) {
      let captured: CapturedProblem | undefined;
      decideEnd({
        runtime,
        state,
        capture: (c) => {
          captured = c;
        },
      });
      record("end", captured, "(end)");
    }
  }
  return prepared;
}

interface Scored {
  delta: number;
  gradient: Map<number, number>;
}

function score(e: PreparedExample, weights: readonly number[], epsilon: number): Scored {
  if (!e.problem) return { delta: 0, gradient: new Map() };
  const local = e.ruleIndex.map((g) => weights[g] as number);
  const r = solveMln({ problem: e.problem, weights: local, epsilon });
  const gradient = new Map<number, number>();
  e.ruleIndex.forEach((g, j) => {
    const p = r.expectations.plus[j];
    const m = r.expectations.minus[j];
    if (p === null || p === undefined || m === null || m === undefined) return;
    if (p !== m) gradient.set(g, (gradient.get(g) ?? 0) + (p - m));
  });
  return { delta: r.delta, gradient };
}

/** Learns rule weights from labelled steps (see the module comment); returns the policy with them. */
export async function trainWeights(options: {
  policy: Policy;
  examples: readonly LabelledExample[];
  /** Hinge margin m (default 1). */
  margin?: number;
  /** ε of the decision (default: the policy's, else 0). */
  epsilon?: number;
  /** Epochs of full-batch descent (default 200). */
  epochs?: number;
  /** Step size (default 0.5). */
  learningRate?: number;
  seed?: number;
  detectors?: DetectorRegistry;
}): Promise<TrainWeightsResult> {
  const o = parseWith({
    schema: OptionsSchema,
    value: { ...options, policy: undefined, examples: undefined, detectors: undefined },
    what: "training options",
  });
  if (!Array.isArray(options.examples)) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "examples: expected an array",
      details: { field: "examples" },
    });
  }
  const policy = options.policy;
  const rules: TemporalRule[] = policy.rules?.temporalRules ?? [];
  const margin = o.margin ?? 1;
  const epsilon = o.epsilon ?? policy.rules?.epsilon ?? 0;
  const epochs = o.epochs ?? 200;
  const rate = o.learningRate ?? 0.5;
  const ruleIndexOf = new Map(rules.map((r, i) => [r.id, i] as const));
  // Rules of weight 0 must still be evaluated (training may raise them): evaluate a copy where every
  // rule has a positive weight; the weights themselves only enter when scoring.
  const evaluationPolicy: Policy = {
    ...policy,
    rules: {
      ...policy.rules,
      temporalRules: rules.map((r) => ({ ...r, weight: r.weight > 0 ? r.weight : 1 })),
    },
  };
  const runtime: ShieldRuntime = {
    model: undefined,
    store: undefined,
    detectors: options.detectors ?? createDetectorRegistry(),
    epsilon,
    failMode: "closed",
    sampling: o.seed !== undefined ? { seed: o.seed } : {},
    memoryK: 0,
  };
  const prepared = await prepare(evaluationPolicy, options.examples, runtime, ruleIndexOf);
  const weights = rules.map((r) => r.weight);
  const n = Math.max(1, prepared.length);
  // Examples per rule: each rule's step is its own mean subgradient.
  const examplesOfRule = new Array<number>(rules.length).fill(0);
  for (const e of prepared)
    if (e.problem) for (const g of new Set(e.ruleIndex)) examplesOfRule[g] = (examplesOfRule[g] ?? 0) + 1;
  const history: TrainingEpoch[] = [];
  const evaluate = (epoch: number): Scored[] => {
    const scored = prepared.map((e) => score(e, weights, epsilon));
    let loss = 0;
    let right = 0;
    scored.forEach((s, i) => {
      const e = prepared[i]!;
      loss += Math.max(0, margin - e.y * (s.delta + epsilon));
      const allowed = s.delta >= -epsilon - 1e-9;
      if (allowed === (e.y === 1)) right += 1;
    });
    history.push({ epoch, loss: loss / n, accuracy: prepared.length === 0 ? 1 : right / prepared.length });
    return scored;
  };
  let scored = evaluate(0);
  for (let epoch = 1; epoch <= epochs; epoch += 1) {
    const grad = new Map<number, number>();
    scored.forEach((s, i) => {
      const e = prepared[i]!;
      if (margin - e.y * (s.delta + epsilon) <= 0) return;
      for (const [g, d] of s.gradient) grad.set(g, (grad.get(g) ?? 0) - e.y * d);
    });
    if (grad.size === 0) break;
    for (const [g, d] of grad)
      weights[g] = Math.max(0, (weights[g] as number) - (rate * d) / Math.max(1, examplesOfRule[g]!));
    scored = evaluate(epoch);
  }
  const circuits: TrainWeightsResult["circuits"] = {};
  scored.forEach((s, i) => {
    const e = prepared[i]!;
    const c = circuits[e.circuit] ?? { examples: 0, loss: 0 };
    circuits[e.circuit] = c;
    c.examples += 1;
    c.loss += Math.max(0, margin - e.y * (s.delta + epsilon));
  });
  for (const c of Object.values(circuits)) c.loss /= c.examples;
  const changed: Record<string, [number, number]> = {};
  const round = (w: number) => Math.round(w * 1e6) / 1e6;
  rules.forEach((r, i) => {
    const after = round(weights[i] as number);
    if (after !== r.weight) changed[r.id] = [r.weight, after];
  });
  const trained = parseWith({
    schema: PolicySchema,
    value: {
      ...policy,
      rules: {
        ...policy.rules,
        temporalRules: rules.map((r, i) => ({ ...r, weight: round(weights[i] as number) })),
      },
    },
    what: "trained policy",
    code: "INTERNAL",
  });
  return {
    policy: trained,
    history,
    circuits,
    examples: {
      total: prepared.length,
      learnable: prepared.filter((e) => e.problem && e.ruleIndex.length > 0).length,
      safe: prepared.filter((e) => e.y === 1).length,
      unsafe: prepared.filter((e) => e.y === -1).length,
    },
    changed,
  };
}
