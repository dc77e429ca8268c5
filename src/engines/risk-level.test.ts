import { describe, expect, it } from "vitest";
import { failureDecision } from "../core/decision.js";
import { type Policy, PolicySchema } from "../core/policy.js";
import { toolCallSubject } from "../core/tool-call.js";
import { createEngine } from "../runtime/create-engine.js";
import type { Engine } from "./engine.js";
import { addRiskLevel, withRiskLevel } from "./risk-level.js";

const rules = {
  toolRules: [
    { id: "no-delete", tool: "repo.delete", effect: "deny", message: "never delete" },
    {
      id: "no-delete-main",
      tool: "repo.delete",
      effect: "deny",
      message: "never delete main",
      when: { field: "args.branch", op: "eq", value: "main" },
    },
  ],
  toolDefault: "allow",
};
const withRisk: Policy = PolicySchema.parse({
  name: "p",
  specification: "",
  requests: "",
  rules,
  risk: "violated-rules",
});
const withoutRisk: Policy = PolicySchema.parse({ name: "p", specification: "", requests: "", rules });

const call = (name: string, args: Record<string, unknown>) => toolCallSubject({ tool: name, args });

describe("risk level on every engine's Decision (GuardAgent App. N)", () => {
  it("counts the rules a compiled check finds violated, through createEngine", async () => {
    const handle = await createEngine({ engine: "compiled", checkWorkers: 0 });
    try {
      const check = (policy: Policy, subject: ReturnType<typeof call>) =>
        handle.engine.check({ policy, subject });
      const main = await check(withRisk, call("repo.delete", { branch: "main" }));
      expect(main.allowed).toBe(false);
      expect(main.risk?.violatedRules).toBe(new Set(main.violations.map((v) => v.ruleId)).size);
      expect((await check(withRisk, call("repo.delete", { branch: "dev" }))).risk).toEqual({
        level: "low",
        violatedRules: 1,
      });
      expect((await check(withRisk, call("repo.read", {}))).risk).toEqual({
        level: "none",
        violatedRules: 0,
      });
      // A policy that does not ask for it gets no risk field: every other Decision is unchanged.
      expect((await check(withoutRisk, call("repo.delete", { branch: "main" }))).risk).toBeUndefined();
    } finally {
      await handle.close();
    }
  });

  it("gives no risk to a decision reached without evaluating the policy (it still denies)", () => {
    const failed = failureDecision({ engine: "e", code: "MODEL_UNAVAILABLE", message: "down" });
    const d = addRiskLevel({ policy: withRisk, decision: failed });
    expect(d.risk).toBeUndefined();
    expect(d.allowed).toBe(false);
  });

  it("keeps the engine's other members", async () => {
    const inner = {
      name: "x",
      extra: () => 42,
      check: async () => failureDecision({ engine: "x", code: "INTERNAL", message: "m" }),
    } satisfies Engine & { extra: () => number };
    const wrapped = withRiskLevel({ engine: inner });
    expect(wrapped.name).toBe("x");
    expect(wrapped.extra()).toBe(42);
  });
});
