import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WardenError } from "../../../core/errors.js";
import type { LtlAst } from "./ast.js";
import { formatLtl } from "./format.js";
import { LTL_MAX_DEPTH, parseLtl } from "./parse.js";

const p = (formula: string): LtlAst => parseLtl({ formula });
/** Fully parenthesised rendering, independent of formatLtl, to state the expected grouping. */
function paren(ast: LtlAst): string {
  if (ast.op === "atom") return ast.name;
  if (ast.op === "true" || ast.op === "false") return ast.op;
  if ("arg" in ast) return `${ast.op}(${paren(ast.arg)})`;
  if ("left" in ast) return `(${paren(ast.left)} ${ast.op} ${paren(ast.right)})`;
  throw new Error("unreachable");
}
const grouping = (formula: string): string => paren(p(formula));

function parseError(formula: string): WardenError {
  try {
    parseLtl({ formula });
  } catch (error) {
    expect(error).toBeInstanceOf(WardenError);
    return error as WardenError;
  }
  throw new Error(`expected ${JSON.stringify(formula)} not to parse`);
}

describe("parseLtl: atoms, constants and operators", () => {
  it("reads atoms and constants", () => {
    expect(p("delete_data")).toEqual({ op: "atom", name: "delete_data" });
    expect(p("_x1")).toEqual({ op: "atom", name: "_x1" });
    expect(p("true")).toEqual({ op: "true" });
    expect(p("false")).toEqual({ op: "false" });
    expect(p("truex")).toEqual({ op: "atom", name: "truex" });
  });

  it("reads every operator", () => {
    for (const op of ["X", "WX", "G", "F", "Y", "O", "H"]) {
      expect(p(`${op} a`)).toEqual({ op, arg: { op: "atom", name: "a" } });
      expect(p(`${op}(a)`)).toEqual({ op, arg: { op: "atom", name: "a" } });
    }
    expect(p("!a")).toEqual({ op: "!", arg: { op: "atom", name: "a" } });
    for (const op of ["&", "|", "->", "<->", "U", "R", "S"]) {
      expect(p(`a ${op} b`)).toEqual({
        op,
        left: { op: "atom", name: "a" },
        right: { op: "atom", name: "b" },
      });
    }
  });

  it("allows free whitespace, including newlines and tabs, and none around symbols", () => {
    expect(p("  G(\n\ta->O b )\n")).toEqual(p("G(a -> O b)"));
    expect(p("a&b|!c")).toEqual(p("a & b | !c"));
    expect(p("G!a")).toEqual(p("G !a"));
  });

  it("reads a run of upper-case operators as consecutive operators (WX greedy)", () => {
    expect(p("GF a")).toEqual(p("G F a"));
    expect(p("XWX a")).toEqual(p("X WX a"));
    expect(p("WXX a")).toEqual(p("WX X a"));
    expect(p("GF(a)")).toEqual(p("G F a"));
  });
});

