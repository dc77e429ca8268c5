/**
 * The shield engine on our generated ST-WebAgentBench trajectory suite over the real tasks (when the
 * shared dataset is present; every eighth task keeps the run short — the bench script covers all).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadStWebAgentBench } from "../../src/bench/datasets/st-webagentbench.js";
import { importStWebAgentBench } from "../../src/engines/shield/import/st-webagentbench.js";
import { createShieldEngine } from "../../src/engines/shield/runtime/shield-engine.js";
import { evaluateShield } from "../../test/support/shield-evaluation.js";
import { buildStWebAgentBenchSuite } from "./st-webagentbench-trajectories.js";

const DATA = fileURLToPath(new URL("../../../shared/datasets/st-webagentbench", import.meta.url));
const present = existsSync(DATA);
const title = present
  ? "shield engine on the ST-WebAgentBench trajectory suite (real tasks)"
  : `shield engine on the ST-WebAgentBench trajectory suite — skipped: no dataset at ${DATA}`;

describe.skipIf(!present)(title, () => {
  for (const version of ["latest", "v1"] as const) {
    it(`agrees with the importer's reading on ${version} (every eighth task)`, async () => {
      const dataset = await loadStWebAgentBench({ path: DATA, version });
      const tasks = dataset.tasks.filter((t) => t.task_id % 8 === 0);
      const { policy } = importStWebAgentBench({ tasks, version });
      const suite = buildStWebAgentBenchSuite({ tasks, seed: 7, version, labels: "importer" });
      const report = await evaluateShield({
        engine: createShieldEngine(),
        policy,
        trajectories: suite.trajectories,
      });
      expect(report.disagreements).toEqual([]);
      expect(report.metrics).toMatchObject({ ACC: 100, FPR: 0, ARR: 100 });
    });
  }
});
