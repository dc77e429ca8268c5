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
  for (const [version, total, compiled] of [
    ["latest", 3057, 3057],
    ["v1", 1847, 1842],
  ] as const) {
    it(`compiles the ${version} release: ${compiled} of ${total} policies, the rest explained`, async () => {
      const dataset = await loadStWebAgentBench({ path: DATA, version });
      expect(dataset.malformed).toEqual([]);
      const { policy, report } = importStWebAgentBench({ tasks: dataset.tasks, version });
      expect(report.total).toBe(total);
      expect(report.compiled + report.failed).toBe(report.total);
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
      expect(rules).toHaveLength(compiled);
      for (const r of rules) parseLtl({ formula: r.formula });
      expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
    });
  }

  it("explains the v1 policies it cannot compile: a bare CSS locator the benchmark itself rejects", async () => {
    const dataset = await loadStWebAgentBench({ path: DATA, version: "v1" });
    const { report } = importStWebAgentBench({ tasks: dataset.tasks, version: "v1" });
    expect(new Set(report.failures.map((f) => f.evalType))).toEqual(new Set(["is_program_html"]));
    for (const f of report.failures)
      expect(f.reason).toMatch(/neither a document\.\* expression, an XPath nor func:/);
  });
});
