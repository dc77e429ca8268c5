import { describe, expect, it } from "vitest";
import { headlineMarkdown } from "./headline.js";

describe("headlineMarkdown", () => {
  it("puts each goal beside its measured figure and says whether it is met", () => {
    const text = headlineMarkdown({
      results: {
        "dataset:eicu-ac:compiled": {
          n: 227,
          metrics: { LPA: 98.68, LPP: 100, LPR: 97.41, CCA: 95.69, FRA: 98.2 },
          cost: { msPerCheck: { p50: 0.04, p95: 0.5 } },
        },
        "micro:retrieval": {
          n: 10000,
          p50Ms: 15.8,
          p95Ms: 80,
          exhaustiveMs: 7900,
          identicalToExhaustive: true,
        },
        "micro:sandbox-throughput": { runsPerSecondPerCore: 999, p50Ms: 0.8 },
        "micro:compiled-checks": {
          checksPerSecondPerCore: 108000,
          identicalDecisions: true,
          usPerCheck: { p50: 6 },
        },
        "micro:ltl": { agreementPairs: 100000, agreementFailures: 0 },
      },
    }).join("\n");
    expect(text).toContain(
      "| EICU-AC (real EHRAgent logs) | compiled | 227 | 98.7 | 100 | 97.4 | 95.7 | 98.2 |",
    );
    expect(text).toMatch(/retrieval .*p50 15\.80 ms.*\| met \|/);
    expect(text).toMatch(/sandbox .*999 runs\/s.*\*\*not met\*\*/);
    expect(text).toMatch(/compiled engine .*108000 checks\/s.*\| met \|/);
    expect(text).toMatch(/LTLf .*100000 pairs, 0 disagreements \| met \|/);
  });

  it("shows warden serve beside its Hono floor: the ratio, both rates and the p99", () => {
    const serve = (ratio: number, p99Ms: number) =>
      headlineMarkdown({
        results: {
          "micro:serve": {
            connections: 50,
            ratio: { median: ratio, min: ratio - 0.02, max: ratio + 0.01 },
            cpuRatio: 0.8,
            hono: { requestsPerSecond: 5000, p99Ms: 20 },
            wardenMedian: { requestsPerSecond: 5000 * ratio, p50Ms: 9, p99Ms },
            failures: 0,
          },
        },
      }).join("\n");
    expect(serve(0.9, 21)).toMatch(
      /warden serve.*0\.90 \(rounds 0\.88–0\.91\): 4500 vs 5000 req\/s \(CPU per request: floor\/Warden 0\.80\); p99 21 ms.*\| met \|/,
    );
    expect(serve(0.9, 30)).toMatch(/warden serve.*\*\*not met\*\*/);
    expect(serve(0.6, 20)).toMatch(/warden serve.*\*\*not met\*\*/);
    expect(headlineMarkdown({ results: {} }).join("\n")).toMatch(/warden serve.*did not run/);
  });

  it("judges no goal on a quick run", () => {
    const text = headlineMarkdown({
      results: { "micro:sandbox-throughput": { runsPerSecondPerCore: 5000, p50Ms: 0.2 } },
      quick: true,
    }).join("\n");
    expect(text).toMatch(/sandbox .*5000 runs\/s.*quick run: not judged/);
  });

  it("says a benchmark did not run, and why, instead of showing a number", () => {
    const text = headlineMarkdown({ results: { "micro:shield": { error: "boom" } } }).join("\n");
    expect(text).toMatch(/shield verification .*did not run: boom/);
    expect(text).toMatch(/EICU-AC \(real EHRAgent logs\) \| compiled \| did not run/);
  });

  it("puts warden check's cold start beside node -e 0, from the build and from a checkout", () => {
    const text = headlineMarkdown({
      results: {
        "micro:cold-start": {
          runs: 15,
          floor: { wallMs: { p50: 40, p90: 45 } },
          installed: { wallMs: { p50: 90, p90: 95 }, peakRssMb: { p50: 60, max: 61 } },
          checkout: { wallMs: { p50: 120, p90: 130 }, peakRssMb: { p50: 62, max: 63 } },
          ratio: { installed: 2.25, checkout: 3 },
          goals: { installedMet: true, checkoutMet: false },
        },
      },
    }).join("\n");
    expect(text).toMatch(/from the build .*median 90 ms vs `node -e 0` 40 ms \(2\.25×\).*61 MB.*\| met \|/);
    expect(text).toMatch(/from a checkout .*median 120 ms .*\(3×\).*\*\*not met\*\*/);
    expect(headlineMarkdown({ results: {} }).join("\n")).toMatch(
      /`warden check` on a compiled policy .*did not run/,
    );
  });

  it("shows the weights ablation (trained vs all 1 on the held-out split) or why it did not run", () => {
    const key = "ablation:st-webagentbench(our trajectory suite):shield weights";
    const metrics = (fp: number) => ({
      n: 10,
      ACC: 100 - 10 * fp,
      FPR: 50 * fp,
      ARR: 100,
      counts: { tp: 8, fp, tn: 2 - fp, fn: 0 },
    });
    const ablation = {
      suite: "our suite",
      seed: 1,
      holdoutShare: 0.3,
      split: { train: { n: 20, safe: 4, unsafe: 16 }, holdout: { n: 10, safe: 2, unsafe: 8 } },
      training: {
        examples: { total: 60, learnable: 30, safe: 40, unsafe: 20 },
        epochs: 12,
        loss: { first: 0.5, last: 0.1 },
        accuracy: { first: 0.9, last: 1 },
        rules: 3,
        changed: { total: 1, toZero: 1, lowered: 0, raised: 0 },
        histogram: { zero: 1, belowOne: 0, one: 2, aboveOne: 0 },
      },
      scores: [
        { weights: "uniform", epsilon: 0, metrics: metrics(1) },
        { weights: "trained", epsilon: 0, metrics: metrics(0) },
      ],
      flips: [{ id: "t1", label: "safe", epsilon: 0, uniform: true, trained: false, rules: { r1: [1, 0] } }],
      ms: { train: 1, score: 1 },
    };
    const text = headlineMarkdown({ results: { [key]: ablation } }).join("\n");
    expect(text).toContain("## Weights that matter");
    expect(text).toContain("| all 1 | 0 | 90.0 | 50.0 | 100.0 | 8 | 1 | 1 | 0 |");
    expect(text).toContain("| trained | 0 | 100.0 | 0.0 | 100.0 | 8 | 0 | 2 | 0 |");
    expect(text).toContain("| t1 | safe | 0 | unsafe | safe | r1 1→0 |");
    expect(headlineMarkdown({ results: { [key]: { error: "no data" } } }).join("\n")).toContain(
      "did not run: no data",
    );
  });

  it("shows the Q&A per-level recall as a scripted-model pipeline check, or why it did not run", () => {
    const key = "dataset:qa(our pseudo-rule records, scripted model):guardagent";
    const summary = {
      n: 6,
      metrics: { LPA: 100, CCA: 100 },
      cost: { llmCallsPerCheck: 2 },
      riskRecall: {
        none: { n: 3, correct: 3, recall: 100 },
        low: { n: 2, correct: 1, recall: 50 },
        "very high": { n: 1, correct: 1, recall: 100 },
      },
    };
    const text = headlineMarkdown({ results: { [key]: summary } }).join("\n");
    expect(text).toContain("## Q&A risk levels (GuardAgent App. N)");
    expect(text).toContain("not what a model achieves");
    expect(text).toContain("| | none | low | very high |");
    expect(text).toContain("| recall | 3/3 | 1/2 | 1/1 |");
    expect(headlineMarkdown({ results: { [key]: { error: "boom" } } }).join("\n")).toContain(
      "did not run: boom",
    );
  });
});