describe("parseLtl: precedence and associativity", () => {
  const table: Array<[string, string]> = [
    // unary binds tighter than every binary operator
    ["!a & b", "(!(a) & b)"],
    ["G a -> b", "(G(a) -> b)"],
    ["X a U b", "(X(a) U b)"],
    ["!a U b", "(!(a) U b)"],
    ["O a S b", "(O(a) S b)"],
    ["G !X a", "G(!(X(a)))"],
    // U R S bind tighter than &
    ["a & b U c", "(a & (b U c))"],
    ["a U b & c", "((a U b) & c)"],
    ["a S b & c", "((a S b) & c)"],
    ["a R b | c", "((a R b) | c)"],
    // & tighter than |, | tighter than ->, -> tighter than <->
    ["a | b & c", "(a | (b & c))"],
    ["a & b | c", "((a & b) | c)"],
    ["a -> b | c", "(a -> (b | c))"],
    ["a | b -> c", "((a | b) -> c)"],
    ["a <-> b -> c", "(a <-> (b -> c))"],
    ["a -> b <-> c", "((a -> b) <-> c)"],
    // associativity: & | <-> left; -> U R S right
    ["a & b & c", "((a & b) & c)"],
    ["a | b | c", "((a | b) | c)"],
    ["a <-> b <-> c", "((a <-> b) <-> c)"],
    ["a -> b -> c", "(a -> (b -> c))"],
    ["a U b U c", "(a U (b U c))"],
    ["a R b R c", "(a R (b R c))"],
    ["a S b S c", "(a S (b S c))"],
    ["a U b R c S d", "(a U (b R (c S d)))"],
    ["a S b U c", "(a S (b U c))"],
    // parentheses override
    ["(a -> b) -> c", "((a -> b) -> c)"],
    ["(a U b) U c", "((a U b) U c)"],
    ["G(a -> O b)", "G((a -> O(b)))"],
    ["G(a -> (b S c))", "G((a -> (b S c)))"],
  ];
  it.each(table)("%s groups as %s", (formula, expected) => {
    expect(grouping(formula)).toBe(expected);
  });
});

