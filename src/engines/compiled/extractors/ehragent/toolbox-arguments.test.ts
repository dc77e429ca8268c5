import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EICU_SCHEMA } from "./schema.js";
import { hole, type SymString } from "./sym-string.js";
import {
  comparedColumn,
  isPlainColumn,
  parseFilterConditions,
  parseGetValueArgument,
} from "./toolbox-arguments.js";

const conditions = (condition: SymString | string, tableColumns?: readonly string[]) =>
  parseFilterConditions({ condition: typeof condition === "string" ? [condition] : condition, tableColumns });

describe("parseFilterConditions", () => {
  it("reads the column of every operator form", () => {
    const text =
      "uniquepid=030-1||age>=50||age <= 60||gender != male||wardid<>3||x==1||labresult>1.5||labresult<2||" +
      "hospitaladmittime like 2105%||patientunitstayid in (1, 2)||drugname NOT IN ('a')||hospitaldischargetime is null";
    expect(conditions(text).columns).toEqual([
      "uniquepid",
      "age",
      "age",
      "gender",
      "wardid",
      "x",
      "labresult",
      "labresult",
      "hospitaladmittime",
      "patientunitstayid",
      "drugname",
      "hospitaldischargetime",
    ]);
  });

  it("reads aggregate selectors and columns inside functions", () => {
    const lab = EICU_SCHEMA.lab;
    expect(conditions("max(labresulttime)||MIN( labresult )", lab).columns).toEqual([
      "labresulttime",
      "labresult",
    ]);
    expect(
      conditions("datetime(labresulttime,'start of month') = datetime('now','start of month')", lab).columns,
    ).toEqual(["labresulttime"]);
    expect(conditions("strftime('%Y', labresulttime)>=2104", lab).columns).toEqual(["labresulttime"]);
  });

  it("keeps values that look like operators or separators inside values", () => {
    expect(conditions("labname=-bands||drugname=a=b||celllabel=evd output (ml)-icp").columns).toEqual([
      "labname",
      "drugname",
      "celllabel",
    ]);
  });

  it("reads literal column names beside values only known at run time", () => {
    const condition: SymString = ["patientunitstayid=", hole("x"), "||drugstarttime>", hole("date")];
    expect(conditions(condition)).toEqual({
      columns: ["patientunitstayid", "drugstarttime"],
      unresolved: [],
    });
    expect(conditions(["patientunitstayid in ", hole("ids")]).columns).toEqual(["patientunitstayid"]);
  });

  it("reports a column position that is only known at run time", () => {
    const result = conditions([hole("col"), "=3||age>1"]);
    expect(result.columns).toEqual(["age"]);
    expect(result.unresolved).toHaveLength(1);
    expect(conditions(["lab", hole("suffix"), "=3"]).unresolved).toHaveLength(1);
    expect(conditions("just words").unresolved).toHaveLength(1);
  });

  it("ignores empty parts", () => {
    expect(conditions("||age>3|| ||")).toEqual({ columns: ["age"], unresolved: [] });
  });

  it("finds every column of generated conditions (property)", () => {
    const column = fc.constantFrom(...EICU_SCHEMA.patient!);
    const op = fc.constantFrom("=", "!=", ">", "<", ">=", "<=", " like ", " in ", " not in ");
    const value = fc.string({
      unit: fc.constantFrom("a", "1", " ", "-", "%", "(", ")", ",", "."),
      maxLength: 8,
    });
    const part = fc.oneof(
      fc.tuple(column, op, value).map(([c, o, v]) => ({ text: `${c}${o}${v}`, column: c })),
      fc.tuple(fc.constantFrom("max", "min"), column).map(([f, c]) => ({ text: `${f}(${c})`, column: c })),
    );
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), (parts) => {
        const result = conditions(parts.map((p) => p.text).join("||"), EICU_SCHEMA.patient);
        expect(result.columns).toEqual(parts.map((p) => p.column));
        expect(result.unresolved).toEqual([]);
      }),
    );
  });
});

describe("parseGetValueArgument", () => {
  it("reads `column`, `column, operation` and `operation(column)`", () => {
    expect(parseGetValueArgument({ argument: ["routeadmin"] }).columns).toEqual(["routeadmin"]);
    expect(parseGetValueArgument({ argument: ["patientunitstayid, list"] }).columns).toEqual([
      "patientunitstayid",
    ]);
    expect(parseGetValueArgument({ argument: [" cost ,sum"] }).columns).toEqual(["cost"]);
    expect(parseGetValueArgument({ argument: ["max(labresult)"] }).columns).toEqual(["labresult"]);
    expect(parseGetValueArgument({ argument: ["Age"] }).columns).toEqual(["age"]);
  });

  it("accepts an unknown operation but not an unknown column", () => {
    expect(parseGetValueArgument({ argument: ["labresult, ", hole("op")] })).toEqual({
      columns: ["labresult"],
      unresolved: [],
    });
    expect(parseGetValueArgument({ argument: [hole("col"), ", max"] }).unresolved).toHaveLength(1);
    expect(parseGetValueArgument({ argument: ["*"] }).unresolved).toHaveLength(1);
  });
});

describe("hand-written matchers", () => {
  const IDENT = "[A-Za-z_][A-Za-z0-9_]*";
  const COMPARISON = new RegExp(`^\\s*(${IDENT})\\s*(?:>=|<=|!=|<>|==|=|>|<)`);
  const PLAIN = new RegExp(`^(${IDENT})$`);
  const text = fc
    .array(
      fc.constantFrom(
        "a",
        "Z",
        "_",
        "9",
        "age",
        " ",
        "\t",
        "\n",
        "\u00a0",
        "\u2028",
        "\ufeff",
        "\u200b",
        "=",
        "==",
        "!",
        "!=",
        "<",
        ">",
        "<>",
        "é",
        "(",
        "x1",
      ),
      { maxLength: 8 },
    )
    .map((pieces) => pieces.join(""));

  it("match exactly what the regexes they stand for match", () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(comparedColumn({ text: t })).toBe(COMPARISON.exec(t)?.[1] ?? null);
        expect(isPlainColumn({ text: t })).toBe(PLAIN.test(t));
      }),
      { numRuns: 5000 },
    );
  });
});
