import { describe, expect, it } from "vitest";
import { buildCircuits } from "../../src/engines/shield/circuits/build-circuits.js";
import { benchShield, circuitPolicy } from "./shield.js";

describe("benchShield (small run)", () => {
  it("builds circuits of the requested size", () => {
    const policy = circuitPolicy({ size: 50 });
    expect(policy.rules!.temporalRules).toHaveLength(50);
    const act = buildCircuits({ policy }).find((c) => c.action === "act");
    expect(act?.rules).toHaveLength(50);
  });

  it("reports per-step figures for each circuit size and the circuit-building time", async () => {
    const r = await benchShield({
      steps: 120,
      runs: 1,
      sizes: [5, 20],
      circuitBuild: { predicates: 60, rules: 200 },
    });
    expect(r.circuits.map((c) => c.rules)).toEqual([5, 20]);
    for (const c of r.circuits) {
      expect(c.stepP95Ms).toBeGreaterThanOrEqual(c.stepP50Ms);
      expect(c.firstHundredMs).toBeGreaterThan(0);
      expect(c.check.stepP50Ms).toBeGreaterThan(0);
    }
    expect(r.circuitBuild).toMatchObject({ predicates: 60, rules: 200 });
    expect(r.circuitBuild.circuits).toBeGreaterThan(0);
    expect(typeof r.goals.flat).toBe("boolean");
  });
});
