/**
 * `warden policy train --aspm aspm.json --data labelled.jsonl -o trained.json [--holdout 0.2]
 * [--seed s] [--epochs n] [--learning-rate r] [--margin m] [--epsilon e] [--json]`: learns the rule
 * weights of an ASPM from labelled trajectories (src/engines/shield/train; the data format is the
 * trajectory JSONL of src/core/trajectory-record.ts, with per-trajectory labels or per-step
 * labels in meta.stepLabels). A seeded share of the trajectories is held out; ACC and FPR (and ARR)
 * of the shield on it are reported before and after training. Writes the trained policy as pretty,
 * key-sorted JSON. Exit 0, or 2 for usage and data errors.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { type TrajectoryMetrics, trajectoryMetrics } from "../../bench/metrics.js";
import { WardenError } from "../../core/errors.js";
import type { Policy } from "../../core/policy.js";
import { parseTrajectoriesJsonl, type TrajectoryRecord } from "../../core/trajectory-record.js";
import { runShieldOnTrajectory } from "../../engines/shield/runtime/run-shield-on-trajectory.js";
import { createShieldEngine } from "../../engines/shield/runtime/shield-engine.js";
import { examplesFromRecords, recordContext } from "../../engines/shield/train/labelled-steps.js";
import { splitHoldout } from "../../engines/shield/train/split-holdout.js";
import { trainWeights } from "../../engines/shield/train/train-weights.js";
import { loadPolicy } from "../../policies/load-policy.js";
import { stableStringify } from "../../util/stable-json.js";
import { readTextInput } from "../read-input.js";

export { splitHoldout };

interface TrainOptions {
  aspm: string;
  data: string;
  output: string;
  holdout?: string;
  seed?: string;
  epochs?: string;
  learningRate?: string;
  margin?: string;
  epsilon?: string;
  json?: boolean;
}

function number(options: {
  value: string | undefined;
  flag: string;
  min?: number;
  max?: number;
  integer?: boolean;
}): number | undefined {
  const { value, flag } = options;
  if (value === undefined) return undefined;
  const n = Number(value);
  const bad =
    value.trim() === "" ||
    !Number.isFinite(n) ||
    (options.integer && !Number.isInteger(n)) ||
    (options.min !== undefined && n < options.min) ||
    (options.max !== undefined && n > options.max);
  if (bad) {
    const range = [
      options.min !== undefined ? `>= ${options.min}` : "",
      options.max !== undefined ? `<= ${options.max}` : "",
    ]
      .filter(Boolean)
      .join(" and ");
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `${flag}: expected ${options.integer ? "an integer" : "a number"}${range ? ` ${range}` : ""}, got "${value}"`,
      details: { field: flag.replace(/^--/, "") },
    });
  }
  return n;
}

async function score(policy: Policy, records: readonly TrajectoryRecord[]): Promise<TrajectoryMetrics> {
  const engine = createShieldEngine();
  const predictions = [];
  for (const r of records) {
    const run = await runShieldOnTrajectory({
      engine,
      policy,
      trajectory: { input: r.input, steps: r.steps, context: recordContext({ record: r }) },
    });
    const violated = [
      ...new Set(
        (r.violations ?? []).map(
          (v) => v.ruleId ?? (v.policyRef ? `stwab.t${v.policyRef.taskId}.p${v.policyRef.index}` : ""),
        ),
      ),
    ].filter(Boolean);
    predictions.push({
      id: r.id,
      unsafe: r.label === "unsafe",
      predictedUnsafe: run.unsafe,
      violated,
      reported: run.violatedRules,
    });
  }
  return trajectoryMetrics({ predictions });
}

async function runTrain(options: TrainOptions): Promise<void> {
  const holdoutShare = number({ value: options.holdout, flag: "--holdout", min: 0, max: 0.9 }) ?? 0.2;
  const seed = number({ value: options.seed, flag: "--seed", integer: true }) ?? 1;
  const epochs = number({ value: options.epochs, flag: "--epochs", integer: true, min: 0 });
  const learningRate = number({ value: options.learningRate, flag: "--learning-rate", min: 0 });
  const margin = number({ value: options.margin, flag: "--margin", min: 0 });
  const epsilon = number({ value: options.epsilon, flag: "--epsilon", min: 0 });
  const { policy } = loadPolicy({ ref: options.aspm });
  // Read here, bounded and only from a regular file, so a bad --data is a usage error naming it.
  const text = await readTextInput({ value: options.data, option: "--data" });
  const { records } = parseTrajectoriesJsonl({ text, source: resolve(options.data) });
  if (records.length === 0) {
    throw new WardenError({
      code: "DATASET_INVALID",
      message: `--data: ${options.data} holds no trajectory`,
      details: { field: "data" },
    });
  }
  const split = splitHoldout({ records, share: holdoutShare, seed });
  const evaluation = split.holdout.length > 0 ? split.holdout : split.train;
  const examples = examplesFromRecords({ records: split.train, policy });
  const result = await trainWeights({
    policy,
    examples,
    seed,
    ...(epochs !== undefined ? { epochs } : {}),
    ...(learningRate !== undefined && learningRate > 0 ? { learningRate } : {}),
    ...(margin !== undefined && margin > 0 ? { margin } : {}),
    ...(epsilon !== undefined ? { epsilon } : {}),
  });
  const trained: Policy =
    epsilon !== undefined ? { ...result.policy, rules: { ...result.policy.rules, epsilon } } : result.policy;
  const before = await score(
    epsilon !== undefined ? { ...policy, rules: { ...policy.rules, epsilon } } : policy,
    evaluation,
  );
  const after = await score(trained, evaluation);
  const output = resolve(options.output);
  try {
    await mkdir(dirname(output), { recursive: true });
    await writeFile(output, `${stableStringify({ value: trained, indent: 2 })}\n`, "utf8");
  } catch (error) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `output: cannot write ${output}: ${(error as Error).message}`,
      details: { field: "output" },
    });
  }
  const evaluatedOn = split.holdout.length > 0 ? "holdout" : "training set (no holdout)";
  const last = result.history.at(-1);
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({
        output,
        trajectories: { train: split.train.length, holdout: split.holdout.length },
        examples: result.examples,
        evaluatedOn,
        before: { ACC: before.ACC, FPR: before.FPR, ARR: before.ARR },
        after: { ACC: after.ACC, FPR: after.FPR, ARR: after.ARR },
        loss: {
          first: result.history[0]?.loss ?? 0,
          last: last?.loss ?? 0,
          epochs: result.history.length - 1,
        },
        changed: result.changed,
      })}\n`,
    );
  } else {
    const lines = [
      `Trained ${policy.name} on ${split.train.length} trajectories (${result.examples.total} labelled steps, ${result.examples.learnable} learnable); evaluated on the ${evaluatedOn} (${evaluation.length}).`,
      `  before: ACC ${before.ACC}  FPR ${before.FPR}  ARR ${before.ARR}`,
      `  after:  ACC ${after.ACC}  FPR ${after.FPR}  ARR ${after.ARR}`,
      `  hinge loss ${result.history[0]?.loss.toFixed(4) ?? "-"} -> ${last?.loss.toFixed(4) ?? "-"} over ${result.history.length - 1} epochs`,
      `  weights changed: ${Object.keys(result.changed).length}`,
      ...Object.entries(result.changed)
        .slice(0, 20)
        .map(([id, [a, b]]) => `    ${id}: ${a} -> ${b}`),
      `Wrote ${output}`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  }
  process.exitCode = 0;
}

/** Adds `train` under the `policy` command group. */
export function registerPolicyTrainCommand(options: { policy: Command }): Command {
  return options.policy
    .command("train")
    .description("learn the rule weights of an ASPM from labelled trajectories (hinge loss)")
    .requiredOption("--aspm <file>", "the policy artifact to train")
    .requiredOption("--data <file>", "labelled trajectories (JSONL)")
    .requiredOption("-o, --output <file>", "where to write the trained policy (JSON)")
    .option("--holdout <share>", "share of trajectories held out for evaluation (default 0.2)")
    .option("--seed <n>", "seed of the split and of sampling (default 1)")
    .option("--epochs <n>", "epochs of descent (default 200)")
    .option("--learning-rate <r>", "step size (default 0.5)")
    .option("--margin <m>", "hinge margin (default 1)")
    .option("--epsilon <e>", "tolerance ε used in training and written into the policy")
    .option("--json", "print the report as JSON")
    .action(async (opts: TrainOptions) => {
      await runTrain(opts);
    });
}
