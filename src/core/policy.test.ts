import { describe, expect, it } from "vitest";
import { WardenError } from "./errors.js";
import { checkPolicyDocumentLimits, MAX_RULES_PER_KIND, PolicySchema } from "./policy.js";

const base = { name: "p", specification: "s", requests: "r" };
const tool = (id: string) => ({ id, tool: "t", effect: "deny", message: "m" });
const temporal = (id: string) => ({ id, formula: "G p", description: "d" });

describe("policy schema limits", () => {
  it("refuses duplicate rule ids across the kinds that decide, naming the id", () => {
    const result = PolicySchema.safeParse({
      ...base,
      rules: { toolRules: [tool("a"), tool("b")], temporalRules: [temporal("a")] },
    });
    expect(result.success).toBe(false);
    const issue = result.error!.issues[0]!;
    expect(issue.path).toEqual(["rules", "temporalRules", 0, "id"]);
    expect(issue.message).toContain('duplicate rule id "a" (also toolRules.0)');
  });

  it("keeps clause ids apart from rule ids, but unique among clauses", () => {
    const clause = (id: string) => ({ id, text: "t" });
    expect(
      PolicySchema.safeParse({ ...base, rules: { toolRules: [tool("a")], clauses: [clause("a")] } }).success,
    ).toBe(true);
    expect(PolicySchema.safeParse({ ...base, rules: { clauses: [clause("c"), clause("c")] } }).success).toBe(
      false,
    );
  });

  it("bounds the number of rules of one kind", () => {
    const many = Array.from({ length: MAX_RULES_PER_KIND + 1 }, (_, i) => tool(`r${i}`));
    const result = PolicySchema.safeParse({ ...base, rules: { toolRules: many } });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.message).toContain("at most 10000");
  });
});

describe("checkPolicyDocumentLimits", () => {
  function deepWhen(depth: number): unknown {
    let when: unknown = { field: "tool", op: "eq", value: "x" };
    for (let i = 0; i < depth; i++) when = { not: when };
    return when;
  }

  it("names the rule whose condition is nested too deep, without a stack overflow", () => {
    const document = {
      ...base,
      rules: { toolRules: [tool("ok"), { ...tool("deep"), when: deepWhen(100_000) }] },
    };
    let error: unknown;
    try {
      checkPolicyDocumentLimits({ document, what: "policy p.json" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WardenError);
    expect((error as WardenError).code).toBe("INVALID_POLICY");
    expect((error as WardenError).message).toContain(
      'rules.toolRules.1.when of rule "deep" is nested more than 64',
    );
  });

  it("checks predicate bindings and the whole document too", () => {
    const predicate = {
      name: "p",
      kind: "state",
      description: "d",
      binding: { kind: "condition", when: deepWhen(80) },
    };
    expect(() =>
      checkPolicyDocumentLimits({ document: { ...base, rules: { predicates: [predicate] } }, what: "x" }),
    ).toThrow(/rules\.predicates\.0\.binding\.when of rule "p"/);
    let meta: unknown = 1;
    for (let i = 0; i < 200; i++) meta = [meta];
    expect(() => checkPolicyDocumentLimits({ document: { ...base, meta }, what: "x" })).toThrow(
      /nested more than 128/,
    );
    expect(() =>
      checkPolicyDocumentLimits({
        document: { ...base, rules: { toolRules: [{ ...tool("a"), when: deepWhen(10) }] } },
        what: "x",
      }),
    ).not.toThrow();
  });
});
