/**
 * One call that reproduces the ST-WebAgentBench suite numbers: load the tasks, import their policies,
 * build our trajectory suite, replay it through the reference pipeline, and (optionally) write the
 * suite as JSONL. For the bench scripts (`npm run bench`, write-st-webagentbench-suite.ts); the dataset
 * is read at run time, never bundled, and the generator stays out of the published package.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { loadStWebAgentBench } from "../../src/bench/datasets/st-webagentbench.js";
import { formatTrajectoriesJsonl } from "../../src/core/trajectory-record.js";
import {
  importStWebAgentBench,
  type StImportReport,
} from "../../src/engines/shield/import/st-webagentbench.js";
import type { StVersion } from "../../src/engines/shield/import/st-webagentbench-schema.js";
import { type ReplayReport, replaySuite } from "./policy-replay.js";
import {
  buildStWebAgentBenchSuite,
  ST_SUITE_NAME,
  type StSuiteStats,
  type StSuiteTrajectory,
} from "./st-webagentbench-trajectories.js";

/** Our suite over the dataset's tasks, as `runTrajectoryBenchmark` takes it (seed 7 by default). */
export async function stWebAgentBenchSuite(options: {
  path: string;
  seed?: number;
}): Promise<{ trajectories: StSuiteTrajectory[]; description: string }> {
  const seed = options.seed ?? 7;
  const dataset = await loadStWebAgentBench({ path: options.path });
  const suite = buildStWebAgentBenchSuite({
    tasks: dataset.tasks,
    seed,
    version: dataset.version,
    balance: true,
  });
  return {
    trajectories: suite.trajectories,
    description: `OUR OWN suite ${ST_SUITE_NAME} generated from these tasks and policies (seed ${seed}), re-planned safe runs added per task towards a safe/unsafe balance (${suite.stats.balance?.shortfall ?? 0} safe runs short); labelled as the benchmark's evaluators would score each run (our reimplementation, bench/suites/st-webagentbench-official.ts)`,
  };
}

export interface StSuiteRun {
  version: StVersion;
  file: string;
  importReport: StImportReport;
  suite: StSuiteStats;
  replay: Omit<ReplayReport, "results">;
  ms: { import: number; build: number; replay: number };
}

export async function runStWebAgentBenchSuite(options: {
  path: string;
  version?: StVersion;
  seed?: number;
  maxTasks?: number;
  /** Write the generated trajectories here (JSONL with a header line). */
  outFile?: string;
  /** Add re-planned safe runs towards a per-task safe/unsafe balance (see buildStWebAgentBenchSuite). */
  balance?: boolean;
}): Promise<StSuiteRun> {
  const dataset = await loadStWebAgentBench({
    path: options.path,
    ...(options.version ? { version: options.version } : {}),
  });
  let t = performance.now();
  const { policy, report } = importStWebAgentBench({ tasks: dataset.tasks, version: dataset.version });
  const importMs = performance.now() - t;
  t = performance.now();
  const suite = buildStWebAgentBenchSuite({
    tasks: dataset.tasks,
    seed: options.seed ?? 7,
    version: dataset.version,
    ...(options.maxTasks !== undefined ? { maxTasks: options.maxTasks } : {}),
    ...(options.balance ? { balance: true } : {}),
  });
  const buildMs = performance.now() - t;
  if (options.outFile) {
    await mkdir(dirname(options.outFile), { recursive: true });
    await writeFile(
      options.outFile,
      formatTrajectoriesJsonl({ header: suite.header, records: suite.trajectories }),
      "utf8",
    );
  }
  t = performance.now();
  const { results: _results, ...replay } = replaySuite({ policy, trajectories: suite.trajectories });
  const replayMs = performance.now() - t;
  return {
    version: dataset.version,
    file: dataset.file,
    importReport: report,
    suite: suite.stats,
    replay,
    ms: { import: Math.round(importMs), build: Math.round(buildMs), replay: Math.round(replayMs) },
  };
}
