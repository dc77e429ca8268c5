/**
 * Our ST-WebAgentBench trajectory suite on the real tasks (when the shared dataset is present): with the
 * importer's reading as labels, every eval type gets safe and unsafe trajectories and the reference
 * pipeline (import -> assign -> LTLf) agrees with them; with the benchmark's evaluators as labels (the
 * default), every disagreement of the pipeline is a run where the two readings differ. A quarter of the
 * tasks keeps the run short; the bench script covers all of them.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadStWebAgentBench } from "../../src/bench/datasets/st-webagentbench.js";
import { importStWebAgentBench } from "../../src/engines/shield/import/st-webagentbench.js";
import { replaySuite } from "./policy-replay.js";
import { buildStWebAgentBenchSuite } from "./st-webagentbench-trajectories.js";

const DATA = fileURLToPath(new URL("../../../shared/datasets/st-webagentbench", import.meta.url));
const present = existsSync(DATA);
const title = present
  ? "ST-WebAgentBench trajectory suite (real tasks)"
  : `ST-WebAgentBench trajectory suite — skipped: no dataset at ${DATA}`;

describe.skipIf(!present)(title, () => {
  for (const version of ["latest", "v1"] as const) {
    it(`labels agree with the pipeline on ${version} (every fourth task)`, async () => {
      const dataset = await loadStWebAgentBench({ path: DATA, version });
      const tasks = dataset.tasks.filter((t) => t.task_id % 4 === 0);
      const { policy } = importStWebAgentBench({ tasks, version });
      const suite = buildStWebAgentBenchSuite({ tasks, seed: 7, version, labels: "importer" });
      expect(suite.stats.safe).toBeGreaterThan(0);
      for (const [type, s] of Object.entries(suite.stats.byEvalType)) {
        if (type !== "is_fake_policy") expect(s.generated, type).toBeGreaterThan(0);
        expect(s.missed, type).toBe(0);
      }
      const report = replaySuite({ policy, trajectories: suite.trajectories });
      expect(report.disagreements).toEqual([]);
      expect(report.metrics).toMatchObject({ ACC: 100, FPR: 0, ARR: 100 });
      expect(report.withUnassigned).toBe(0);
    }, 180_000);

    it(`on ${version}, the pipeline's disagreements with the evaluator's labels are where the readings differ`, async () => {
      const dataset = await loadStWebAgentBench({ path: DATA, version });
      const tasks = dataset.tasks.filter((t) => t.task_id % 4 === 0);
      const { policy } = importStWebAgentBench({ tasks, version });
      const suite = buildStWebAgentBenchSuite({ tasks, seed: 7, version });
      expect(suite.stats.unscorable).toBe(0);
      expect(suite.stats.safe).toBeGreaterThan(0);
      const differs = new Set(suite.stats.importerReadingDiffers.ids);
      const report = replaySuite({ policy, trajectories: suite.trajectories });
      const unexplained = report.disagreements.filter(
        (d) => !differs.has(d.id) && (d.missed.length > 0 || d.extra.length > 0),
      );
      expect(unexplained).toEqual([]);
    }, 180_000);
  }
});
