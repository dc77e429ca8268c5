/**
 * One call that reproduces the ST-WebAgentBench suite numbers: load the tasks, import their policies,
 * build our trajectory suite, replay it through the reference pipeline, and (optionally) write the
 * suite as JSONL. For bench scripts and the CLI; the dataset is read at run time, never bundled.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { formatTrajectoriesJsonl } from "../../core/trajectory-record.js";
import { importStWebAgentBench, type StImportReport } from "../../engines/shield/import/st-webagentbench.js";
import type { StVersion } from "../../engines/shield/import/st-webagentbench-schema.js";
import { loadStWebAgentBench } from "../datasets/st-webagentbench.js";
import { type ReplayReport, replaySuite } from "./policy-replay.js";
import { buildStWebAgentBenchSuite, type StSuiteStats } from "./st-webagentbench-trajectories.js";

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
