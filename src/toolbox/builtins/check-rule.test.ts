import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WardenError } from "../../core/errors.js";
import { createQuickJsSandbox, type QuickJsSandbox } from "../../sandbox/quickjs-sandbox.js";
import { CHECK_RULE_FUNCTION, checkRule, compareRuleValues, type RuleSpec } from "./check-rule.js";

const CAR = {
  attribute: "dr_license",
  operator: "==",
  value: true,
  message: "User without a driver's license cannot buy or rent a car",
};

describe("checkRule (host)", () => {
  it("reports the message of each category whose requirement the user fails", () => {
    const result = checkRule({
      rules: {
        car: CAR,
        hotel: { attribute: "age", operator: ">=", value: 18, message: "Must be 18 to book a hotel" },
      },
      userInfo: { age: 17, dr_license: false },
    });
    expect(result).toEqual({
      denied: true,
      violations: {
        car: "User without a driver's license cannot buy or rent a car",
        hotel: "Must be 18 to book a hotel",
      },
    });
  });

  it("passes users who meet the requirements, and categories with no requirement", () => {
    expect(
      checkRule({
        rules: { car: CAR, other: { attribute: null, operator: null, value: null, message: "" } },
        userInfo: { dr_license: true },
      }),
    ).toEqual({ denied: false, violations: {} });
  });

  it('reads booleans and numbers given as strings ("True", " 18 ")', () => {
    expect(checkRule({ rules: { car: CAR }, userInfo: { dr_license: "True" } }).denied).toBe(false);
    expect(checkRule({ rules: { car: CAR }, userInfo: { dr_license: "false" } }).denied).toBe(true);
    const adult = { attribute: "age", operator: ">=", value: "18", message: "adults only" };
    expect(checkRule({ rules: { hotel: adult }, userInfo: { age: " 18 " } }).denied).toBe(false);
    expect(checkRule({ rules: { hotel: adult }, userInfo: { age: 17.5 } }).denied).toBe(true);
  });

  it("fails closed on a missing attribute and says it is missing", () => {
    const result = checkRule({ rules: { car: CAR }, userInfo: { age: 30 } });
    expect(result.denied).toBe(true);
    expect(result.violations.car).toContain("cannot buy or rent a car");
    expect(result.violations.car).toContain('"dr_license" is missing');
    expect(checkRule({ rules: { car: CAR }, userInfo: { dr_license: "" } }).denied).toBe(true);
    expect(checkRule({ rules: { car: CAR }, userInfo: null }).denied).toBe(true);
  });

  it("matches attribute names exactly first, then trimmed and without case", () => {
    expect(checkRule({ rules: { car: CAR }, userInfo: { " DR_License ": true } }).denied).toBe(false);
  });

  it("needs every requirement of a category", () => {
    const rules: Record<string, RuleSpec> = {
      rental: {
        requirements: [
          { attribute: "age", operator: ">=", value: 21 },
          { attribute: "dr_license", operator: "==", value: true },
        ],
        message: "Renters must be 21 and hold a license",
      },
    };
    expect(checkRule({ rules, userInfo: { age: 25, dr_license: true } }).denied).toBe(false);
    expect(checkRule({ rules, userInfo: { age: 20, dr_license: true } }).violations).toEqual({
      rental: "Renters must be 21 and hold a license",
    });
  });

  it("accepts the paper's field names and a list of rules", () => {
    const paper = {
      info: "vaccine",
      operator: "==",
      value: true,
      violation: "Unvaccinated users cannot book flights",
    };
    expect(checkRule({ rules: { flight: paper }, userInfo: { vaccine: false } }).violations).toEqual({
      flight: "Unvaccinated users cannot book flights",
    });
    expect(
      checkRule({ rules: [{ category: "flight", ...paper }], userInfo: { vaccine: false } }).violations,
    ).toEqual({ flight: "Unvaccinated users cannot book flights" });
  });

  it("writes a message when the rule has none", () => {
    expect(
      checkRule({ rules: { hotel: { attribute: "age", operator: ">", value: 17 } }, userInfo: { age: 3 } })
        .violations,
    ).toEqual({
      hotel: '"hotel" requires age > 17',
    });
  });

  it("implements each operator without evaluating code", () => {
    const cmp = (actual: unknown, operator: "==" | "!=" | ">=" | ">" | "<=" | "<", expected: unknown) =>
      compareRuleValues({ actual, operator, expected });
    expect(cmp(5, "<", 6)).toBe(true);
    expect(cmp("5", "<=", 5)).toBe(true);
    expect(cmp(5, ">", "5")).toBe(false);
    expect(cmp("Yes", "==", "yes ")).toBe(true);
    expect(cmp(true, "!=", "FALSE")).toBe(true);
    expect(cmp(1, "==", true)).toBe(false);
    expect(cmp("abc", ">=", 3)).toBe(false);
    expect(cmp("b", ">", "A")).toBe(true);
    expect(cmp({ valueOf: () => 99 }, ">", 3)).toBe(false);
  });

  it("rejects an unknown operator, naming the category", () => {
    expect(() => checkRule({ rules: { car: { ...CAR, operator: "=>" } }, userInfo: {} })).toThrow(
      WardenError,
    );
    expect(() => checkRule({ rules: { car: { ...CAR, operator: "=>" } }, userInfo: {} })).toThrow(/car/);
    expect(() => checkRule({ rules: 5 as unknown as Record<string, RuleSpec>, userInfo: {} })).toThrow(
      /rules/,
    );
  });
});

