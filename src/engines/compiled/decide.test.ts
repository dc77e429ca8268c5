import { describe, expect, it } from "vitest";
import { type PolicyInput, PolicySchema } from "../../core/policy.js";
import { type SubjectInput, SubjectSchema } from "../../core/subject.js";
import { createCompiledEngine } from "./compiled-engine.js";
import { compilePolicyRules } from "./compiled-policy.js";
import { extractFacts } from "./extract-facts.js";

const policyOf = (rules: PolicyInput["rules"]) =>
  PolicySchema.parse({ name: "t", specification: "a tool agent", requests: "r", rules });
const subjectOf = (s: SubjectInput) => SubjectSchema.parse(s);
const call = (name: string, args: Record<string, unknown>, context?: Record<string, unknown>) =>
  subjectOf({
    input: "do it",
    output: JSON.stringify({ name, arguments: args }),
    ...(context ? { context } : {}),
  });

const engine = createCompiledEngine();

describe("defaults always apply", () => {
  for (const effect of ["deny", "ask"] as const) {
    it(`a lockdown policy (no rules, toolDefault ${effect}) answers ${effect} for every call`, async () => {
      const policy = policyOf({ toolRules: [], toolDefault: effect });
      for (const [name, args] of [
        ["filesystem.delete_file", { path: "/etc/passwd" }],
        ["github.create_issue", { repo: "a/b", title: "x" }],
        ["anything", {}],
      ] as const) {
        const d = await engine.check({ policy, subject: call(name, args) });
        expect(d.verdict, name).toBe(effect);
        expect(d.allowed).toBe(false);
        expect(d.failure).toBeUndefined();
        expect(d.violations[0]).toMatchObject({ ruleId: "tool.default", details: { tool: name } });
      }
    });
  }

  it("answers the default when rules exist but none applies", async () => {
    const policy = policyOf({
      toolRules: [{ id: "r.read", tool: "fs.read_file", effect: "allow", message: "reads are fine" }],
      toolDefault: "ask",
    });
    expect((await engine.check({ policy, subject: call("fs.read_file", {}) })).verdict).toBe("allow");
    expect((await engine.check({ policy, subject: call("fs.write_file", {}) })).verdict).toBe("ask");
  });

  it("stays undetermined (fails closed) when the output has no tool call", async () => {
    const policy = policyOf({ toolRules: [], toolDefault: "deny" });
    const d = await engine.check({ policy, subject: subjectOf({ input: "x", output: "just prose" }) });
    expect(d).toMatchObject({ allowed: false, failure: { code: "EXTRACTION_FAILED" } });
    expect(d.failure?.message).toContain("the tool call");
  });

  it("an access section with no rule answers its unknownRole", async () => {
    const subject = subjectOf({
      input: "Identity: nursing\nQuestion: q",
      output: "",
      context: { resources: { patient: ["age"] } },
    });
    // The resources come from the context: a caller trusted with facts.
    const trust = { contextFacts: true };
    const deny = await engine.check({ policy: policyOf({ access: { rules: [] } }), subject, trust });
    expect(deny).toMatchObject({ verdict: "deny", violations: [{ ruleId: "access.unknown-role" }] });
    expect(deny.failure).toBeUndefined();
    const allow = await engine.check({
      policy: policyOf({ access: { rules: [], unknownRole: "allow" } }),
      subject,
      trust,
    });
    expect(allow.verdict).toBe("allow");
  });
});

