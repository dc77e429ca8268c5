import { describe, expect, it } from "vitest";
import { type PolicyInput, PolicySchema } from "../core/policy.js";
import { listBundledPolicies, loadPolicy } from "./load-policy.js";
import { verifyPolicy } from "./verify-policy.js";

const spec =
  "Tables: patient (uniquepid, age), lab (labname, labresult). Users have an age and a membership.";

function policy(rules: PolicyInput["rules"]) {
  return PolicySchema.parse({ name: "t", specification: spec, requests: "membership rules", rules });
}

describe("verifyPolicy", () => {
  it("accepts every bundled policy without errors", () => {
    expect(listBundledPolicies()).toEqual(expect.arrayContaining(["eicu-ac", "mind2web-sc", "mcp-tools"]));
    for (const name of listBundledPolicies()) {
      const { findings, ok } = verifyPolicy({ policy: loadPolicy({ ref: name }).policy });
      expect(
        findings.filter((f) => f.severity === "error"),
        name,
      ).toEqual([]);
      expect(ok).toBe(true);
    }
  });

  it("rejects a column the specification does not have, naming it", () => {
    const { ok, findings } = verifyPolicy({
      policy: policy({
        vocabulary: {
          resources: { patient: ["uniquepid", "age"], lab: ["labname", "labresult"] },
          roles: ["nurse"],
        },
        access: { rules: [{ id: "a.nurse", role: "nurse", allow: { lab: ["labname", "labvalue"] } }] },
      }),
    });
    expect(ok).toBe(false);
    expect(findings.map((f) => f.message).join("\n")).toContain('Column "lab.labvalue" does not exist');
  });

  it("rejects vocabulary that the specification never mentions", () => {
    const { findings } = verifyPolicy({
      policy: policy({ vocabulary: { resources: { billing: ["amount"] } } }),
    });
    expect(findings.map((f) => f.message)).toContain(
      'Table "billing" is not mentioned in the agent specification.',
    );
  });

  it("reports unreachable and contradictory rules", () => {
    const { findings } = verifyPolicy({
      policy: policy({
        vocabulary: {
          attributes: { age: { type: "number" }, membership: { type: "boolean" } },
          actions: ["email.send"],
        },
        attributeRules: [
          {
            id: "r1",
            category: "wine",
            description: "Buy wine",
            require: [
              { attribute: "age", operator: ">=", value: 21 },
              { attribute: "age", operator: "<", value: 18 },
            ],
            message: "no",
          },
          {
            id: "r2",
            category: "shop",
            description: "Shop",
            require: [{ attribute: "membership", operator: ">", value: true }],
            message: "no",
          },
        ],
        toolRules: [
          { id: "t1", tool: "email.send", effect: "deny", message: "no email" },
          { id: "t2", tool: "email.send", effect: "allow", message: "email ok" },
          { id: "t3", tool: "sms.*", effect: "deny", message: "no sms" },
        ],
      }),
    });
    const text = findings.map((f) => f.message).join("\n");
    expect(text).toContain("no user can satisfy rule r1");
    expect(text).toContain('Boolean attribute "membership" can only be compared with == or !=');
    expect(text).toContain("apply to exactly the same calls with different effects");
    expect(text).toContain('Tool "sms.*" matches no action');
  });

  it("checks formulas and predicates when given a formula parser", () => {
    const { findings } = verifyPolicy({
      policy: policy({
        predicates: [
          { name: "delete", kind: "action", description: "deletes" },
          { name: "unused", kind: "state", description: "never used" },
        ],
        temporalRules: [{ id: "t", formula: "G(delete -> O confirmed)", description: "confirm first" }],
      }),
      parseFormula: (f) => [...new Set(f.match(/\b[a-z_][a-z0-9_]*\b/g) ?? [])],
    });
    const text = findings.map((f) => f.message).join("\n");
    expect(text).toContain('uses "confirmed", which is not a declared predicate');
    expect(text).toContain('Predicate "unused" is used by no rule');
  });

  const messages = (rules: PolicyInput["rules"]) =>
    verifyPolicy({ policy: policy(rules) }).findings.map((f) => `${f.severity}: ${f.message}`);

  it("warns about a policy that allows by default", () => {
    expect(messages({ toolRules: [], toolDefault: "allow" }).join("\n")).toMatch(
      /warning: The policy allows by default: a tool call/,
    );
    expect(
      messages({
        access: { rules: [{ id: "a", role: "nurse", allow: { lab: "*" } }], unknownRole: "allow" },
      }).join("\n"),
    ).toMatch(/warning: The policy allows by default: a role/);
    expect(messages({ toolRules: [], toolDefault: "deny" }).join("\n")).not.toMatch(/allows by default/);
  });

  it("warns about a policy with no rule that can deny", () => {
    const allowOnly = messages({
      toolRules: [{ id: "t1", tool: "*", effect: "allow", message: "all fine" }],
      toolDefault: "allow",
    });
    expect(allowOnly.join("\n")).toContain("No rule of the policy can deny or ask");
    // Without a stated default a tool policy denies what no rule allows.
    const implicitDeny = messages({ toolRules: [{ id: "t1", tool: "a", effect: "allow", message: "ok" }] });
    expect(implicitDeny.join("\n")).not.toContain("No rule of the policy can deny");
    expect(messages({ toolRules: [], toolDefault: "ask" }).join("\n")).not.toContain("can deny");
  });

  it("errors on a condition field that no engine provides", () => {
    const when = (field: string) => ({
      toolRules: [
        {
          id: "t1",
          tool: "fs.read",
          effect: "deny" as const,
          message: "no",
          when: { field, op: "exists" as const },
        },
      ],
      toolDefault: "deny" as const,
    });
    for (const field of ["user.role", "identity", "tool.name", "args:file", "request.args", "raw.path"]) {
      const r = verifyPolicy({ policy: policy(when(field)) });
      expect(r.ok, field).toBe(false);
      expect(r.findings.map((f) => f.message).join("\n")).toMatch(/no engine provides it/);
    }
    for (const field of [
      "context.identity",
      "context.user.age",
      "args.path",
      "args.paths.*",
      "raw.args.path",
      "args:path",
      "args:email",
      "tool",
      "name",
      "input",
      "format",
    ]) {
      expect(verifyPolicy({ policy: policy(when(field)) }).ok, field).toBe(true);
    }
  });

  it("reports rules an engine would ignore", () => {
    const temporal = {
      predicates: [{ name: "send", kind: "action" as const, description: "sends" }],
      temporalRules: [{ id: "t", formula: "G !send", description: "never send" }],
    };
    const mixed = messages({
      ...temporal,
      toolRules: [{ id: "r", tool: "*", effect: "allow", message: "ok" }],
    });
    expect(mixed.join("\n")).toMatch(/compiled engine does not judge temporal rules/);
    const withAccess = messages({
      ...temporal,
      access: { rules: [{ id: "a", role: "nurse", allow: { lab: "*" } }] },
    });
    expect(withAccess.join("\n")).toMatch(/shield engine does not judge the access rules/);
    expect(messages({ toolRules: [], toolDefault: "deny" }).join("\n")).not.toMatch(/does not judge/);
  });

  it("errors on a predicate binding field that is no step fact", () => {
    const binding = (field: string) =>
      messages({
        predicates: [
          {
            name: "p",
            kind: "action",
            description: "d",
            binding: { kind: "condition", when: { field, op: "exists" } },
          },
        ],
        temporalRules: [{ id: "t", formula: "G !p", description: "never p" }],
      }).join("\n");
    expect(binding("elementtext")).toMatch(
      /error: Binding of "p": condition field "elementtext" is not a step fact/,
    );
    expect(binding("actionType.name")).toMatch(/is not a step fact/);
    for (const ok of ["elementText", "page.host", "context.identity", "args.path", "args:url", "meta.x"]) {
      expect(binding(ok), ok).not.toMatch(/error: Binding/);
    }
  });
});
