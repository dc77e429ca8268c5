import { describe, expect, it } from "vitest";
import { benchServe, subjectBodies } from "./serve.js";

describe("benchServe (tiny run)", () => {
  it("drives the bare Hono floor and Warden with the same mix and reports both, the ratio and the goals", async () => {
    const result = await benchServe({ seconds: 0.5, warmupSeconds: 0, rounds: 2, connections: 4 });
    expect(result.name).toBe("serve");
    expect(result.rounds).toHaveLength(2);
    expect(result.rounds.map((r) => r.first)).toEqual(["hono", "warden"]);
    for (const round of result.rounds) {
      expect(round.hono.requests).toBeGreaterThan(0);
      expect(round.warden.requests).toBeGreaterThan(0);
      expect(round.ratio).toBeGreaterThan(0);
      if (process.platform === "linux") expect(round.warden.cpuUsPerRequest).toBeGreaterThan(0);
    }
    expect(result.failures).toBe(0);
    expect(result.ratio.min).toBeLessThanOrEqual(result.ratio.median);
    expect(result.ratio.max).toBeGreaterThanOrEqual(result.ratio.median);
    // Every body of the mix is a check Warden decides with the compiled policy, each verdict represented.
    expect(result.verdicts).toHaveLength(subjectBodies({ policy: "mcp-tools" }).length);
    expect(new Set(result.verdicts)).toEqual(new Set(["allow", "deny", "ask"]));
    expect(typeof result.goals.ratioAtLeast085).toBe("boolean");
    expect(typeof result.goals.p99AtMost25Ms).toBe("boolean");
  }, 120_000);

  it("rejects a bad option by its field", async () => {
    await expect(benchServe({ connections: 0 })).rejects.toThrow(/connections/);
  });
});
