import { describe, expect, it } from "vitest";
import { allowDecision, type Decision, denyDecision, failureDecision } from "../core/decision.js";
import { WardenError } from "../core/errors.js";
import { PolicySchema } from "../core/policy.js";
import { withDeterministicFloor } from "./deterministic-floor.js";
import type { Engine } from "./engine.js";

const policy = PolicySchema.parse({ name: "p", specification: "", requests: "" });
const subject = { input: "i", output: "o" };
const engine = (name: string, decide: () => Decision | Promise<Decision>): Engine => ({
  name,
  check: async () => decide(),
});
const allow = (name: string) =>
  allowDecision({ engine: name, output: "o", trace: { attempts: [], code: "x" } });
const deny = (name: string, verdict: "deny" | "ask" = "deny") =>
  denyDecision({ engine: name, verdict, violations: [{ ruleId: "r1", message: "no" }] });
const undetermined = () =>
  failureDecision({ engine: "compiled", code: "EXTRACTION_FAILED", message: "could not determine x" });

describe("withDeterministicFloor", () => {
  it("keeps a determined compiled ask over a model allow, with both views", async () => {
    const floor = withDeterministicFloor({
      engine: engine("guardagent", () => allow("guardagent")),
      compiled: engine("compiled", () => deny("compiled", "ask")),
    });
    const d = await floor.check({ policy, subject });
    expect(d).toMatchObject({
      allowed: false,
      verdict: "ask",
      engine: "guardagent",
      violations: [{ ruleId: "r1" }],
    });
    expect(d.views).toMatchObject({
      decidedBy: "compiled",
      compiled: { verdict: "ask" },
      model: { verdict: "allow" },
    });
    expect(d.trace?.code).toBe("x");
  });

  it("keeps a determined compiled deny when the model fails open", async () => {
    const open = failureDecision({
      engine: "baseline",
      code: "MODEL_UNAVAILABLE",
      message: "down",
      mode: "open",
    });
    const d = await withDeterministicFloor({
      engine: engine("baseline", () => open),
      compiled: engine("compiled", () => deny("compiled")),
    }).check({ policy, subject });
    expect(d).toMatchObject({ allowed: false, verdict: "deny" });
    expect(d.failure).toBeUndefined();
    expect(d.views?.model?.failure).toMatchObject({ mode: "open" });
  });

  it("says so when the policy has no compiled rules", async () => {
    const none = () =>
      failureDecision({ engine: "compiled", code: "UNSUPPORTED", message: "policy p has no compiled rules" });
    const d = await withDeterministicFloor({
      engine: engine("m", () => allow("m")),
      compiled: engine("compiled", none),
    }).check({ policy, subject });
    expect(d).toMatchObject({
      allowed: true,
      views: { decidedBy: "model", compiled: { determined: false } },
    });
    expect(d.trace?.notes).toContain("the policy has no compiled rules: the model decides");
  });

  it("lets the model decide when the compiled view is undetermined, allows, or cannot run", async () => {
    for (const compiled of [
      engine("compiled", undetermined),
      engine("compiled", () => allow("compiled")),
      engine("compiled", () => {
        throw new WardenError({ code: "INTERNAL", message: "boom" });
      }),
    ]) {
      const allowed = await withDeterministicFloor({ engine: engine("m", () => allow("m")), compiled }).check(
        {
          policy,
          subject,
        },
      );
      expect(allowed).toMatchObject({ allowed: true, views: { decidedBy: "model" } });
      const denied = await withDeterministicFloor({ engine: engine("m", () => deny("m")), compiled }).check({
        policy,
        subject,
      });
      expect(denied).toMatchObject({ allowed: false, views: { decidedBy: "model" } });
    }
  });
});
