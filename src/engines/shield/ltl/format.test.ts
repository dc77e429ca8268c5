import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formulaArb } from "./arbitraries.test-support.js";
import { atoms } from "./atoms.js";
import { formatLtl } from "./format.js";
import { parseLtl } from "./parse.js";

const canon = (formula: string): string => formatLtl({ ast: parseLtl({ formula }) });

describe("formatLtl", () => {
  it.each([
    ["G(a->O b)", "G(a -> O b)"],
    ["G((a -> (b S c)))", "G(a -> b S c)"],
    ["((a & b) & c)", "a & b & c"],
    ["a & (b & c)", "a & (b & c)"],
    ["(a | b) & c", "(a | b) & c"],
    ["a -> (b -> c)", "a -> b -> c"],
    ["(a -> b) -> c", "(a -> b) -> c"],
    ["(a <-> b) <-> c", "a <-> b <-> c"],
    ["a <-> (b <-> c)", "a <-> (b <-> c)"],
    ["a U (b U c)", "a U (b U c)"],
    ["(a U b) U c", "(a U b) U c"],
    ["a U b R c", "a U (b R c)"],
    ["!(a)", "!a"],
    ["!(a & b)", "!(a & b)"],
    ["GF(a)", "G F a"],
    ["X(!a)", "X !a"],
    ["WX(a U b)", "WX(a U b)"],
    ["!G a", "!G a"],
    ["(true) | false", "true | false"],
    ["(a U b) & c", "a U b & c"],
    ["a & (b U c)", "a & b U c"],
  ])("%s prints as %s", (input, expected) => {
    expect(canon(input)).toBe(expected);
  });

  it("prints every formula so that it re-parses to the same tree, and is idempotent", () => {
    fc.assert(
      fc.property(formulaArb({ maxDepth: 6 }), (ast) => {
        const text = formatLtl({ ast });
        const back = parseLtl({ formula: text });
        expect(back).toEqual(ast);
        expect(formatLtl({ ast: back })).toBe(text);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("atoms", () => {
  it("lists each atom once, in order of first appearance, without constants", () => {
    expect(atoms({ ast: parseLtl({ formula: "G(delete -> O confirm) & (confirm S b) | true" }) })).toEqual([
      "delete",
      "confirm",
      "b",
    ]);
    expect(atoms({ ast: parseLtl({ formula: "true U false" }) })).toEqual([]);
  });

  it("matches the atom names in the printed formula", () => {
    fc.assert(
      fc.property(formulaArb(), (ast) => {
        const inText = formatLtl({ ast }).match(/[a-z_][a-z0-9_]*/g) ?? [];
        const expected = [...new Set(inText.filter((w) => w !== "true" && w !== "false"))];
        expect(atoms({ ast })).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
