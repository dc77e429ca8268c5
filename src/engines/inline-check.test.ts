/**
 * Engines' inline checks: the same decision as `check` for the compiled, auto and risk-level engines,
 * nothing where the check must wait (temporal rules, a model, a large subject), and never inherited by a
 * wrapper.
 */
import { describe, expect, it } from "vitest";
import { allowDecision, type Decision } from "../core/decision.js";
import { type Policy, PolicySchema } from "../core/policy.js";
import { toolCallSubject } from "../core/tool-call.js";
import { createEngine } from "../runtime/create-engine.js";
import { createCheckPool } from "../runtime/offload/check-pool.js";
import { createAutoEngine } from "./auto-engine.js";
import { createCompiledEngine } from "./compiled/compiled-engine.js";
import type { Engine } from "./engine.js";
import { inlineCheckOf, withInlineCheck } from "./inline-check.js";
import { withRiskLevel } from "./risk-level.js";

const policy: Policy = PolicySchema.parse({
  name: "p",
  specification: "",
  requests: "",
  rules: {
    toolRules: [
      { id: "no-delete", tool: "repo.delete", effect: "deny", message: "never delete" },
      {
        id: "no-push-main",
        tool: "repo.push",
        effect: "deny",
        message: "never push main",
        when: { field: "args.branch", op: "eq", value: "main" },
      },
      { id: "push", tool: "repo.push", effect: "allow", message: "pushes are fine" },
    ],
    toolDefault: "ask",
  },
  risk: "violated-rules",
});
const temporal: Policy = PolicySchema.parse({
  name: "t",
  specification: "",
  requests: "",
  rules: {
    toolRules: [{ id: "all", tool: "*", effect: "allow", message: "ok" }],
    temporalRules: [{ id: "t1", formula: "G !delete", description: "never delete" }],
  },
});
const trust = { contextFacts: true };
const call = (name: string, args: Record<string, unknown>) => toolCallSubject({ tool: name, args });
const subjects = [
  call("repo.delete", {}),
  call("repo.push", { branch: "main" }),
  call("repo.push", { branch: "dev" }),
  call("repo.read", {}),
];

/** A decision without its timing, which differs between two runs of the same check. */
const timeless = (d: Decision | undefined) => d && { ...d, cost: { ...d.cost, ms: 0 } };

describe("inline checks", () => {
  it("answer what check answers, for the compiled and auto engines and through createEngine", async () => {
    const handle = await createEngine({ engine: "auto", checkWorkers: 0 });
    try {
      const engines: Engine[] = [
        createCompiledEngine(),
        createAutoEngine({ compiled: createCompiledEngine() }),
        handle.engine,
      ];
      for (const engine of engines) {
        const inline = inlineCheckOf({ engine });
        expect(inline).toBeDefined();
        for (const subject of subjects) {
          const now = inline?.({ policy, subject, trust });
          expect(timeless(now)).toEqual(timeless(await engine.check({ policy, subject, trust })));
        }
      }
      // The engine createEngine gives adds the risk level on the inline path too.
      const pushed = inlineCheckOf({ engine: handle.engine })?.({ policy, subject: subjects[1]!, trust });
      expect(pushed?.risk).toEqual({ level: "low", violatedRules: 1 });
    } finally {
      await handle.close();
    }
  });

  it("leave to check what needs waiting: a subject for the offload, temporal rules, the model", async () => {
    const offloaded = createCompiledEngine({
      offload: { wants: () => true, assess: async () => ({ decided: true, decision: allow }) },
    });
    const allow = allowDecision({ engine: "worker", output: null, explanation: "from the worker" });
    expect(inlineCheckOf({ engine: offloaded })?.({ policy, subject: subjects[0]!, trust })).toBeUndefined();
    expect((await offloaded.check({ policy, subject: subjects[0]!, trust })).engine).toBe("worker");

    const auto = createAutoEngine({ compiled: createCompiledEngine() });
    expect(
      inlineCheckOf({ engine: auto })?.({ policy: temporal, subject: subjects[0]!, trust }),
    ).toBeUndefined();

    // An undetermined call goes to the model when there is one, so the inline check leaves it to check.
    const model: Engine = {
      name: "model",
      check: async () => allowDecision({ engine: "model", output: null }),
    };
    const withModel = createAutoEngine({ compiled: createCompiledEngine(), fallback: model });
    const unknown = call("repo.push", { branch: { not: "a string" } });
    const strict: Policy = PolicySchema.parse({
      ...policy,
      rules: {
        toolRules: [
          {
            id: "no-main",
            tool: "repo.push",
            effect: "deny",
            message: "never push main",
            when: { field: "args.branch", op: "pathWithin", value: ["/main"] },
          },
        ],
        toolDefault: "allow",
      },
    });
    expect(
      inlineCheckOf({ engine: withModel })?.({ policy: strict, subject: unknown, trust }),
    ).toBeUndefined();
    expect((await withModel.check({ policy: strict, subject: unknown, trust })).engine).toBe("auto/model");
  });

  it("weigh for the offload what the compiled check reads: a long session does not send a small call off the event loop", async () => {
    const pool = createCheckPool({ thresholdBytes: 4096 });
    try {
      const engine = createCompiledEngine({ offload: pool });
      const history = Array.from({ length: 100 }, (_, i) => ({
        action: "repo.read",
        args: { file: `f${i}` },
        observation: "x".repeat(1000),
      }));
      const small = toolCallSubject({ tool: "repo.push", args: { branch: "main" }, history });
      expect(inlineCheckOf({ engine })?.({ policy, subject: small, trust })?.verdict).toBe("deny");
      // The call itself is read: a large one is still checked in a worker, with the same decision.
      const large = toolCallSubject({
        tool: "repo.push",
        args: { branch: "main", note: "y".repeat(8000) },
        history,
      });
      expect(inlineCheckOf({ engine })?.({ policy, subject: large, trust })).toBeUndefined();
      expect((await engine.check({ policy, subject: large, trust })).verdict).toBe("deny");
      expect(pool.stats().checks).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it("are never inherited by a wrapper: one made over an engine has none until it registers its own", () => {
    const engine = createCompiledEngine();
    // A wrapper that changes decisions would be bypassed if it inherited its engine's inline check.
    const wrapper = Object.create(engine) as Engine;
    expect(inlineCheckOf({ engine: wrapper })).toBeUndefined();
    expect(inlineCheckOf({ engine: { ...engine } })).toBeUndefined();
    const registered = withInlineCheck({ engine: wrapper, inline: () => undefined });
    expect(registered).toBe(wrapper);
    expect(inlineCheckOf({ engine: wrapper })).toBeDefined();
    // withRiskLevel registers its own, which adds the risk level.
    const risky = withRiskLevel({ engine });
    expect(inlineCheckOf({ engine: risky })).not.toBe(inlineCheckOf({ engine }));
  });
});
