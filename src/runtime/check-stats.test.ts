import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allowDecision, type Decision, denyDecision, failureDecision } from "../core/decision.js";
import { createCheckStats } from "./check-stats.js";

const decisionOf = (kind: "allow" | "deny" | "ask" | "fail", llmCalls: number): Decision => {
  const cost = { llmCalls, inputTokens: 2 * llmCalls, outputTokens: llmCalls, ms: 1 };
  if (kind === "allow") return allowDecision({ engine: "e", output: null, cost });
  if (kind === "fail")
    return failureDecision({ engine: "e", code: "MODEL_UNAVAILABLE", message: "down", cost });
  return denyDecision({ engine: "e", violations: [], verdict: kind, cost });
};

describe("createCheckStats", () => {
  it("adds up verdicts, policies, failures and model calls", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            kind: fc.constantFrom("allow", "deny", "ask", "fail" as const),
            policy: fc.constantFrom("a", "b"),
            calls: fc.nat(5),
            ms: fc.double({ min: 0, max: 100, noNaN: true }),
          }),
          { maxLength: 40 },
        ),
        (records) => {
          const stats = createCheckStats({ now: () => 0 });
          for (const r of records)
            stats.recordDecision({ policy: r.policy, decision: decisionOf(r.kind, r.calls), ms: r.ms });
          const s = stats.snapshot();
          expect(s.checks.total).toBe(records.length);
          expect(s.checks.allow + s.checks.deny + s.checks.ask).toBe(records.length);
          expect(s.checks.failures).toBe(records.filter((r) => r.kind === "fail").length);
          expect(s.checks.ask).toBe(records.filter((r) => r.kind === "ask").length);
          const perPolicy = Object.values(s.byPolicy).reduce((n, c) => n + c.total, 0);
          expect(perPolicy).toBe(records.length);
          expect(s.llm.calls).toBe(records.reduce((n, r) => n + r.calls, 0));
          expect(s.llm.inputTokens).toBe(2 * s.llm.calls);
          expect(s.checks.maxMs).toBe(records.reduce((m, r) => Math.max(m, r.ms), 0));
          expect(s.model).toBeNull();
        },
      ),
    );
  });

  it("counts errors by code", () => {
    const stats = createCheckStats();
    stats.recordError({ code: "POLICY_NOT_FOUND" });
    stats.recordError({ code: "POLICY_NOT_FOUND" });
    stats.recordError({ code: "MODEL_CONFIG" });
    expect(stats.snapshot().errors).toEqual({ total: 3, byCode: { POLICY_NOT_FOUND: 2, MODEL_CONFIG: 1 } });
  });
});
