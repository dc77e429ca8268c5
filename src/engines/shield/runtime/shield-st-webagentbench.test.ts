/**
 * The shield engine on our hand-written ST-WebAgentBench-style fixtures (bench/fixtures/trajectories):
 * every label, every violated rule and the step where it shows must match, like the reference replay.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { replaySuite } from "../../../../bench/suites/policy-replay.js";
import { evaluateShield } from "../../../../test/support/shield-evaluation.js";
import { parseTrajectoriesJsonl } from "../../../core/trajectory-record.js";
import { importStWebAgentBench } from "../import/st-webagentbench.js";
import { createShieldEngine } from "./shield-engine.js";

const FIXTURES = fileURLToPath(new URL("../../../../bench/fixtures/trajectories/", import.meta.url));

describe("shield engine on the hand-written tricky trajectories", () => {
  it("agrees with every hand label, rule and step (ACC 100, FPR 0, ARR 100)", async () => {
    const tasks = JSON.parse(await readFile(`${FIXTURES}st-webagentbench-tricky.tasks.json`, "utf8"));
    const { policy } = importStWebAgentBench({ tasks, version: "latest" });
    const { records } = parseTrajectoriesJsonl({
      text: await readFile(`${FIXTURES}st-webagentbench-tricky.jsonl`, "utf8"),
    });
    const report = await evaluateShield({ engine: createShieldEngine(), policy, trajectories: records });
    expect(report.disagreements).toEqual([]);
    expect(report.metrics).toMatchObject({ ACC: 100, FPR: 0, ARR: 100 });
    // At least as good as the hard-rule replay on the same records.
    const replay = replaySuite({ policy, trajectories: records });
    expect(report.metrics.ACC).toBeGreaterThanOrEqual(replay.metrics.ACC);
    expect(report.metrics.ARR).toBeGreaterThanOrEqual(replay.metrics.ARR);
  });
});
