/**
 * Without QuickJS installed the sandbox answers every run with MISSING_DEPENDENCY: GuardAgent must deny
 * (fail closed) at once, naming the package, rather than asking the model to debug a program that never ran.
 */
import { describe, expect, it } from "vitest";
import { SubjectSchema } from "../../core/subject.js";
import { loadPolicy } from "../../policies/load-policy.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createToolbox } from "../../toolbox/toolbox.js";
import { createGuardAgentEngine } from "./guardagent-engine.js";

const message =
  'Guardrail programs (the QuickJS sandbox) need the optional package quickjs-emscripten, which is not installed: run "npm install quickjs-emscripten"';

const missingSandbox: Sandbox = {
  run: async () => ({ ok: false, error: { code: "MISSING_DEPENDENCY", message }, log: "", ms: 0 }),
  close: async () => undefined,
};

describe("GuardAgent without QuickJS", () => {
  it("fails closed with MISSING_DEPENDENCY and asks the model nothing more", async () => {
    const model = createScriptedModel({
      replies: [
        "1. access control\n2. CheckAccess",
        '```javascript\nfinish({ label: 0, reasons: {}, output: "x" });\n```',
      ],
    });
    const engine = createGuardAgentEngine({
      model,
      sandbox: missingSandbox,
      toolbox: createToolbox(),
      shots: 0,
    });
    const decision = await engine.check({
      policy: loadPolicy({ ref: "eicu-ac" }).policy,
      subject: SubjectSchema.parse({ input: "Identity: nursing\nQuestion: q", output: "Answer:\nx" }),
    });
    expect(decision).toMatchObject({
      allowed: false,
      verdict: "deny",
      failure: { code: "MISSING_DEPENDENCY", message, mode: "closed" },
    });
    expect(model.requests).toHaveLength(2);
  });
});
