import { describe, expect, it } from "vitest";
import { PolicySchema } from "../../../core/policy.js";
import { compileShieldPolicy } from "./compiled-shield-policy.js";
import { checkPlan, renderPlanPrompt, type ShieldingPlan } from "./shielding-plan.js";
import { exemplarOf, predicatesToPlan } from "./step-decision-plan.js";

const detectors = ["pii", "secret"];
const check = (plan: ShieldingPlan, toAssign = ["a", "b"]) => checkPlan({ plan, toAssign, detectors });
const problems = (plan: ShieldingPlan, toAssign?: string[]) => {
  const r = check(plan, toAssign);
  return "error" in r ? (r.error.details?.problems as string[]) : [];
};
const search = (predicate: string, condition: unknown = { field: "actionType", op: "eq", value: "x" }) => ({
  predicate,
  operation: "search" as const,
  condition,
});

describe("checkPlan", () => {
  it("accepts one valid step per predicate to assign", () => {
    const r = check({
      steps: [search("a"), { predicate: "b", operation: "detect", detector: "pii", field: "text" }],
    });
    expect("steps" in r && [...r.steps.keys()]).toEqual(["a", "b"]);
  });

  it("names every problem: unknown, repeated or missing predicates, missing arguments, bad bindings", () => {
    expect(problems({ steps: [search("a"), search("a"), search("zz")] })).toEqual([
      'assigns "a" twice',
      'names "zz", which is not a predicate to assign',
      'leaves "b" unassigned',
    ]);
    expect(
      problems({
        steps: [
          { predicate: "a", operation: "binary-check", question: "  " },
          { predicate: "b", operation: "formal-verify" },
        ],
      }),
    ).toEqual(['binary-check of "a" has no question', 'formal-verify of "b" has no code']);
    expect(problems({ steps: [{ predicate: "a", operation: "detect", detector: "oracle" }] }, ["a"])).toEqual(
      ['no detector named "oracle"'],
    );
    const [bad] = problems({ steps: [search("a", { field: "x", op: "likes", value: 1 })] }, ["a"]);
    expect(bad).toContain('search of "a" is not valid');
    // A regular expression the policy language refuses is refused here too.
    const regex = problems({ steps: [search("a", { field: "text", op: "matches", value: "([" })] }, ["a"]);
    expect(regex.join(" ")).toContain('search of "a" is not valid');
    const r = check({ steps: [] }, ["a"]);
    expect("error" in r && r.error.code).toBe("MODEL_OUTPUT_INVALID");
  });
});

describe("what the plan is asked for", () => {
  const policy = PolicySchema.parse({
    name: "p",
    specification: "s",
    requests: "r",
    rules: {
      predicates: [
        {
          name: "act",
          kind: "action",
          description: "acts",
          binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "act" } },
        },
        { name: "other_act", kind: "action", description: "acts otherwise" },
        {
          name: "risky",
          kind: "state",
          description: "the step is risky",
          binding: { kind: "ask", question: "Is this step risky?" },
        },
        { name: "warned", kind: "state", description: "the user was warned" },
        { name: "unused", kind: "state", description: "read by no selected rule" },
      ],
      temporalRules: [
        { id: "r1", formula: "G(act -> !risky)", description: "no risky act" },
        { id: "r2", formula: "G(other_act -> O warned)", description: "warn before" },
      ],
    },
  });
  const compiled = compileShieldPolicy({ policy });
  const rules = compiled.inScope({ scopes: [] }).rules;

  it("plans the open state predicates the step needs, never action predicates or unrelated ones", () => {
    const names = predicatesToPlan({
      predicates: policy.rules?.predicates ?? [],
      rules,
      open: ["other_act", "risky", "warned", "unused"],
      relevant: new Set(["act", "risky"]),
    });
    // warned: a rule looking back in time needs it at every step.
    expect(names).toEqual(["risky", "warned"]);
  });

  it("shows the rules, the assigned and open predicates, the detectors and the exemplars", () => {
    const prompt = renderPlanPrompt({
      input: "do the task",
      steps: [
        { action: "look", args: {} },
        { action: "act", args: { x: 1 } },
      ],
      index: 1,
      rules: rules.filter((r) => r.rule.id === "r1"),
      predicates: compiled.predicates,
      values: { act: true },
      toAssign: ["risky"],
      detectors,
      exemplars: [
        { query: "act | args=1", steps: [search("risky")], values: { risky: false }, outcome: "allow" },
      ],
    });
    expect(prompt).toContain("- r1: G(act -> !risky) — no risky act");
    expect(prompt).toContain("- act = true: acts");
    expect(prompt).toContain(
      "Predicates to assign (one plan step each):\n- risky: the step is risky (the policy's question: Is this step risky?)",
    );
    expect(prompt).toContain("Detectors: pii, secret");
    expect(prompt).toContain(
      'Example 1 (a similar step: act | args=1; outcome: allow; values: {"risky":false})',
    );
    expect(prompt).toContain("  0: look");
  });

  it("takes only workflows holding a shielding plan as exemplars", () => {
    const hit = {
      id: "w1",
      action: "act",
      query: "act",
      distance: 0,
      normalised: 0,
      plan: {
        kind: "warden.shield-workflow" as const,
        version: 1 as const,
        predicates: { risky: { operation: "search" as const, value: true } },
        rules: ["r1"],
      },
    };
    expect(exemplarOf({ hit })).toBeUndefined();
    expect(exemplarOf({ hit: { ...hit, plan: { ...hit.plan, shieldingPlan: [search("risky")] } } })).toEqual({
      query: "act",
      steps: [search("risky")],
      values: { risky: true },
      outcome: "allow",
    });
  });
});
