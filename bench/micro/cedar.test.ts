import { describe, expect, it } from "vitest";
import { benchCedar, REQUESTS } from "./cedar.js";

describe("benchCedar (small run)", () => {
  it("gets the same verdict from Warden and Cedar on every request, then times both", async () => {
    const result = await benchCedar({ passes: 2, rounds: 2 });
    expect(result.name).toBe("cedar");
    expect(result.mismatches).toEqual([]);
    expect(result.sameDecisions).toBe(true);
    expect(result.requests).toBe(REQUESTS.length);
    // The requests cover every verdict, and the counts are the expected ones.
    for (const verdict of ["allow", "ask", "deny"] as const) {
      expect(result.verdicts[verdict]).toBe(REQUESTS.filter((r) => r.expected === verdict).length);
      expect(result.verdicts[verdict]).toBeGreaterThan(0);
    }
    for (const us of Object.values(result.usPerDecision)) expect(us).toBeGreaterThan(0);
    expect(result.cedarOverWardenGuard).toBeCloseTo(
      result.usPerDecision.cedarPreparsed / result.usPerDecision.wardenGuard,
      1,
    );
    expect(result.cedarVersion).toMatch(/^\d+\.\d+/);
  }, 120_000);

  it("refuses options out of range", async () => {
    await expect(benchCedar({ passes: 0 })).rejects.toThrow(/passes/);
  });
});
