/**
 * Imports the real ST-WebAgentBench files (both releases) when the shared dataset folder is present:
 * every policy is compiled or individually explained, and the counts add up.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadStWebAgentBench } from "../../../bench/datasets/st-webagentbench.js";
import { parseLtl } from "../ltl/index.js";
import { importStWebAgentBench } from "./st-webagentbench.js";

const DATA = fileURLToPath(new URL("../../../../../shared/datasets/st-webagentbench", import.meta.url));
const present = existsSync(DATA);
const title = present
  ? "ST-WebAgentBench import (real data)"
  : `ST-WebAgentBench import — skipped: no dataset at ${DATA}`;

describe.skipIf(!present)(title, () => {
  // latest: 22 program_html policies leave check_absence to the default although the task or their own
  // text asks for the state it forbids (skipped, listed); v1: 350 is_fake_policy decoys, 5 failures.
  for (const [version, total, compiled, inverted, decoys] of [
    ["latest", 3057, 3035, 22, 0],
    ["v1", 1847, 1492, 0, 350],
  ] as const) {
    it(`compiles the ${version} release: ${compiled} of ${total} policies, the rest explained`, async () => {
      const dataset = await loadStWebAgentBench({ path: DATA, version });
      expect(dataset.malformed).toEqual([]);
      const { policy, report } = importStWebAgentBench({ tasks: dataset.tasks, version });
      expect(report.total).toBe(total);
      expect(report.compiled + report.failed + report.skipped + report.decoys.count).toBe(report.total);
      expect(report.inverted.count).toBe(inverted);
      expect(report.skipped).toBe(inverted);
      expect(report.decoys.count).toBe(decoys);
      const byType = Object.values(report.byEvalType);
      expect(byType.reduce((n, c) => n + c.total, 0)).toBe(total);
      expect(byType.reduce((n, c) => n + c.compiled, 0)).toBe(report.compiled);
      expect(report.failures).toHaveLength(report.failed);
      for (const f of report.failures) expect(f.reason.length).toBeGreaterThan(20);
      if (report.failures.length > 0) {
        process.stderr.write(
          `${version}: ${report.failures.length} policies not compiled:\n${report.failures.map((f) => `  task ${f.taskId} policy ${f.index} (${f.evalType}): ${f.reason}`).join("\n")}\n`,
        );
      }
      expect(report.compiled).toBe(compiled);
      const rules = policy.rules!.temporalRules!;
      expect(rules).toHaveLength(compiled + decoys);
      for (const r of rules) parseLtl({ formula: r.formula });
      expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
    });
  }

  it("flags the latest release's inverted policies (t286.p15, t260.p10 among them); compiles them on request", async () => {
    const dataset = await loadStWebAgentBench({ path: DATA, version: "latest" });
    const { report } = importStWebAgentBench({ tasks: dataset.tasks, version: "latest" });
    expect(report.inverted.ids).toContain("stwab.t286.p15");
    expect(report.inverted.ids).toContain("stwab.t260.p10");
    for (const p of report.inverted.policies)
      expect(p.reason).toMatch(/check_absence is left to the evaluator's default/);
    const faithful = importStWebAgentBench({
      tasks: dataset.tasks,
      version: "latest",
      inverted: "evaluator",
    });
    expect(faithful.report).toMatchObject({ compiled: 3057, skipped: 0, inverted: { count: 22 } });
  });

  it("explains the v1 policies it cannot compile: a bare CSS locator the benchmark itself rejects", async () => {
    const dataset = await loadStWebAgentBench({ path: DATA, version: "v1" });
    const { report } = importStWebAgentBench({ tasks: dataset.tasks, version: "v1" });
    expect(new Set(report.failures.map((f) => f.evalType))).toEqual(new Set(["is_program_html"]));
    for (const f of report.failures)
      expect(f.reason).toMatch(/neither a document\.\* expression, an XPath nor func:/);
  });
});
