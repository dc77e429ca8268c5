import { describe, expect, it } from "vitest";
import { type PolicyInput, PolicySchema } from "../../../core/policy.js";
import { SubjectSchema } from "../../../core/subject.js";
import { createAutoEngine } from "../../auto-engine.js";
import { createCompiledEngine } from "../../compiled/compiled-engine.js";
import { runShieldOnTrajectory } from "./run-shield-on-trajectory.js";
import { createShieldEngine } from "./shield-engine.js";

/** One policy, every kind of rule: tool rules with a default, and a temporal rule over the steps. */
const MIXED: PolicyInput = {
  name: "mixed",
  specification: "A file agent that may also mail the user.",
  requests: "Never delete outside /tmp. Admins only create directories. Never mail after reading secrets.",
  rules: {
    toolRules: [
      { id: "r.read", tool: "read_file", effect: "allow", message: "reads are fine" },
      { id: "r.mail", tool: "send_mail", effect: "allow", message: "mail is fine" },
      {
        id: "r.delete-tmp",
        tool: "delete_file",
        effect: "allow",
        message: "deletes under /tmp",
        when: { field: "args.path", op: "startsWith", value: "/tmp/" },
      },
      {
        id: "r.mkdir-admin",
        tool: "create_directory",
        effect: "allow",
        message: "admins may create directories",
        when: { field: "context.identity", op: "eq", value: "admin" },
      },
      {
        id: "r.wipe",
        tool: "wipe_disk",
        effect: "deny",
        message: "Never wipe a disk",
        source: "requests §0",
      },
    ],
    toolDefault: "deny",
    predicates: [
      {
        name: "reads_secret",
        kind: "action",
        description: "reads a secret file",
        binding: {
          kind: "condition",
          when: {
            all: [
              { field: "action", op: "eq", value: "read_file" },
              { field: "argsText", op: "contains", value: "secret" },
            ],
          },
        },
      },
      {
        name: "sends_mail",
        kind: "action",
        description: "sends a mail",
        binding: { kind: "condition", when: { field: "action", op: "eq", value: "send_mail" } },
      },
    ],
    temporalRules: [
      {
        id: "t.no-mail-after-secret",
        formula: "G(sends_mail -> !O(reads_secret))",
        description: "Never mail after reading a secret",
        message: "No mail after reading a secret",
      },
    ],
  },
};
const policy = PolicySchema.parse(MIXED);

describe("the shield applies tool rules at each step", () => {
  const shield = createShieldEngine();
  const check = (steps: { action: string; args?: Record<string, unknown> }[], context?: object) =>
    shield.check({
      policy,
      subject: SubjectSchema.parse({ input: "tidy up", trajectory: steps, ...(context ? { context } : {}) }),
    });

  it("allows what the tool rules allow and the temporal rules do not forbid", async () => {
    const d = await check([{ action: "read_file", args: { path: "/tmp/a" } }]);
    expect(d).toMatchObject({ verdict: "allow", engine: "shield" });
  });

  it("a tool-rule deny stands although no circuit objects, and names the rule", async () => {
    const d = await check([{ action: "wipe_disk", args: { device: "/dev/sda" } }]);
    expect(d).toMatchObject({ verdict: "deny", violations: [{ ruleId: "r.wipe", source: "requests §0" }] });
    expect(d.explanation).toContain("Never wipe a disk");
  });

  it("the tool default answers a step no tool rule names", async () => {
    const d = await check([{ action: "format_disk" }]);
    expect(d).toMatchObject({ verdict: "deny", violations: [{ ruleId: "tool.default" }] });
    const outside = await check([{ action: "delete_file", args: { path: "/etc/passwd" } }]);
    expect(outside.verdict).toBe("deny");
    const inside = await check([{ action: "delete_file", args: { path: "/tmp/x" } }]);
    expect(inside.verdict).toBe("allow");
  });

  it("tool rules see the caller's context", async () => {
    const step = [{ action: "create_directory", args: { path: "/srv/x" } }];
    expect((await check(step, { identity: "admin", trajectoryId: "a" })).verdict).toBe("allow");
    expect((await check(step, { identity: "guest", trajectoryId: "g" })).verdict).toBe("deny");
  });

  it("the temporal rules still apply where the tool rules allow", async () => {
    const d = await check([
      { action: "read_file", args: { path: "/home/u/secret.txt" } },
      { action: "send_mail", args: { to: "x@example.com" } },
    ]);
    expect(d.verdict).toBe("deny");
    expect(d.violations.map((v) => v.ruleId)).toContain("t.no-mail-after-secret");
  });

  it("a tool deny and a circuit deny are both reported", async () => {
    const p = PolicySchema.parse({
      ...MIXED,
      rules: {
        ...MIXED.rules,
        toolRules: [{ id: "r.no-mail", tool: "send_mail", effect: "deny", message: "no mail" }],
      },
    });
    const d = await shield.check({
      policy: p,
      subject: SubjectSchema.parse({
        input: "t",
        trajectory: [
          { action: "read_file", args: { path: "/secret" } },
          { action: "send_mail", args: {} },
        ],
      }),
    });
    expect(d.violations.map((v) => v.ruleId)).toEqual(["r.no-mail", "t.no-mail-after-secret"]);
  });

  it("every step of a session is judged against the tool rules", async () => {
    const result = await runShieldOnTrajectory({
      engine: shield,
      policy,
      trajectory: {
        input: "t",
        steps: [
          { action: "read_file", args: { path: "/tmp/a" } },
          { action: "wipe_disk", args: {} },
          { action: "read_file", args: { path: "/tmp/b" } },
        ],
      },
    });
    expect(result).toMatchObject({ unsafe: true, blockedAt: 1, violatedRules: ["r.wipe"] });
  });

  it("a policy without tool rules is judged as before (no default deny for web actions)", async () => {
    const temporalOnly = PolicySchema.parse({
      ...MIXED,
      rules: { ...MIXED.rules, toolRules: undefined, toolDefault: undefined },
    });
    const d = await shield.check({
      policy: temporalOnly,
      subject: SubjectSchema.parse({ input: "t", trajectory: [{ action: "click", args: {} }] }),
    });
    expect(d.verdict).toBe("allow");
  });
});

