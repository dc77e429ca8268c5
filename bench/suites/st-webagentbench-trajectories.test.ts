import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readTrajectoriesJsonl } from "../../src/bench/datasets/trajectories.js";
import { formatTrajectoriesJsonl, parseTrajectoriesJsonl } from "../../src/core/trajectory-record.js";
import { importStWebAgentBench } from "../../src/engines/shield/import/st-webagentbench.js";
import { parseStTasks } from "../../src/engines/shield/import/st-webagentbench-schema.js";
import { createRuleIndex, replaySuite, replayTrajectory } from "./policy-replay.js";
import { runStWebAgentBenchSuite } from "./st-webagentbench-run.js";
import { buildStWebAgentBenchSuite, ST_SUITE_NAME } from "./st-webagentbench-trajectories.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/trajectories/", import.meta.url));

async function fixtureTasks(): Promise<unknown> {
  return JSON.parse(await readFile(`${FIXTURES}st-webagentbench-tricky.tasks.json`, "utf8"));
}

describe("hand-written tricky trajectories", () => {
  it("the pipeline agrees with every hand label, at the labelled step", async () => {
    const { policy, report } = importStWebAgentBench({ tasks: await fixtureTasks(), version: "latest" });
    expect(report.failed).toBe(0);
    const { header, records } = await readTrajectoriesJsonl({
      path: `${FIXTURES}st-webagentbench-tricky.jsonl`,
    });
    expect(header?.suite).toBe("warden/st-webagentbench-tricky");
    expect(records.length).toBeGreaterThanOrEqual(25);
    const replay = replaySuite({ policy, trajectories: records });
    expect(replay.disagreements).toEqual([]);
    expect(replay.metrics).toMatchObject({ ACC: 100, FPR: 0, ARR: 100 });
    expect(records.filter((r) => r.label === "safe").length).toBeGreaterThanOrEqual(7);
  });

  it("a forbidden word on the page is not a click on it; asking after acting is not asking", async () => {
    const { policy } = importStWebAgentBench({ tasks: await fixtureTasks(), version: "latest" });
    const { records } = await readTrajectoriesJsonl({ path: `${FIXTURES}st-webagentbench-tricky.jsonl` });
    const index = createRuleIndex({ policy });
    const byId = (id: string) => replayTrajectory({ index, trajectory: records.find((r) => r.id === id)! });
    expect(byId("t9001-safe").violations).toEqual([]);
    expect(byId("t9001-asked-after-inviting").violations).toEqual([{ ruleId: "stwab.t9001.p2", step: 5 }]);
    expect(byId("t9002-code-typed-in-form").violations).toEqual([{ ruleId: "stwab.t9002.p0", step: 4 }]);
  });
});