describe("CheckRule in the sandbox agrees with the host", () => {
  let sandbox: QuickJsSandbox;
  const prelude = Object.freeze([CHECK_RULE_FUNCTION.source]);
  beforeAll(async () => {
    sandbox = createQuickJsSandbox({ workers: 1 });
    await sandbox.ready();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  async function inSandbox(rules: unknown, userInfo: unknown): Promise<unknown> {
    const run = await sandbox.run({
      code: "let r;\ntry { r = CheckRule(data.rules, data.userInfo); } catch (e) { r = { error: e.name }; }\nfinish({ label: 0, output: r });",
      data: { rules, userInfo },
      prelude,
    });
    if (!run.ok) throw new Error(`${run.error.code}: ${run.error.message}`);
    return run.result.output;
  }

  function onHost(rules: unknown, userInfo: unknown): unknown {
    try {
      return checkRule({
        rules: rules as Record<string, RuleSpec>,
        userInfo: userInfo as Record<string, unknown>,
      });
    } catch {
      return { error: "TypeError" };
    }
  }

  const attributes = ["age", "domestic", "dr_license", "vaccine", "membership"];
  const attribute = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...attributes, "Age", " vaccine ") },
    { weight: 1, arbitrary: fc.constantFrom(null, "") },
  );
  const value = fc.constantFrom(
    true,
    false,
    "true",
    "False",
    " TRUE ",
    18,
    15,
    "18",
    " 21 ",
    17.5,
    "abc",
    "",
    null,
    0,
  );
  const operator = fc.oneof(
    {
      weight: 12,
      arbitrary: fc.constantFrom("==", "!=", ">=", ">", "<=", "<", "=", "===", "!==", "ge", "LT"),
    },
    { weight: 1, arbitrary: fc.constantFrom("=>", undefined, null) },
  );
  const message = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom("Rule A violated", "", "Must be a member"),
  );
  const requirement = fc
    .record({ attribute, operator, value, message })
    .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));
  const rule = fc.oneof(
    { weight: 4, arbitrary: requirement },
    {
      weight: 1,
      arbitrary: fc
        .record({ requirements: fc.array(requirement, { minLength: 1, maxLength: 3 }), message })
        .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined))),
    },
  );
  const rules = fc
    .array(fc.tuple(fc.constantFrom("car", "movie", "hotel", "job", "shopping", "flight", "other"), rule), {
      maxLength: 4,
    })
    .map((entries) => Object.fromEntries(entries));
  const userInfo = fc.oneof(
    {
      weight: 10,
      arbitrary: fc
        .array(fc.tuple(fc.constantFrom(...attributes, "AGE", " dr_license "), value), { maxLength: 6 })
        .map((entries) => Object.fromEntries(entries)),
    },
    { weight: 1, arbitrary: fc.constantFrom(null, [], "user") },
  );

  it("on random rules and user attributes", async () => {
    await fc.assert(
      fc.asyncProperty(rules, userInfo, async (r, u) => {
        const host = onHost(r, u);
        const box = await inSandbox(r, u);
        expect(JSON.stringify(box)).toBe(JSON.stringify(host));
      }),
      { numRuns: 150 },
    );
  });
});
