import { describe, expect, it } from "vitest";
import { benchRetrieval } from "./retrieval.js";

describe("benchRetrieval (small run)", () => {
  it("times the index and finds it identical to the exhaustive scan", async () => {
    const result = await benchRetrieval({ n: 150, k: 3, queries: 6, seed: 4 });
    expect(result).toMatchObject({ name: "retrieval", n: 150, k: 3, queries: 6, order: "most" });
    expect(result.identicalToExhaustive).toBe(true);
    expect(result.mismatches).toBe(0);
    expect(result.p95Ms).toBeGreaterThanOrEqual(result.p50Ms);
    expect(result.meanExactComputations).toBeGreaterThan(0);
    expect(result.meanExactComputations).toBeLessThanOrEqual(150);
    expect(result.meanChars).toBeGreaterThan(1000);
  });

  it("checks the 'least' ablation the same way", async () => {
    const result = await benchRetrieval({ n: 60, k: 1, queries: 2, order: "least", seed: 5 });
    expect(result.identicalToExhaustive).toBe(true);
  });
});
