import { describe, expect, it } from "vitest";
import { benchSandboxThroughput } from "./sandbox-throughput.js";

describe("sandbox throughput benchmark", () => {
  it("runs the typical guardrail program and reports its numbers", async () => {
    const result = await benchSandboxThroughput({ runs: 60, workers: 1 });
    expect(result).toMatchObject({ name: "sandbox-throughput", runs: 60, workers: 1 });
    for (const key of [
      "runsPerSecond",
      "runsPerSecondPerCore",
      "p50Ms",
      "p95Ms",
      "insideP50Ms",
      "cpuMsPerRun",
    ] as const) {
      expect(result[key]).toBeGreaterThan(0);
    }
    expect(result.p95Ms).toBeGreaterThanOrEqual(result.p50Ms);
  });
});
