import { describe, expect, it } from "vitest";
import { DecisionSchema } from "./decision.js";
import { RISK_LEVELS, riskLevel, riskOf } from "./risk.js";

describe("risk levels (GuardAgent App. N)", () => {
  it("maps the count of violated rules to no / low / medium / high / very high risk", () => {
    expect([0, 1, 2, 3, 4].map((violatedRules) => riskLevel({ violatedRules }))).toEqual([...RISK_LEVELS]);
    expect(RISK_LEVELS).toEqual(["none", "low", "medium", "high", "very high"]);
  });

  it("reads more than four as very high, never as less risk", () => {
    expect(riskLevel({ violatedRules: 5 })).toBe("very high");
    expect(riskLevel({ violatedRules: 40 })).toBe("very high");
  });

  it("counts distinct rules, and a refusal naming no rule as one", () => {
    const v = (ruleId: string) => ({ ruleId, message: ruleId });
    expect(riskOf({ allowed: false, violations: [v("r1"), v("r2"), v("r1")] })).toEqual({
      level: "medium",
      violatedRules: 2,
    });
    expect(riskOf({ allowed: false, violations: [] })).toEqual({ level: "low", violatedRules: 1 });
    expect(riskOf({ allowed: true, violations: [] })).toEqual({ level: "none", violatedRules: 0 });
  });

  it("is an optional field of the Decision", () => {
    const base = {
      allowed: false,
      label: 1,
      verdict: "deny",
      violations: [],
      explanation: "x",
      output: null,
      engine: "e",
      cost: { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 },
    };
    expect(DecisionSchema.parse(base).risk).toBeUndefined();
    expect(DecisionSchema.parse({ ...base, risk: { level: "very high", violatedRules: 4 } }).risk).toEqual({
      level: "very high",
      violatedRules: 4,
    });
    expect(() => DecisionSchema.parse({ ...base, risk: { level: "extreme", violatedRules: 9 } })).toThrow();
  });
});
