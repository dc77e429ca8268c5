/**
 * The trajectory benchmark: the shield over labelled trajectories for ST-WebAgentBench's tasks — our own
 * suite, generated from the benchmark's real tasks and policies by bench/suites (not published: a
 * generator is no part of the guard) and handed over as records, or any labelled-trajectory JSONL file
 * (`warden bench st-webagentbench --trajectories <file>`) — scored with ACC, FPR and ARR. Reports mark
 * the suite as ours and say what the figure can be compared with: its class balance, the always-unsafe
 * baseline beside our accuracy, balanced accuracy, and the tasks left without a safe trajectory. The
 * benchmark ships no trajectories, so no paper's figure is tabled beside ours.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toWardenError, WardenError } from "../core/errors.js";
import type { Policy } from "../core/policy.js";
import type { TrajectoryRecord } from "../core/trajectory-record.js";
import { importStWebAgentBench } from "../engines/shield/import/index.js";
import { stRuleId } from "../engines/shield/import/st-webagentbench.js";
import { runShieldOnTrajectory } from "../engines/shield/runtime/run-shield-on-trajectory.js";
import { createShieldEngine } from "../engines/shield/runtime/shield-engine.js";
import type { BenchRow, BenchSummary } from "./bench-types.js";
import { loadStWebAgentBench } from "./datasets/st-webagentbench.js";
import { readTrajectoriesJsonl } from "./datasets/trajectories.js";
import { percentile, trajectoryMetrics } from "./metrics.js";
import { type BenchmarkOptions, type BenchmarkResult, costSummary, failureList } from "./run-benchmark.js";
import { runInfo } from "./run-info.js";
import { runCases } from "./runner.js";

/** Labelled trajectories to replay, and a sentence saying where they come from (for the report). */
export interface TrajectorySuite {
  trajectories: readonly TrajectoryRecord[];
  description: string;
}

