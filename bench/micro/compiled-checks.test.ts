import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { benchCompiledChecks, DEFAULT_EICU_AC_DIR } from "./compiled-checks.js";

const present = existsSync(join(DEFAULT_EICU_AC_DIR, "eicu_ac.json"));

describe.skipIf(!present)(
  `benchCompiledChecks (small run)${present ? "" : ` (skipped: no EICU-AC data at ${DEFAULT_EICU_AC_DIR})`}`,
  () => {
    it("checks every record again and again with the same decisions, and reports the figures", async () => {
      const result = await benchCompiledChecks({ seconds: 0.2, stages: true });
      expect(result.name).toBe("compiled-checks");
      expect(result.records).toBeGreaterThan(100);
      expect(result.identicalDecisions).toBe(true);
      expect(result.firstMismatch).toBeUndefined();
      expect(result.checks % result.records).toBe(0);
      expect(result.checks).toBeGreaterThanOrEqual(result.records);
      expect(Object.values(result.verdicts).reduce((a, b) => a + b, 0)).toBe(result.records);
      expect(result.checksPerSecondPerCore).toBe(result.checksPerSecond);
      expect(result.usPerCheck.p95).toBeGreaterThanOrEqual(result.usPerCheck.p50);
      // Latency is sampled on its own passes (every 8th), apart from the throughput passes.
      expect(result.sampledChecks).toBeGreaterThanOrEqual(result.records);
      expect(result.sampledChecks % result.records).toBe(0);
      expect(result.usPerCheck.mean).toBeGreaterThan(0);
      // The headline is the mean over the throughput passes: never faster than the fastest of them.
      expect(result.meanPassUsPerCheck).toBeGreaterThanOrEqual(result.bestPassUsPerCheck);
      expect(Math.abs((result.checksPerSecond * result.meanPassUsPerCheck) / 1e6 - 1)).toBeLessThan(0.01);
      expect(result.bestPassUsPerCheck).toBeGreaterThan(0);
      expect(result.stages?.extraction).toBeGreaterThan(0);
    }, 60_000);
  },
);

describe("benchCompiledChecks options", () => {
  it("names a missing data directory", async () => {
    await expect(benchCompiledChecks({ data: "/nonexistent/eicu-ac", seconds: 0.1 })).rejects.toThrow(
      /no EICU-AC data at \/nonexistent\/eicu-ac/,
    );
  });

  it("rejects a bad option by its field", async () => {
    await expect(benchCompiledChecks({ seconds: -1 })).rejects.toThrow(/seconds/);
  });
});
