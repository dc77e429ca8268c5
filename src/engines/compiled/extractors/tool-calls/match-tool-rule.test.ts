import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ToolRule } from "../../../../core/policy.js";
import { matchToolRule } from "./match-tool-rule.js";
import { matchesToolGlob, toolGlobSpecificity } from "./tool-glob.js";

const rule = (r: Partial<ToolRule> & Pick<ToolRule, "id" | "tool" | "effect">): ToolRule => ({
  message: r.id,
  ...r,
});

describe("tool globs", () => {
  it("match exact names and globs without case", () => {
    expect(matchesToolGlob({ pattern: "github.*", name: "github.create_issue" })).toBe(true);
    expect(matchesToolGlob({ pattern: "github.*", name: "github.repos.delete" })).toBe(true);
    expect(matchesToolGlob({ pattern: "github.*", name: "gitlab.create_issue" })).toBe(false);
    expect(matchesToolGlob({ pattern: "*_delete", name: "Repo_Delete" })).toBe(true);
    expect(matchesToolGlob({ pattern: "*_delete", name: "delete_repo" })).toBe(false);
    expect(matchesToolGlob({ pattern: "send_?mail", name: "send_email" })).toBe(true);
    expect(matchesToolGlob({ pattern: "a.b", name: "axb" })).toBe(false);
  });

  it("treat regex characters in names literally", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (name) => {
        fc.pre(!name.includes("*") && !name.includes("?"));
        expect(matchesToolGlob({ pattern: name, name })).toBe(true);
        expect(matchesToolGlob({ pattern: "*", name })).toBe(true);
      }),
    );
  });

  it("rank exact names above globs and longer literals above shorter", () => {
    const s = (pattern: string) => toolGlobSpecificity({ pattern });
    expect(s("github.delete_repo")).toBeGreaterThan(s("github.*"));
    expect(s("github.*")).toBeGreaterThan(s("*"));
  });
});

describe("matchToolRule", () => {
  const rules: ToolRule[] = [
    rule({ id: "gh.read", tool: "github.*", effect: "allow" }),
    rule({ id: "gh.delete", tool: "*_delete", effect: "deny", message: "deletions are not allowed" }),
    rule({
      id: "mail.external",
      tool: "send_email",
      effect: "ask",
      when: { not: { field: "args.to", op: "endsWith", value: "@corp.example" } },
    }),
    rule({ id: "mail", tool: "send_email", effect: "allow" }),
    rule({
      id: "pay.big",
      tool: "pay",
      effect: "deny",
      when: { field: "args.amount", op: "gt", value: 1000 },
    }),
  ];

  it("lets deny beat allow when several rules match", () => {
    const r = matchToolRule({ rules, call: { name: "github.repo_delete", args: {} } });
    expect(r).toMatchObject({ effect: "deny", defaulted: false });
    expect(r.rule?.id).toBe("gh.delete");
    expect(r.matches.map((m) => m.id)).toEqual(["gh.read", "gh.delete"]);
    expect(r.reason).toMatch(/deletions are not allowed/);
  });

  it("lets ask beat allow, and evaluates when over the arguments", () => {
    expect(
      matchToolRule({ rules, call: { name: "send_email", args: { to: "x@other.example" } } }).effect,
    ).toBe("ask");
    expect(
      matchToolRule({ rules, call: { name: "send_email", args: { to: "bo@corp.example" } } }),
    ).toMatchObject({
      effect: "allow",
      rule: { id: "mail" },
    });
    expect(matchToolRule({ rules, call: { name: "pay", args: { amount: "5000" } } }).effect).toBe("deny");
  });

  it("uses the default when no rule applies, deny when none is given", () => {
    expect(matchToolRule({ rules, call: { name: "pay", args: { amount: 5 } } })).toMatchObject({
      effect: "deny",
      defaulted: true,
      matches: [],
    });
    expect(matchToolRule({ rules, call: { name: "shell", args: {} }, default: "allow" }).effect).toBe(
      "allow",
    );
  });

  it("reports the most specific rule among those with the winning effect", () => {
    const r = matchToolRule({
      rules: [
        rule({ id: "all", tool: "*", effect: "deny" }),
        rule({ id: "exact", tool: "rm", effect: "deny" }),
      ],
      call: { name: "rm", args: {} },
    });
    expect(r.rule?.id).toBe("exact");
  });

  it("reads extra facts in conditions, with the call's fields taking precedence", () => {
    const r = matchToolRule({
      rules: [
        rule({
          id: "night",
          tool: "*",
          effect: "deny",
          when: { field: "context.hour", op: "ge", value: 22 },
        }),
      ],
      call: { name: "deploy", args: {} },
      facts: { context: { hour: 23 }, tool: "spoofed" },
      default: "allow",
    });
    expect(r.effect).toBe("deny");
    const byTool = matchToolRule({
      rules: [
        rule({ id: "t", tool: "*", effect: "deny", when: { field: "tool", op: "eq", value: "spoofed" } }),
      ],
      call: { name: "deploy", args: {} },
      facts: { tool: "spoofed" },
      default: "allow",
    });
    expect(byTool.effect).toBe("allow");
  });

  it("never lets a broken condition loosen the policy", () => {
    const broken = { field: "args.x", op: "matches" as const, value: "(" };
    const deny = matchToolRule({
      rules: [rule({ id: "d", tool: "*", effect: "deny", when: broken })],
      call: { name: "a", args: { x: "y" } },
      default: "allow",
    });
    expect(deny.effect).toBe("deny");
    expect(deny.errors?.[0]).toMatch(/^d: /);
    const allow = matchToolRule({
      rules: [rule({ id: "a", tool: "*", effect: "allow", when: broken })],
      call: { name: "a", args: { x: "y" } },
    });
    expect(allow).toMatchObject({ effect: "deny", defaulted: true });
  });

  it("is never looser than any single matching rule (property)", () => {
    const effects = ["allow", "ask", "deny"] as const;
    const order = { allow: 0, ask: 1, deny: 2 };
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...effects), { minLength: 1, maxLength: 6 }), (list) => {
        const rs = list.map((effect, i) => rule({ id: `r${i}`, tool: i % 2 ? "*" : "tool", effect }));
        const r = matchToolRule({ rules: rs, call: { name: "tool", args: {} } });
        expect(order[r.effect]).toBe(Math.max(...list.map((e) => order[e])));
      }),
    );
  });
});
