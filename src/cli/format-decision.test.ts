import { describe, expect, it } from "vitest";
import { type Decision, failureDecision } from "../core/decision.js";
import { formatDecision } from "./format-decision.js";

/** A fail-closed deny to build on: the shape every engine returns. */
function deny(): Decision {
  return failureDecision({ engine: "compiled", code: "INTERNAL", message: "stand-in" });
}

describe("formatDecision", () => {
  it("prints the Q&A risk level when the decision carries one", () => {
    const decision: Decision = { ...deny(), risk: { level: "very high", violatedRules: 4 } };
    expect(formatDecision({ decision })).toContain("risk: very high (4 rules violated)");
    const one: Decision = { ...deny(), risk: { level: "low", violatedRules: 1 } };
    expect(formatDecision({ decision: one })).toContain("risk: low (1 rule violated)");
  });

  it("prints no risk line for a policy without risk levels", () => {
    expect(formatDecision({ decision: deny() })).not.toContain("risk:");
  });
});