describe("auto with a policy that mixes tool and temporal rules", () => {
  const auto = createAutoEngine({ compiled: createCompiledEngine() });
  const subject = (s: object) => SubjectSchema.parse({ input: "tidy up", ...s });

  it("does not refuse what the rules allow (no model needed)", async () => {
    const d = await auto.check({
      policy,
      subject: subject({ trajectory: [{ action: "read_file", args: { path: "/tmp/a" } }] }),
    });
    expect(d).toMatchObject({ verdict: "allow", engine: "auto/shield", cost: { llmCalls: 0 } });
    expect(d.failure).toBeUndefined();
  });

  it("reads a single tool call from the output when there is no trajectory", async () => {
    const allow = await auto.check({
      policy,
      subject: subject({ output: JSON.stringify({ name: "read_file", arguments: { path: "/tmp/a" } }) }),
    });
    expect(allow).toMatchObject({ verdict: "allow", engine: "auto/shield" });
    const deny = await auto.check({
      policy,
      subject: subject({ output: JSON.stringify({ name: "wipe_disk", arguments: {} }) }),
    });
    expect(deny).toMatchObject({ verdict: "deny", violations: [{ ruleId: "r.wipe" }] });
  });

  it("denies what the tool rules or the temporal rules forbid", async () => {
    const wipe = await auto.check({ policy, subject: subject({ trajectory: [{ action: "wipe_disk" }] }) });
    expect(wipe.verdict).toBe("deny");
    const mail = await auto.check({
      policy,
      subject: subject({
        trajectory: [
          { action: "read_file", args: { path: "/secret" } },
          { action: "send_mail", args: {} },
        ],
      }),
    });
    expect(mail.verdict).toBe("deny");
  });

  it("fails closed when there is nothing to judge the temporal rules on", async () => {
    const d = await auto.check({ policy, subject: subject({ output: "no call here" }) });
    expect(d).toMatchObject({ allowed: false, failure: { code: "EXTRACTION_FAILED" } });
  });

  it("applies access rules the shield does not judge, and their deny stands", async () => {
    const withAccess = PolicySchema.parse({
      ...MIXED,
      rules: { ...MIXED.rules, access: { rules: [{ id: "a.nurse", role: "nurse", allow: { lab: "*" } }] } },
    });
    const read = { action: "read_file", args: { path: "/tmp/a" } };
    const denied = await auto.check({
      policy: withAccess,
      subject: subject({
        trajectory: [read],
        context: { identity: "nurse", resources: { patient: ["age"] } },
      }),
      // The resources are stated in the context: a caller trusted with facts (context-facts.ts).
      trust: { contextFacts: true },
    });
    expect(denied).toMatchObject({ verdict: "deny", engine: "auto/compiled" });
    const allowed = await auto.check({
      policy: withAccess,
      subject: subject({
        trajectory: [read],
        context: { identity: "nurse", resources: { lab: ["labname"] } },
      }),
      trust: { contextFacts: true },
    });
    expect(allowed).toMatchObject({ verdict: "allow", engine: "auto/shield" });
  });
});

describe("the shield over undetermined values", () => {
  const shield = createShieldEngine();
  const deletesSystem = (kind: "condition" | "history") =>
    PolicySchema.parse({
      name: `system-${kind}`,
      specification: "a file agent",
      requests: "Ask before deleting a system file.",
      rules: {
        predicates: [
          {
            name: "deletes_system",
            kind: "action",
            description: "deletes a file under /etc",
            binding: {
              kind,
              when: {
                all: [
                  { field: "action", op: "eq", value: "delete_file" },
                  { field: "args.path", op: "pathWithin", value: "/etc" },
                ],
              },
            },
          },
          {
            name: "asks_user",
            kind: "action",
            description: "asks the user",
            binding: { kind: "condition", when: { field: "action", op: "eq", value: "ask_user" } },
          },
        ],
        temporalRules: [
          {
            id: "t.ask-first",
            formula: "G(deletes_system -> Y(O(asks_user)))",
            description: "Ask before deleting a system file",
          },
        ],
      },
    });
  const verdict = async (kind: "condition" | "history", path: string) =>
    (
      await shield.check({
        policy: deletesSystem(kind),
        subject: SubjectSchema.parse({
          input: `t ${kind} ${path}`,
          trajectory: [{ action: "delete_file", args: { path } }],
        }),
      })
    ).verdict;

  for (const kind of ["condition", "history"] as const) {
    it(`a ${kind} binding over a path with no canonical form is not read as false`, async () => {
      expect(await verdict(kind, "/tmp/a")).toBe("allow");
      expect(await verdict(kind, "/tmp/../etc/passwd")).toBe("deny");
      expect(await verdict(kind, "~/x")).not.toBe("allow");
    });
  }
});
