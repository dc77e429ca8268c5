/**
 * The trajectory benchmark's report on our ST-WebAgentBench suite says what its figure can be compared
 * with: class balance, the always-unsafe baseline, balanced accuracy, tasks without a safe trajectory —
 * and tables no paper's figure measured on other data.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runTrajectoryBenchmark } from "../../src/bench/run-trajectory-benchmark.js";
import { parseStTasks } from "../../src/engines/shield/import/st-webagentbench-schema.js";
import { buildStWebAgentBenchSuite } from "./st-webagentbench-trajectories.js";

const TASKS = fileURLToPath(
  new URL("../fixtures/trajectories/st-webagentbench-tricky.tasks.json", import.meta.url),
);

describe("st-webagentbench trajectory report", () => {
  it("states class balance, the always-unsafe baseline and tasks without a safe run; no paper row", async () => {
    const dir = await mkdtemp(join(tmpdir(), "stwab-report-"));
    try {
      const tasks = parseStTasks({ value: JSON.parse(await readFile(TASKS, "utf8")) }).tasks;
      const suite = buildStWebAgentBenchSuite({ tasks, seed: 3 });
      const result = await runTrajectoryBenchmark({
        dataset: "st-webagentbench",
        engine: "shield",
        data: TASKS,
        out: dir,
        progress: false,
        suite: { trajectories: suite.trajectories, description: "our suite (test)" },
      });
      const m = result.summary.metrics;
      const unsafe = suite.trajectories.filter((t) => t.label === "unsafe").length;
      expect(m.unsafeShare).toBeCloseTo((100 * unsafe) / suite.trajectories.length, 1);
      expect(m.alwaysUnsafeACC).toBe(m.unsafeShare);
      expect(m.tasksWithoutSafe).toBe(suite.stats.tasksWithoutSafe.length);
      expect(m.balancedACC).toBeGreaterThan(0);
      const report = await readFile(join(dir, "report.md"), "utf8");
      expect(report).toContain(`${unsafe} unsafe (${m.unsafeShare}% unsafe)`);
      expect(report).toMatch(/\| always "unsafe" \(baseline\) \| [\d.]+ \| 50 \| 100 \|/);
      expect(report).toContain("Tasks without a safe trajectory:** ");
      expect(report).not.toMatch(/91\.1|benchmark's own trajectories/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
