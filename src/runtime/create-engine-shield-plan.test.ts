/**
 * createEngine with `shieldPlanning: "plan"`: the shield (named, or reached through `auto` for a policy
 * with temporal rules) plans with the configured model and runs Formal-Verify code in the sandbox
 * createEngine loads for it; without the option the shield keeps its Binary-Check path.
 */
import { afterEach, describe, expect, it } from "vitest";
import { PolicySchema } from "../core/policy.js";
import { createScriptedModel } from "../testing/scripted-model.js";
import { createEngine, type EngineHandle } from "./create-engine.js";

const policy = PolicySchema.parse({
  name: "files",
  specification: "An assistant that manages files in a drive.",
  requests: "Never share confidential files.",
  rules: {
    predicates: [
      {
        name: "shares_file",
        kind: "action",
        description: "shares a file",
        binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "share" } },
      },
      { name: "is_confidential", kind: "state", description: "the shared file is confidential" },
    ],
    temporalRules: [
      {
        id: "no-confidential-shares",
        formula: "G(shares_file -> !is_confidential)",
        description: "Do not share confidential files",
      },
    ],
  },
});
const plan = JSON.stringify({
  steps: [
    {
      predicate: "is_confidential",
      operation: "formal-verify",
      code: "finish({ label: /salar/i.test(String(data.step.args.file)) ? 1 : 0 });",
    },
  ],
});
const subject = (file: string) => ({
  input: "share",
  output: "",
  trajectory: [{ action: "share", args: { file } }],
});

describe("createEngine: the shield's planning", () => {
  const handles: EngineHandle[] = [];
  afterEach(async () => {
    for (const h of handles.splice(0)) await h.close();
  });

  for (const engine of ["shield", "auto"] as const) {
    it(`${engine}: plans with the model and runs the plan's code in the sandbox`, async () => {
      const model = createScriptedModel({ replies: [plan, plan] });
      const h = await createEngine({ engine, model, shieldPlanning: "plan" });
      handles.push(h);
      const denied = await h.engine.check({ policy, subject: subject("salaries.xlsx") });
      expect(denied).toMatchObject({ allowed: false, violations: [{ ruleId: "no-confidential-shares" }] });
      expect((await h.engine.check({ policy, subject: subject("menu.pdf") })).allowed).toBe(true);
      expect(model.requests.map((r) => r.purpose)).toEqual(["shield-plan", "shield-plan"]);
    });
  }

  it("without the option an unbound predicate stays open (marginalised), and no plan is asked for", async () => {
    const model = createScriptedModel({ replies: [] });
    const h = await createEngine({ engine: "shield", model });
    handles.push(h);
    const d = await h.engine.check({ policy, subject: subject("menu.pdf") });
    expect(d.allowed).toBe(false);
    expect(model.requests).toHaveLength(0);
  });
});