describe("buildStWebAgentBenchSuite", () => {
  it("is deterministic, marked as our own suite, and (importer's reading) labelled by construction", async () => {
    const tasks = parseStTasks({ value: await fixtureTasks() }).tasks;
    const a = buildStWebAgentBenchSuite({ tasks, seed: 11, labels: "importer" });
    const b = buildStWebAgentBenchSuite({ tasks, seed: 11, labels: "importer" });
    expect(formatTrajectoriesJsonl({ records: a.trajectories })).toBe(
      formatTrajectoriesJsonl({ records: b.trajectories }),
    );
    expect(
      formatTrajectoriesJsonl({
        records: buildStWebAgentBenchSuite({ tasks, seed: 12, labels: "importer" }).trajectories,
      }),
    ).not.toBe(formatTrajectoriesJsonl({ records: a.trajectories }));
    expect(a.header).toMatchObject({ kind: "header", suite: ST_SUITE_NAME });
    expect(a.trajectories.every((t) => t.suite === ST_SUITE_NAME)).toBe(true);
    // Valid in the JSONL format.
    expect(
      parseTrajectoriesJsonl({ text: formatTrajectoriesJsonl({ header: a.header, records: a.trajectories }) })
        .records,
    ).toHaveLength(a.trajectories.length);
    // One safe run per task, one mutation per policy (plus a reported-error run where errors matter).
    expect(a.stats.tasksWithoutSafe).toEqual([]);
    expect(a.trajectories.filter((t) => t.id.endsWith("-safe")).every((t) => t.label === "safe")).toBe(true);
    for (const s of Object.values(a.stats.byEvalType)) expect(s.missed).toBe(0);
    const mutated = a.trajectories.filter((t) => /-p\d+$/.test(t.id));
    expect(mutated.every((t) => t.label === "unsafe")).toBe(true);
    expect(mutated.length).toBe(tasks.reduce((n, t) => n + t.policies.length, 0));
  });

  it("the replay pipeline agrees with the importer's reading", async () => {
    const raw = await fixtureTasks();
    const tasks = parseStTasks({ value: raw }).tasks;
    const { policy } = importStWebAgentBench({ tasks: raw, version: "latest" });
    for (const seed of [1, 2, 3]) {
      const suite = buildStWebAgentBenchSuite({ tasks, seed, labels: "importer" });
      const replay = replaySuite({ policy, trajectories: suite.trajectories });
      expect(replay.disagreements).toEqual([]);
      expect(replay.withUnassigned).toBe(0);
    }
  });

  it("labels by default as the benchmark's evaluators score the runs", async () => {
    const raw = await fixtureTasks();
    const tasks = parseStTasks({ value: raw }).tasks;
    const suite = buildStWebAgentBenchSuite({ tasks, seed: 11 });
    expect(suite.header.description).toMatch(/as the benchmark's evaluators would score them/);
    expect(suite.stats.unscorable).toBe(0);
    const byId = new Map(suite.trajectories.map((t) => [t.id, t]));
    // popup_error: the evaluator reads the final page. An error seen mid-run and gone is safe; one left on
    // the final page and unreported is not; reported close to the policy's words, it is safe again.
    const popup = tasks.flatMap((t) =>
      t.policies.filter((p) => p.eval.eval_types[0] === "popup_error").map((p) => ({ t, p })),
    );
    expect(popup.length).toBeGreaterThan(0);
    for (const { t, p } of popup) {
      expect(byId.get(`t${t.task_id}-error-recovered`)?.label).toBe("safe");
      expect(byId.get(`t${t.task_id}-p${p.index}`)?.label).toBe("unsafe");
      expect(byId.get(`t${t.task_id}-error-reported`)?.violations ?? []).not.toContainEqual(
        expect.objectContaining({ policyRef: { taskId: t.task_id, index: p.index } }),
      );
    }
    // Where the two readings differ is counted, per eval type, with the trajectory ids.
    expect(suite.stats.importerReadingDiffers.byEvalType.popup_error).toBeGreaterThan(0);
    expect(suite.stats.importerReadingDiffers.ids).toHaveLength(suite.stats.importerReadingDiffers.total);
  });

  it("balance adds re-planned safe runs until each task has as many safe runs as unsafe ones", async () => {
    const tasks = parseStTasks({ value: await fixtureTasks() }).tasks;
    const plain = buildStWebAgentBenchSuite({ tasks, seed: 5 });
    const balanced = buildStWebAgentBenchSuite({ tasks, seed: 5, balance: true });
    expect(plain.stats.balance).toBeUndefined();
    expect(balanced.stats.balance!.added).toBeGreaterThan(0);
    expect(balanced.stats.safe).toBe(plain.stats.safe + balanced.stats.balance!.added);
    for (const t of tasks) {
      const runs = balanced.trajectories.filter((r) => r.taskId === t.task_id);
      const safe = runs.filter((r) => r.label === "safe").length;
      if (balanced.stats.balance!.shortfall === 0) expect(safe).toBe(runs.length - safe);
      expect(runs.filter((r) => /-safe-\d+$/.test(r.id)).every((r) => r.label === "safe")).toBe(true);
    }
  });

  it("every pipeline disagreement with the evaluator's labels is a run where the readings differ", async () => {
    const raw = await fixtureTasks();
    const tasks = parseStTasks({ value: raw }).tasks;
    const { policy } = importStWebAgentBench({ tasks: raw, version: "latest" });
    for (const seed of [1, 2]) {
      const suite = buildStWebAgentBenchSuite({ tasks, seed });
      const differs = new Set(suite.stats.importerReadingDiffers.ids);
      const replay = replaySuite({ policy, trajectories: suite.trajectories });
      const unexplained = replay.disagreements.filter(
        (d) => !differs.has(d.id) && (d.missed.length > 0 || d.extra.length > 0),
      );
      expect(unexplained).toEqual([]);
    }
  });
});

describe("runStWebAgentBenchSuite", () => {
  it("loads, imports, builds, writes and replays in one call", async () => {
    const dir = await mkdtemp(join(tmpdir(), "stwab-run-"));
    try {
      const outFile = join(dir, "suite.jsonl");
      const run = await runStWebAgentBenchSuite({
        path: `${FIXTURES}st-webagentbench-tricky.tasks.json`,
        version: "latest",
        seed: 5,
        outFile,
      });
      expect(run.importReport).toMatchObject({ total: 18, compiled: 18 });
      expect(run.replay.metrics.n).toBe(run.suite.trajectories);
      expect(run.suite.safe + run.suite.unsafe).toBe(run.suite.trajectories);
      const { header, records } = await readTrajectoriesJsonl({ path: outFile });
      expect(header?.suite).toBe(ST_SUITE_NAME);
      expect(records).toHaveLength(run.suite.trajectories);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
