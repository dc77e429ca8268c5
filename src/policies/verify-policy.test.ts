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
});
