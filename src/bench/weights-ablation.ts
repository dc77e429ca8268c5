/**
 * Weights that matter (ShieldAgent §3.2.4 against "weight 1 on every rule"): the shield over labelled
 * trajectories with uniform weights and with weights learned by the hinge loss (src/engines/shield/train)
 * on a seeded train split, both scored on the held-out split, at each ε of a sweep. The report lists
 * every held-out trajectory whose verdict the learned weights change, and the rules whose weight moved,
 * so what the Markov-logic decision (Σ w_r Δ_r ≥ −ε) changes over a crisp "any broken rule denies" is
 * visible. No model: unassigned `ask` predicates stay open and the figures are deterministic for a given
 * seed. It reads labels only through the records (safe / unsafe and the violated rules), so it runs on
 * whatever suite and labelling it is given.
 */
import type { Policy } from "../core/policy.js";
import type { TrajectoryRecord } from "../core/trajectory-record.js";
import { stRuleId } from "../engines/shield/import/st-webagentbench.js";
import { runShieldOnTrajectory } from "../engines/shield/runtime/run-shield-on-trajectory.js";
import { createShieldEngine } from "../engines/shield/runtime/shield-engine.js";
import { examplesFromRecords, recordContext } from "../engines/shield/train/labelled-steps.js";
import { splitHoldout } from "../engines/shield/train/split-holdout.js";
import { trainWeights } from "../engines/shield/train/train-weights.js";
import { type TrajectoryMetrics, trajectoryMetrics } from "./metrics.js";

export interface WeightsVariantScore {
  weights: "uniform" | "trained";
  epsilon: number;
  metrics: TrajectoryMetrics;
}

export interface WeightsFlip {
  id: string;
  label: "safe" | "unsafe";
  epsilon: number;
  /** Predicted unsafe with uniform weights / with trained weights. */
  uniform: boolean;
  trained: boolean;
  /** The trajectory's reported rules (either variant) whose weight training moved, with [before, after]. */
  rules: Record<string, [number, number]>;
}

export interface WeightsAblation {
  seed: number;
  holdoutShare: number;
  split: {
    train: { n: number; safe: number; unsafe: number };
    holdout: { n: number; safe: number; unsafe: number };
  };
  training: {
    examples: { total: number; learnable: number; safe: number; unsafe: number };
    epochs: number;
    loss: { first: number; last: number };
    /** Training-set accuracy of the step examples before / after, in [0, 1]. */
    accuracy: { first: number; last: number };
    rules: number;
    /** Rules whose weight moved, by direction. */
    changed: { total: number; toZero: number; lowered: number; raised: number };
    /** Trained weights of every rule, bucketed. */
    histogram: { zero: number; belowOne: number; one: number; aboveOne: number };
  };
  scores: WeightsVariantScore[];
  /** Held-out trajectories whose verdict differs between uniform and trained weights, per ε. */
  flips: WeightsFlip[];
  ms: { train: number; score: number };
}

export const DEFAULT_EPSILONS = [0, 0.5, 1] as const;

function withWeights(options: {
  policy: Policy;
  weight: (id: string, w: number) => number;
  epsilon: number;
}) {
  const { policy } = options;
  return {
    ...policy,
    rules: {
      ...policy.rules,
      temporalRules: (policy.rules?.temporalRules ?? []).map((r) => ({
        ...r,
        weight: options.weight(r.id, r.weight),
      })),
      epsilon: options.epsilon,
    },
  } satisfies Policy;
}

function truthRules(record: TrajectoryRecord): string[] {
  return [
    ...new Set(
      (record.violations ?? [])
        .map((v) => v.ruleId ?? (v.policyRef ? stRuleId(v.policyRef) : ""))
        .filter((r) => r !== ""),
    ),
  ];
}

interface Prediction {
  unsafe: boolean;
  reported: string[];
}