describe("tool rules see the caller", () => {
  const policy = policyOf({
    toolRules: [
      {
        id: "r.mkdir-admin",
        tool: "create_directory",
        effect: "allow",
        message: "admins may create directories",
        when: { field: "context.identity", op: "eq", value: "admin" },
      },
      {
        id: "r.no-guest-reads",
        tool: "read_file",
        effect: "deny",
        message: "guests may not read files",
        when: { field: "context.identity", op: "eq", value: "guest" },
      },
      { id: "r.read", tool: "read_file", effect: "allow", message: "reads are fine" },
    ],
    toolDefault: "deny",
  });

  it("allows create_directory for an admin only", async () => {
    const admin = await engine.check({
      policy,
      subject: call("create_directory", { path: "/tmp/x" }, { identity: "admin" }),
    });
    expect(admin.verdict).toBe("allow");
    const user = await engine.check({
      policy,
      subject: call("create_directory", { path: "/tmp/x" }, { identity: "user" }),
    });
    expect(user).toMatchObject({ verdict: "deny", violations: [{ ruleId: "tool.default" }] });
    const nobody = await engine.check({ policy, subject: call("create_directory", { path: "/tmp/x" }) });
    expect(nobody.verdict).toBe("deny");
  });

  it("a deny rule conditioned on the caller fires", async () => {
    const guest = await engine.check({
      policy,
      subject: call("read_file", { path: "/tmp/a" }, { identity: "guest" }),
    });
    expect(guest).toMatchObject({ verdict: "deny", violations: [{ ruleId: "r.no-guest-reads" }] });
    const user = await engine.check({
      policy,
      subject: call("read_file", { path: "/tmp/a" }, { identity: "user" }),
    });
    expect(user.verdict).toBe("allow");
  });

  it("a rule may read the agent input", async () => {
    const p = policyOf({
      toolRules: [
        {
          id: "r.no-prod",
          tool: "*",
          effect: "deny",
          message: "nothing in production",
          when: { field: "input", op: "contains", value: "production" },
        },
      ],
      toolDefault: "allow",
    });
    const subject = subjectOf({
      input: "clean up production",
      output: JSON.stringify({ name: "shell.run", arguments: { command: "ls" } }),
    });
    expect((await engine.check({ policy: p, subject })).verdict).toBe("deny");
  });

  it("gives each call its tool's schema from context.toolSchemas", () => {
    const schema = { type: "object", properties: { path: { type: "string" } } };
    const facts = extractFacts({
      compiled: compilePolicyRules({ policy }),
      subject: call("read_file", { path: "/a" }, { toolSchemas: { read_file: schema } }),
      trust: { contextFacts: true },
    });
    expect(facts.toolCalls?.[0]).toMatchObject({ name: "read_file", inputSchema: schema });
    expect(facts.caller?.context).toMatchObject({ toolSchemas: { read_file: schema } });
  });

  it("ignores context.toolSchemas from a caller not trusted with facts", () => {
    const schema = { type: "object", properties: { path: { type: "string" } } };
    const facts = extractFacts({
      compiled: compilePolicyRules({ policy }),
      subject: call("read_file", { path: "/a" }, { toolSchemas: { read_file: schema }, identity: "admin" }),
    });
    expect(facts.toolCalls?.[0]?.inputSchema).toBeUndefined();
    expect(facts.caller?.context).toEqual({ identity: "admin" });
    expect(facts.notes.join(" ")).toContain("not trusted");
  });
});

describe("temporal rules in the compiled engine", () => {
  it("fails closed and points to the shield", async () => {
    const policy = policyOf({
      toolRules: [{ id: "r.any", tool: "*", effect: "allow", message: "ok" }],
      predicates: [
        {
          name: "sends",
          kind: "action",
          description: "sends mail",
          binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "send" } },
        },
      ],
      temporalRules: [{ id: "t.never-send", formula: "G !sends", description: "never send" }],
    });
    const d = await engine.check({ policy, subject: call("read", {}) });
    expect(d).toMatchObject({ allowed: false, failure: { code: "EXTRACTION_FAILED" } });
    expect(d.failure?.message).toMatch(/--engine shield.*auto/);
  });
});

describe("undetermined conditions (the real evaluator)", () => {
  const policy = policyOf({
    toolRules: [
      {
        id: "r.tmp-deletes",
        tool: "delete_file",
        effect: "allow",
        message: "deletes under /tmp",
        when: { field: "args.path", op: "pathWithin", value: "/tmp" },
      },
    ],
    toolDefault: "deny",
  });

  it("fails closed naming the rule when a path has no canonical form", async () => {
    const d = await engine.check({ policy, subject: call("delete_file", { path: "~/x" }) });
    expect(d).toMatchObject({ allowed: false, failure: { code: "EXTRACTION_FAILED" } });
    expect(d.failure?.message).toContain("r.tmp-deletes");
  });

  it("decides on canonical forms", async () => {
    expect((await engine.check({ policy, subject: call("delete_file", { path: "/tmp/a" }) })).verdict).toBe(
      "allow",
    );
    expect(
      (await engine.check({ policy, subject: call("delete_file", { path: "/tmp/../etc/passwd" }) })).verdict,
    ).toBe("deny");
  });
});