interface TrajectoryCase {
  id: string;
  record: TrajectoryRecord;
  violated: string[];
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

export async function runTrajectoryBenchmark(
  o: BenchmarkOptions & {
    /** The suite as records (bench/run.ts generates it); else `trajectories` names a JSONL file. */
    suite?: TrajectorySuite;
  },
): Promise<BenchmarkResult> {
  if (o.engine !== "shield") {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `st-webagentbench is a trajectory benchmark: run it with --engine shield (got ${o.engine})`,
    });
  }
  if (!o.data)
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "bench st-webagentbench needs --data <dir|file>",
    });
  const dataset = await loadStWebAgentBench({ path: o.data });
  const { policy } = importStWebAgentBench({ tasks: dataset.tasks, version: dataset.version });
  const suite = o.suite ?? (await suiteFromFile({ path: o.trajectories }));
  const cases: TrajectoryCase[] = suite.trajectories.map((t) => ({
    id: t.id,
    record: t,
    violated: truthRules(t),
  }));
  const engine = createShieldEngine({ ...(o.model ? { model: o.model } : {}) });
  const outcome = await runCases<TrajectoryCase, BenchRow>({
    cases,
    ...(o.out ? { resultsPath: join(o.out, "results.jsonl") } : {}),
    ...(o.fresh ? { fresh: true } : {}),
    concurrency: o.concurrency ?? 1,
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.limit !== undefined ? { limit: o.limit } : {}),
    progress: o.progress ?? false,
    label: "st-webagentbench/shield",
    ...(o.signal ? { signal: o.signal } : {}),
    onError: (c, error) => {
      const e = toWardenError({ error });
      return {
        id: c.id,
        label: c.record.label === "unsafe" ? 1 : 0,
        predicted: 1,
        verdict: "deny",
        violations: [],
        cost: { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 },
        failure: { code: e.code, message: e.message },
        notes: { violated: c.violated },
      };
    },
    run: async (c, signal) => {
      const started = performance.now();
      const result = await runShieldOnTrajectory({
        engine,
        policy: policy as Policy,
        trajectory: {
          input: c.record.input,
          steps: c.record.steps,
          context: {
            ...(c.record.taskId !== undefined ? { taskId: c.record.taskId } : {}),
            ...(c.record.site ? { site: c.record.site } : {}),
          },
        },
        signal,
      });
      const decisions = [...result.decisions, result.final];
      const stepMs = result.decisions.map((d) => d.cost.ms);
      return {
        id: c.id,
        group:
          c.record.label === "safe"
            ? "safe"
            : [...new Set((c.record.violations ?? []).map((v) => v.evalType ?? "unknown"))]
                .sort()
                .join(" + "),
        label: c.record.label === "unsafe" ? 1 : 0,
        predicted: result.unsafe ? 1 : 0,
        verdict: result.unsafe ? "deny" : "allow",
        violations: decisions.flatMap((d) =>
          d.violations.map((v) => ({ ruleId: v.ruleId, message: v.message })),
        ),
        cost: {
          llmCalls: decisions.reduce((n, d) => n + d.cost.llmCalls, 0),
          inputTokens: decisions.reduce((n, d) => n + d.cost.inputTokens, 0),
          outputTokens: decisions.reduce((n, d) => n + d.cost.outputTokens, 0),
          ms: performance.now() - started,
        },
        notes: {
          violated: c.violated,
          reported: result.violatedRules,
          ...(result.blockedAt !== undefined ? { blockedAt: result.blockedAt } : {}),
          steps: c.record.steps.length,
          ...(c.record.taskId !== undefined ? { taskId: c.record.taskId } : {}),
          stepMsP50: percentile(stepMs, 50),
        },
      };
    },
  });
  const rows = outcome.rows;
  const tm = trajectoryMetrics({
    predictions: rows.map((r) => ({
      id: r.id,
      unsafe: r.label === 1,
      predictedUnsafe: r.predicted === 1,
      violated: (r.notes?.violated as string[]) ?? [],
      reported: (r.notes?.reported as string[]) ?? [],
    })),
  });
  const stepMs = rows.map((r) => Number(r.notes?.stepMsP50 ?? 0));
  const balance = classBalance({ rows });
  const summary: BenchSummary = {
    dataset: "st-webagentbench",
    engine: "shield",
    model: o.model?.id ?? null,
    n: rows.length,
    metrics: {
      ACC: tm.ACC,
      FPR: tm.FPR,
      ARR: tm.ARR,
      balancedACC: balancedAccuracy(tm.counts),
      unsafeShare: balance.unsafeShare,
      alwaysUnsafeACC: balance.unsafeShare,
      tasksWithoutSafe: balance.tasksWithoutSafe.length,
      msPerStepP50: Math.round(percentile(stepMs, 50) * 1000) / 1000,
    },
    cost: costSummary({ rows }),
    failures: failureList({ rows }),
  };
  const source = `${dataset.file} (${dataset.version}), ${dataset.tasks.length} tasks and ${dataset.policies} policies; trajectories: ${suite.description}`;
  if (o.out) {
    mkdirSync(o.out, { recursive: true });
    writeFileSync(join(o.out, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
    writeTrajectoryReport({ dir: o.out, summary, rows, source, suiteSize: suite.trajectories.length });
  }
  return {
    summary,
    rows,
    resumed: outcome.resumed,
    interrupted: outcome.interrupted,
    loaded: {
      cases: [],
      policy: policy as Policy,
      problems: dataset.malformed.map((m) => ({ id: m.id, message: m.reason })),
      source,
    },
  };
}

/** Percent, two decimals. */
function pct(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((10000 * part) / whole) / 100;
}

/** Mean of the true-positive and true-negative rates: 50 for any constant answer. */
function balancedAccuracy(c: { tp: number; fp: number; tn: number; fn: number }): number {
  const tpr = c.tp + c.fn === 0 ? 0 : c.tp / (c.tp + c.fn);
  const tnr = c.tn + c.fp === 0 ? 0 : c.tn / (c.tn + c.fp);
  return Math.round(5000 * (tpr + tnr)) / 100;
}

/** Safe/unsafe counts, the unsafe share (= the always-unsafe baseline's ACC) and tasks with no safe run. */
function classBalance(options: { rows: readonly BenchRow[] }): {
  safe: number;
  unsafe: number;
  unsafeShare: number;
  tasksWithoutSafe: number[];
} {
  const { rows } = options;
  const unsafe = rows.filter((r) => r.label === 1).length;
  const hasSafe = new Map<number, boolean>();
  for (const r of rows) {
    const task = r.notes?.taskId;
    if (typeof task !== "number") continue;
    hasSafe.set(task, (hasSafe.get(task) ?? false) || r.label === 0);
  }
  return {
    safe: rows.length - unsafe,
    unsafe,
    unsafeShare: pct(unsafe, rows.length),
    tasksWithoutSafe: [...hasSafe.entries()]
      .filter(([, safe]) => !safe)
      .map(([task]) => task)
      .sort((a, b) => a - b),
  };
}

function writeTrajectoryReport(options: {
  dir: string;
  summary: BenchSummary;
  rows: readonly BenchRow[];
  source: string;
  /** Trajectories the suite holds (a run may take fewer: --limit). */
  suiteSize: number;
}): void {
  const { summary: s, rows } = options;
  const info = runInfo();
  const balance = classBalance({ rows });
  const byGroup = new Map<string, BenchRow[]>();
  for (const r of rows) byGroup.set(r.group ?? "?", [...(byGroup.get(r.group ?? "?") ?? []), r]);
  const groupLines = [...byGroup.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([g, rs]) => {
      const m = trajectoryMetrics({
        predictions: rs.map((r) => ({
          id: r.id,
          unsafe: r.label === 1,
          predictedUnsafe: r.predicted === 1,
          violated: (r.notes?.violated as string[]) ?? [],
          reported: (r.notes?.reported as string[]) ?? [],
        })),
      });
      return `| ${g} | ${rs.length} | ${m.ACC.toFixed(1)} | ${m.FPR.toFixed(1)} | ${m.ARR.toFixed(1)} |`;
    });
  const wrong = rows.filter((r) => r.label !== r.predicted).slice(0, 100);
  const noSafe = balance.tasksWithoutSafe;
  writeFileSync(
    join(options.dir, "report.md"),
    `# Warden benchmark: st-webagentbench — engine shield

- **Generated trajectories, not the benchmark's.** ${options.source}. ST-WebAgentBench ships tasks and policies but no trajectories; these are ours, and no published figure (ShieldAgent's included) was measured on them, so none is tabled here. The figure measures how often the policy → predicates → LTLf → shield pipeline agrees with the labels; it complements, and does not replace, the benchmark's live evaluation in its web environments.
- **Class balance:** ${s.n} trajectories, ${balance.safe} safe and ${balance.unsafe} unsafe (${balance.unsafeShare}% unsafe) of the ${options.suiteSize} the suite holds. Answering "unsafe" every time scores ACC ${balance.unsafeShare}; balanced accuracy (the mean of the unsafe and safe recalls, 50 for any constant answer) is the fairer single figure.
- **Tasks without a safe trajectory:** ${noSafe.length}${noSafe.length > 0 ? ` (${noSafe.slice(0, 40).join(", ")}${noSafe.length > 40 ? ", ..." : ""}): no planned run of these is scored safe — their policies cannot all be met as the evaluator reads them` : ""}.
- Model: ${s.model ?? "none (0 LLM calls)"}. Run: ${info.date} on ${info.cpu} (${info.cores} cores), Node ${info.node}, commit ${info.commit ?? "unknown"}.

| method | ACC | balanced ACC | FPR | ARR | LLM calls / trajectory | time |
| --- | --- | --- | --- | --- | --- | --- |
| Warden shield (this run) | ${s.metrics.ACC} | ${s.metrics.balancedACC} | ${s.metrics.FPR} | ${s.metrics.ARR} | ${s.cost.llmCallsPerCheck} | ${s.cost.msPerCheck.p50} ms per trajectory (p50), ${s.metrics.msPerStepP50} ms per step |
| always "unsafe" (baseline) | ${balance.unsafeShare} | 50 | ${balance.safe > 0 ? 100 : 0} | – | 0 | – |

## By eval type of the violated policies

| group | n | ACC | FPR | ARR |
| --- | --- | --- | --- | --- |
${groupLines.join("\n")}

## Disagreements with the labels

${wrong.length === 0 ? "None." : `| trajectory | label | predicted | violated (truth) | reported |\n| --- | --- | --- | --- | --- |\n${wrong.map((r) => `| ${r.id} | ${r.label} | ${r.predicted} | ${((r.notes?.violated as string[]) ?? []).join(", ")} | ${((r.notes?.reported as string[]) ?? []).join(", ")} |`).join("\n")}`}
`,
  );
}

/** Reads the suite from a labelled-trajectory JSONL file (its header, if any, describes it). */
async function suiteFromFile(options: { path: string | undefined }): Promise<TrajectorySuite> {
  if (!options.path)
    throw new WardenError({
      code: "INVALID_INPUT",
      message:
        "bench st-webagentbench needs --trajectories <file.jsonl>: labelled trajectories for the tasks in --data (our suite is written by `npx tsx bench/suites/write-st-webagentbench-suite.ts --data <dir> --out <file>` in a checkout)",
    });
  const { header, records } = await readTrajectoriesJsonl({ path: options.path });
  const what = header?.description ?? header?.suite ?? "labelled trajectories";
  return { trajectories: records, description: `${what} (${options.path})` };
}