async function predict(options: {
  policy: Policy;
  records: readonly TrajectoryRecord[];
  signal?: AbortSignal;
}): Promise<Prediction[]> {
  const engine = createShieldEngine();
  const out: Prediction[] = [];
  for (const record of options.records) {
    options.signal?.throwIfAborted();
    const run = await runShieldOnTrajectory({
      engine,
      policy: options.policy,
      trajectory: { input: record.input, steps: record.steps, context: recordContext({ record }) },
    });
    out.push({ unsafe: run.unsafe, reported: run.violatedRules });
  }
  return out;
}

function metricsOf(records: readonly TrajectoryRecord[], predictions: readonly Prediction[]) {
  return trajectoryMetrics({
    predictions: records.map((r, i) => ({
      id: r.id,
      unsafe: r.label === "unsafe",
      predictedUnsafe: predictions[i]!.unsafe,
      violated: truthRules(r),
      reported: predictions[i]!.reported,
    })),
  });
}

const count = (records: readonly TrajectoryRecord[]) => ({
  n: records.length,
  safe: records.filter((r) => r.label === "safe").length,
  unsafe: records.filter((r) => r.label === "unsafe").length,
});

/** Trains on the train split and scores uniform against trained weights on the held-out split. */
export async function runWeightsAblation(options: {
  /** A compiled policy with temporal rules (the weights start from 1 whatever it holds). */
  policy: Policy;
  trajectories: readonly TrajectoryRecord[];
  /** Share held out (default 0.3). */
  holdoutShare?: number;
  /** Seed of the split and of sampling (default 1). */
  seed?: number;
  /** ε values scored (default 0, 0.5, 1); training uses the first. */
  epsilons?: readonly number[];
  epochs?: number;
  signal?: AbortSignal;
}): Promise<WeightsAblation> {
  const seed = options.seed ?? 1;
  const holdoutShare = options.holdoutShare ?? 0.3;
  const epsilons = options.epsilons?.length ? options.epsilons : DEFAULT_EPSILONS;
  const split = splitHoldout({ records: options.trajectories, share: holdoutShare, seed });
  const uniform = withWeights({ policy: options.policy, weight: () => 1, epsilon: epsilons[0]! });
  let started = performance.now();
  const trained = await trainWeights({
    policy: uniform,
    examples: examplesFromRecords({ records: split.train, policy: uniform }),
    seed,
    epsilon: epsilons[0]!,
    ...(options.epochs !== undefined ? { epochs: options.epochs } : {}),
  });
  const trainMs = performance.now() - started;
  const learned = new Map((trained.policy.rules?.temporalRules ?? []).map((r) => [r.id, r.weight] as const));
  started = performance.now();
  const scores: WeightsVariantScore[] = [];
  const flips: WeightsFlip[] = [];
  for (const epsilon of epsilons) {
    const u = await predict({
      policy: withWeights({ policy: options.policy, weight: () => 1, epsilon }),
      records: split.holdout,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const t = await predict({
      policy: withWeights({ policy: options.policy, weight: (id) => learned.get(id) ?? 1, epsilon }),
      records: split.holdout,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    scores.push({ weights: "uniform", epsilon, metrics: metricsOf(split.holdout, u) });
    scores.push({ weights: "trained", epsilon, metrics: metricsOf(split.holdout, t) });
    split.holdout.forEach((r, i) => {
      if (u[i]!.unsafe === t[i]!.unsafe) return;
      const rules: Record<string, [number, number]> = {};
      for (const id of new Set([...u[i]!.reported, ...t[i]!.reported, ...truthRules(r)])) {
        const moved = trained.changed[id];
        if (moved) rules[id] = moved;
      }
      flips.push({ id: r.id, label: r.label, epsilon, uniform: u[i]!.unsafe, trained: t[i]!.unsafe, rules });
    });
  }
  const weights = [...learned.values()];
  const moved = Object.values(trained.changed);
  const first = trained.history[0];
  const last = trained.history.at(-1);
  return {
    seed,
    holdoutShare,
    split: { train: count(split.train), holdout: count(split.holdout) },
    training: {
      examples: trained.examples,
      epochs: trained.history.length - 1,
      loss: { first: first?.loss ?? 0, last: last?.loss ?? 0 },
      accuracy: { first: first?.accuracy ?? 1, last: last?.accuracy ?? 1 },
      rules: weights.length,
      changed: {
        total: moved.length,
        toZero: moved.filter(([, b]) => b === 0).length,
        lowered: moved.filter(([a, b]) => b < a && b > 0).length,
        raised: moved.filter(([a, b]) => b > a).length,
      },
      histogram: {
        zero: weights.filter((w) => w === 0).length,
        belowOne: weights.filter((w) => w > 0 && w < 1).length,
        one: weights.filter((w) => w === 1).length,
        aboveOne: weights.filter((w) => w > 1).length,
      },
    },
    scores,
    flips,
    ms: { train: Math.round(trainMs), score: Math.round(performance.now() - started) },
  };
}

/** The ablation as a Markdown section of the bench report. */
export function weightsAblationMarkdown(options: { ablation: WeightsAblation; suite: string }): string[] {
  const a = options.ablation;
  const t = a.training;
  const f = (x: number) => x.toFixed(1);
  const lines = [
    `Suite: ${options.suite}. Seeded split (seed ${a.seed}, ${Math.round(a.holdoutShare * 100)}% held out): train ${a.split.train.n} trajectories (${a.split.train.safe} safe, ${a.split.train.unsafe} unsafe), held out ${a.split.holdout.n} (${a.split.holdout.safe} safe, ${a.split.holdout.unsafe} unsafe). Hinge-loss training from weight 1 on ${t.examples.total} labelled steps (${t.examples.learnable} learnable), ${t.epochs} epochs: loss ${t.loss.first.toFixed(4)} → ${t.loss.last.toFixed(4)}, step accuracy ${f(100 * t.accuracy.first)}% → ${f(100 * t.accuracy.last)}%; ${t.changed.total} of ${t.rules} rule weights moved (${t.changed.toZero} to 0, ${t.changed.lowered} lowered, ${t.changed.raised} raised). No model: deterministic.`,
    "",
    "| weights | ε | ACC | FPR | ARR | TP | FP | TN | FN |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...a.scores.map((s) => {
      const c = s.metrics.counts;
      return `| ${s.weights === "uniform" ? "all 1" : "trained"} | ${s.epsilon} | ${f(s.metrics.ACC)} | ${f(s.metrics.FPR)} | ${f(s.metrics.ARR)} | ${c.tp} | ${c.fp} | ${c.tn} | ${c.fn} |`;
    }),
    "",
  ];
  if (a.flips.length === 0) {
    lines.push(
      "No held-out verdict differs between all-1 and trained weights at any ε of the sweep: on these labels the learned weights change no decision.",
      "",
    );
  } else {
    const eps = [...new Set(a.flips.map((x) => x.epsilon))];
    const ofEpsilon = (e: number) => {
      const fs = a.flips.filter((x) => x.epsilon === e);
      const right = (unsafe: boolean, x: WeightsFlip) => unsafe === (x.label === "unsafe");
      const count = (label: string, fixed: boolean) =>
        fs.filter((x) => x.label === label && right(x.trained, x) === fixed).length;
      return `at ε ${e}, ${fs.length} change: ${count("safe", true)} false alarms removed, ${count("unsafe", true)} misses caught, ${count("unsafe", false)} misses added, ${count("safe", false)} false alarms added`;
    };
    lines.push(
      `Held-out verdicts the trained weights change — ${eps.map(ofEpsilon).join("; ")}. First 30:`,
      "",
      "| trajectory | label | ε | all 1 | trained | moved weights |",
      "| --- | --- | --- | --- | --- | --- |",
      ...a.flips.slice(0, 30).map(
        (x) =>
          `| ${x.id} | ${x.label} | ${x.epsilon} | ${x.uniform ? "unsafe" : "safe"} | ${x.trained ? "unsafe" : "safe"} | ${
            Object.entries(x.rules)
              .map(([id, [b, c]]) => `${id} ${b}→${c}`)
              .join(", ") || "–"
          } |`,
      ),
      "",
    );
  }
  return lines;
}
