/**
 * How the compiled and auto engines consume a tool rule whose outcome could not be determined. The rule
 * matcher is stubbed to report an undetermined condition for any path starting with "~" (what the
 * canonical path forms do), so these tests fix the engines' side of the contract on their own.
 */
import { describe, expect, it, vi } from "vitest";
import type { Decision } from "../../core/decision.js";
import { type PolicyInput, PolicySchema } from "../../core/policy.js";
import { SubjectSchema } from "../../core/subject.js";
import { createAutoEngine } from "../auto-engine.js";
import type { Engine } from "../engine.js";
import { createShieldEngine } from "../shield/runtime/shield-engine.js";
import { createCompiledEngine } from "./compiled-engine.js";

vi.mock("./extractors/tool-calls/index.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("./extractors/tool-calls/index.js")>();
  return {
    ...real,
    matchToolRule: (options: Parameters<typeof real.matchToolRule>[0]) => {
      const result = real.matchToolRule(options);
      const path = options.call.args.path;
      if (typeof path === "string" && path.startsWith("~")) {
        return { ...result, undetermined: [`r.tmp-only: args.path "${path}" has no canonical form (~)`] };
      }
      return result;
    },
  };
});

const policy = PolicySchema.parse({
  name: "fs",
  specification: "a file agent",
  requests: "deletes only under /tmp",
  rules: {
    toolRules: [
      {
        id: "r.tmp-only",
        tool: "delete_file",
        effect: "allow",
        message: "deletes under /tmp are fine",
        when: { field: "args.path", op: "startsWith", value: "/tmp/" },
      },
      { id: "r.no-shadow", tool: "read_file", effect: "deny", message: "no reads" },
    ],
    toolDefault: "deny",
  } satisfies PolicyInput["rules"],
});

const subject = (calls: { name: string; arguments: Record<string, unknown> }[]) =>
  // The calls in the output, and the same calls stated in the context (compared, so they agree).
  SubjectSchema.parse({ input: "tidy up", output: JSON.stringify(calls), context: { toolCalls: calls } });

const modelSaysAllow: Engine = {
  name: "guardagent",
  check: async (): Promise<Decision> => ({
    allowed: true,
    label: 0,
    verdict: "allow",
    violations: [],
    explanation: "model says fine",
    output: "x",
    engine: "guardagent",
    cost: { llmCalls: 1, inputTokens: 1, outputTokens: 1, ms: 1 },
  }),
};

describe("undetermined tool-rule outcomes", () => {
  const compiled = createCompiledEngine();

  it("compiled fails closed naming the rule and the reason", async () => {
    const d = await compiled.check({
      policy,
      subject: subject([{ name: "delete_file", arguments: { path: "~/x" } }]),
    });
    expect(d).toMatchObject({ allowed: false, verdict: "deny", failure: { code: "EXTRACTION_FAILED" } });
    expect(d.failure?.message).toContain("r.tmp-only");
    expect(d.failure?.message).toContain("no canonical form");
    expect(d.trace?.facts?.undetermined).toBeDefined();
  });

  it("a determined deny elsewhere in the same output stands", async () => {
    const d = await compiled.check({
      policy,
      subject: subject([
        { name: "delete_file", arguments: { path: "~/x" } },
        { name: "read_file", arguments: { path: "/etc/shadow" } },
      ]),
    });
    expect(d).toMatchObject({ verdict: "deny", violations: [{ ruleId: "r.no-shadow" }] });
    expect(d.failure).toBeUndefined();
  });

  it("auto falls back to the model when one is configured", async () => {
    const auto = createAutoEngine({ compiled, fallback: modelSaysAllow });
    const d = await auto.check({
      policy,
      subject: subject([{ name: "delete_file", arguments: { path: "~/x" } }]),
    });
    expect(d.engine).toBe("auto/guardagent");
    expect(d.trace?.notes?.join(" ")).toContain("r.tmp-only");
  });

  it("auto without a model fails closed", async () => {
    const auto = createAutoEngine({ compiled });
    const d = await auto.check({
      policy,
      subject: subject([{ name: "delete_file", arguments: { path: "~/x" } }]),
    });
    expect(d).toMatchObject({ allowed: false, failure: { code: "EXTRACTION_FAILED" } });
    expect(d.failure?.message).toContain("r.tmp-only");
  });

  it("a determined outcome is decided as before", async () => {
    const auto = createAutoEngine({ compiled, fallback: modelSaysAllow });
    const ok = await auto.check({
      policy,
      subject: subject([{ name: "delete_file", arguments: { path: "/tmp/a" } }]),
    });
    expect(ok).toMatchObject({ engine: "auto/compiled", verdict: "allow" });
  });
});

describe("undetermined tool-rule outcomes in the shield", () => {
  const withTemporal = PolicySchema.parse({
    ...policy,
    rules: {
      ...policy.rules,
      predicates: [
        {
          name: "deletes",
          kind: "action",
          description: "deletes a file",
          binding: { kind: "condition", when: { field: "action", op: "eq", value: "delete_file" } },
        },
      ],
      temporalRules: [{ id: "t.once", formula: "G(deletes -> !Y(O(deletes)))", description: "one delete" }],
    },
  });
  const trajectory = (path: string) =>
    SubjectSchema.parse({ input: "t", trajectory: [{ action: "delete_file", args: { path } }] });

  it("the shield fails closed naming the rule", async () => {
    const d = await createShieldEngine().check({ policy: withTemporal, subject: trajectory("~/x") });
    expect(d).toMatchObject({ allowed: false, failure: { code: "EXTRACTION_FAILED" } });
    expect(d.failure?.message).toContain("r.tmp-only");
    expect(
      (await createShieldEngine().check({ policy: withTemporal, subject: trajectory("/tmp/x") })).verdict,
    ).toBe("allow");
  });

  it("auto falls back to the model for it", async () => {
    const auto = createAutoEngine({ compiled: createCompiledEngine(), fallback: modelSaysAllow });
    const d = await auto.check({ policy: withTemporal, subject: trajectory("~/x") });
    expect(d.engine).toBe("auto/guardagent");
    const closed = await createAutoEngine({ compiled: createCompiledEngine() }).check({
      policy: withTemporal,
      subject: trajectory("~/x"),
    });
    expect(closed).toMatchObject({ allowed: false, failure: { code: "EXTRACTION_FAILED" } });
  });
});
