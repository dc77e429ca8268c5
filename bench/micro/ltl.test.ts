import { describe, expect, it } from "vitest";
import { parseLtl } from "../../src/engines/shield/ltl/index.js";
import { benchLtl, TYPICAL_RULES } from "./ltl.js";

describe("benchLtl (small run)", () => {
  it("has 50 rules that all parse", () => {
    expect(TYPICAL_RULES).toHaveLength(50);
    for (const formula of TYPICAL_RULES) expect(() => parseLtl({ formula })).not.toThrow();
  });

  it("reports full agreement and the per-step figures", async () => {
    const result = await benchLtl({ pairs: 300, steps: 120, runs: 1, seed: 7 });
    expect(result.agreementPairs).toBe(300);
    expect(result.agreementFailures).toBe(0);
    expect(result.firstFailure).toBeUndefined();
    expect(result.agreementChecks).toBeGreaterThan(300);
    expect(result.rules).toBe(50);
    expect(result.flatPerStep.steps).toBe(120);
    expect(result.monitorStepP95Us).toBeGreaterThanOrEqual(result.monitorStepP50Us);
    expect(result.maxLiveNodes).toBeGreaterThan(0);
  });
});