describe("parseLtl: errors", () => {
  const cases: Array<[string, string, number, number]> = [
    ["", "expected a formula but found end of input", 1, 1],
    ["   ", "expected a formula but found end of input", 1, 4],
    ["a &", "expected a formula after '&' but found end of input", 1, 4],
    ["a & & b", "expected a formula after '&' but found operator '&'", 1, 5],
    ["G(a -> (b S c)", "expected ')' to close the '(' at 1:2 but found end of input", 1, 15],
    ["(a", "expected ')' to close the '(' at 1:1 but found end of input", 1, 3],
    ["a)", "unmatched ')'", 1, 2],
    ["()", "expected a formula after '(' but found ')'", 1, 2],
    ["a b", "expected an operator or end of input but found atom 'b'", 1, 3],
    ["a (b)", "expected an operator or end of input but found '('", 1, 3],
    ["U a", "expected a formula but found operator 'U'", 1, 1],
    ["a U", "expected a formula after 'U' but found end of input", 1, 4],
    ["G", "expected a formula after 'G' but found end of input", 1, 2],
    ["!", "expected a formula after '!' but found end of input", 1, 2],
    ["a UR b", "expected a formula after 'U' but found operator 'R'", 1, 4],
    ["a ! b", "expected an operator or end of input but found operator '!'", 1, 3],
    [
      "Xp",
      "'Xp' is neither an atom nor an operator: separate the operator from its argument, e.g. 'X p' or 'X(p)'",
      1,
      1,
    ],
    ["a & GFp", "'GFp' is neither an atom nor an operator", 1, 5],
    ["isPrivate", "'isPrivate' is not an atom: atoms are lower-case identifiers", 1, 1],
    ["True", "(the constants are written 'true' and 'false')", 1, 1],
    ["TRUE", "unknown operator 'TRUE'", 1, 1],
    ["a W b", "unknown operator 'W'", 1, 3],
    ["Q a", "unknown operator 'Q' (the operators are X WX G F U R Y O H S)", 1, 1],
    ["GQ a", "unknown operator 'Q'", 1, 2],
    ["1a", "'1a' is not an atom: atoms start with a lower-case letter or '_'", 1, 1],
    ["a && b", "unexpected '&&': conjunction is written '&'", 1, 3],
    ["a || b", "unexpected '||': disjunction is written '|'", 1, 3],
    ["a => b", "unexpected '=>': implication is written '->'", 1, 3],
    ["a <=> b", "unexpected '<=>': equivalence is written '<->'", 1, 3],
    ["~a", "unexpected '~': negation is written '!'", 1, 1],
    ["a - > b", "unexpected '-': implication is written '->'", 1, 3],
    ["a <- b", "unexpected '<': equivalence is written '<->'", 1, 3],
    ["a # b", "unexpected character '#'", 1, 3],
    ["a\u0001", "unexpected character U+0001", 1, 2],
    ["G(a ->\n  O b", "expected ')' to close the '(' at 1:2 but found end of input", 2, 6],
    ["G(a ->\n  (b S))", "expected a formula after 'S' but found ')'", 2, 7],
    ["a\n&\n", "expected a formula after '&' but found end of input", 3, 1],
  ];

  it.each(cases)("%j fails with %j at %i:%i", (formula, reason, line, column) => {
    const error = parseError(formula);
    expect(error.code).toBe("LTL_PARSE");
    expect(error.message).toContain(reason);
    expect(error.message).toContain(` at ${line}:${column}\n`);
    expect(error.details).toMatchObject({ line, column });
    const offset = error.details?.offset as number;
    const lines = formula.slice(0, offset).split("\n");
    expect(lines.length).toBe(line);
    expect((lines[lines.length - 1] as string).length + 1).toBe(column);
  });

  it("shows the offending line with a caret under the error", () => {
    const error = parseError("G(a -> (b S c)");
    expect(error.message).toBe(
      "expected ')' to close the '(' at 1:2 but found end of input at 1:15\n  G(a -> (b S c)\n                ^",
    );
    const multiline = parseError("G(a ->\n  (b S))");
    expect(multiline.details?.excerpt).toBe("    (b S))\n        ^");
  });

  it("windows the excerpt of a long line around the error", () => {
    const formula = `${"a & ".repeat(40)}b b${" & c".repeat(40)}`;
    const error = parseError(formula);
    const [, shown, caret] = error.message.split("\n") as [string, string, string];
    expect(shown.length).toBeLessThan(90);
    expect(shown.startsWith("  ...")).toBe(true);
    expect(shown.endsWith("...")).toBe(true);
    expect(shown[caret.length - 1]).toBe("b");
  });

  it("rejects nesting beyond the depth limit instead of overflowing the stack", () => {
    const deepParens = `${"(".repeat(LTL_MAX_DEPTH + 5)}a${")".repeat(LTL_MAX_DEPTH + 5)}`;
    expect(parseError(deepParens).message).toContain(`parentheses nest deeper than ${LTL_MAX_DEPTH} levels`);
    expect(parseError(`${"!".repeat(LTL_MAX_DEPTH + 5)}a`).message).toContain("formula nests deeper than");
    expect(parseError(Array.from({ length: LTL_MAX_DEPTH + 5 }, () => "a").join(" U ")).code).toBe(
      "LTL_PARSE",
    );
    // Within the limit, long chains and deep nesting parse.
    expect(p(`${"(".repeat(200)}a${")".repeat(200)}`)).toEqual(p("a"));
    expect(p(Array.from({ length: 500 }, () => "a").join(" & ")).op).toBe("&");
  });

  it("answers a non-string formula with INVALID_INPUT naming the field", () => {
    expect(() => parseLtl({ formula: 42 as unknown as string })).toThrow(/formula/);
    try {
      parseLtl({ formula: 42 as unknown as string });
    } catch (error) {
      expect((error as WardenError).code).toBe("INVALID_INPUT");
    }
  });

  it("never throws anything but LTL_PARSE on arbitrary text", () => {
    const alphabet = fc.constantFrom(..."abXWGFURSYOH!&|-<>() \n~=#pq".split(""));
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 30 }), (chars) => {
        const formula = chars.join("");
        try {
          const ast = parseLtl({ formula });
          expect(parseLtl({ formula: formatLtl({ ast }) })).toEqual(ast);
        } catch (error) {
          expect(error).toBeInstanceOf(WardenError);
          expect((error as WardenError).code).toBe("LTL_PARSE");
          const { offset } = (error as WardenError).details as { offset: number };
          expect(offset).toBeGreaterThanOrEqual(0);
          expect(offset).toBeLessThanOrEqual(formula.length);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
