import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WardenError } from "../../../core/errors.js";
import { formulaArb, traceArb } from "./arbitraries.test-support.js";
import type { LtlAst } from "./ast.js";
import { evaluate, evaluatePositions } from "./evaluate.js";
import { parseLtl } from "./parse.js";
import type { LtlStep } from "./trace.js";

/**
 * Reference semantics, written straight from the definitions, one position at a time, sharing no code
 * with the implementation. Memoised per (subformula, position) only so that nested U/S stay fast.
 */
function reference(formula: LtlAst, trace: readonly LtlStep[], at: number): boolean {
  const n = trace.length;
  const memo = new Map<LtlAst, Map<number, boolean>>();
  const holdsAt = (f: LtlAst, i: number): boolean => {
    if (i < 0 || i >= n) return false;
    let row = memo.get(f);
    if (row === undefined) {
      row = new Map();
      memo.set(f, row);
    }
    const cached = row.get(i);
    if (cached !== undefined) return cached;
    const value = direct(f, i);
    row.set(i, value);
    return value;
  };
  const range = (from: number, to: number): number[] => {
    const out: number[] = [];
    for (let k = from; k < to; k++) out.push(k);
    return out;
  };
  const direct = (f: LtlAst, i: number): boolean => {
    switch (f.op) {
      case "true":
        return true;
      case "false":
        return false;
      case "atom":
        return (trace[i] as LtlStep)[f.name] === true;
      case "!":
        return !holdsAt(f.arg, i);
      case "X":
        return i + 1 < n && holdsAt(f.arg, i + 1);
      case "WX":
        return i + 1 === n || holdsAt(f.arg, i + 1);
      case "F":
        return range(i, n).some((j) => holdsAt(f.arg, j));
      case "G":
        return range(i, n).every((j) => holdsAt(f.arg, j));
      case "Y":
        return i > 0 && holdsAt(f.arg, i - 1);
      case "O":
        return range(0, i + 1).some((j) => holdsAt(f.arg, j));
      case "H":
        return range(0, i + 1).every((j) => holdsAt(f.arg, j));
      case "&":
        return holdsAt(f.left, i) && holdsAt(f.right, i);
      case "|":
        return holdsAt(f.left, i) || holdsAt(f.right, i);
      case "->":
        return !holdsAt(f.left, i) || holdsAt(f.right, i);
      case "<->":
        return holdsAt(f.left, i) === holdsAt(f.right, i);
      case "U":
        return range(i, n).some((j) => holdsAt(f.right, j) && range(i, j).every((k) => holdsAt(f.left, k)));
      case "R":
        // ψ holds at every j unless φ held somewhere in [i, j): the release reading, stated directly.
        return range(i, n).every((j) => holdsAt(f.right, j) || range(i, j).some((k) => holdsAt(f.left, k)));
      case "S":
        return range(0, i + 1).some(
          (j) => holdsAt(f.right, j) && range(j + 1, i + 1).every((k) => holdsAt(f.left, k)),
        );
    }
  };
  return holdsAt(formula, at);
}

const all = (ast: LtlAst, trace: readonly LtlStep[]): boolean[] => evaluatePositions({ ast, trace });
const f = (formula: string): LtlAst => parseLtl({ formula });
const atom = (name: string): LtlAst => ({ op: "atom", name });
const T: LtlAst = { op: "true" };

describe("evaluate: examples", () => {
  const trace: LtlStep[] = [
    { a: true },
    { b: true },
    { a: true, c: true },
    { confirm: true },
    { delete: true },
  ];
  it.each([
    ["a", 0, true],
    ["a", 1, false],
    ["X b", 0, true],
    ["X b", 4, false],
    ["WX b", 4, true],
    ["F c", 0, true],
    ["F c", 3, false],
    ["G(a | b | confirm | delete)", 0, true],
    ["a U b", 0, true],
    ["b U c", 0, false],
    ["Y b", 2, true],
    ["Y a", 0, false],
    ["O c", 4, true],
    ["O c", 1, false],
    ["H !delete", 3, true],
    ["H !delete", 4, false],
    ["G(delete -> O confirm)", 0, true],
    ["G(c -> Y b)", 0, true],
    ["!c S b", 1, true],
    ["!c S b", 2, false],
    ["true", 4, true],
    ["G(a -> F b)", 0, false],
  ])("%s at %i is %s", (formula, at, expected) => {
    expect(evaluate({ ast: f(formula), trace, at })).toBe(expected);
  });

  it("reads a missing or non-true atom as false", () => {
    expect(evaluate({ ast: f("a"), trace: [{}] })).toBe(false);
    expect(evaluate({ ast: f("!a"), trace: [{ b: true }] })).toBe(true);
    expect(evaluate({ ast: f("constructor | __proto__ | to_string"), trace: [{}] })).toBe(false);
  });

  it("is false at positions outside the trace, the empty trace included", () => {
    expect(evaluate({ ast: f("true"), trace: [] })).toBe(false);
    expect(evaluate({ ast: f("G a"), trace: [] })).toBe(false);
    expect(evaluate({ ast: f("!a"), trace: [{}], at: 1 })).toBe(false);
    expect(evaluatePositions({ ast: f("a"), trace: [] })).toEqual([]);
  });

  it("rejects a negative or fractional position and a non-array trace", () => {
    expect(() => evaluate({ ast: f("a"), trace: [{}], at: -1 })).toThrow(WardenError);
    expect(() => evaluate({ ast: f("a"), trace: [{}], at: 0.5 })).toThrow(/at: expected a position/);
    expect(() => evaluate({ ast: f("a"), trace: {} as unknown as LtlStep[] })).toThrow(/trace/);
  });

  it("rejects a malformed syntax tree with INVALID_INPUT", () => {
    for (const ast of [null, { op: "?" }, { op: "atom" }, { op: "X" }, { op: "U", left: { op: "true" } }]) {
      expect(() => evaluate({ ast: ast as unknown as LtlAst, trace: [{}] })).toThrow(
        /ast: not an LTL syntax tree node/,
      );
    }
  });

  it("evaluates long traces and shared subformulas", () => {
    const n = 20_000;
    const long = Array.from(
      { length: n },
      (_, i): LtlStep => ({ a: i % 3 === 0, b: i % 7 === 0 && i < n - 5 }),
    );
    // Last b at 19,992 (7 * 2856); a occurs later, at 19,995 and 19,998, so G(a -> F b) fails before 19,999.
    expect(evaluate({ ast: f("G(b -> O a)"), trace: long })).toBe(true);
    expect(evaluate({ ast: f("G(a -> F b)"), trace: long })).toBe(false);
    expect(evaluate({ ast: f("G(a -> F b)"), trace: long, at: 19_999 })).toBe(true);
    expect(evaluate({ ast: f("G(a -> F b) & F b | (F b) U (F b)"), trace: long })).toBe(true);
    expect(evaluatePositions({ ast: f("G(a -> F b)"), trace: long }).indexOf(true)).toBe(19_999);
  });
});

describe("evaluate: agreement with the reference semantics", () => {
  it("agrees at every position of random formulas over random traces (5,000 pairs)", () => {
    fc.assert(
      fc.property(formulaArb({ maxDepth: 4 }), traceArb({ minLength: 0, maxLength: 10 }), (ast, trace) => {
        const got = all(ast, trace);
        expect(got).toEqual(trace.map((_, i) => reference(ast, trace, i)));
        for (let i = 0; i <= trace.length; i++)
          expect(evaluate({ ast, trace, at: i })).toBe(reference(ast, trace, i));
      }),
      { numRuns: 5000 },
    );
  });
});

describe("evaluate: standard equivalences at every position", () => {
  const sub = formulaArb({ maxDepth: 3 });
  const un = (op: string, arg: LtlAst): LtlAst => ({ op, arg }) as LtlAst;
  const bin = (op: string, left: LtlAst, right: LtlAst): LtlAst => ({ op, left, right }) as LtlAst;
  const not = (arg: LtlAst): LtlAst => un("!", arg);

  const equivalences: Array<[string, (p: LtlAst, q: LtlAst) => [LtlAst, LtlAst]]> = [
    ["F p = true U p", (p) => [un("F", p), bin("U", T, p)]],
    ["G p = !F !p", (p) => [un("G", p), not(un("F", not(p)))]],
    ["p R q = !(!p U !q)", (p, q) => [bin("R", p, q), not(bin("U", not(p), not(q)))]],
    ["O p = true S p", (p) => [un("O", p), bin("S", T, p)]],
    ["H p = !O !p", (p) => [un("H", p), not(un("O", not(p)))]],
    ["!X p = WX !p", (p) => [not(un("X", p)), un("WX", not(p))]],
    [
      "p U q = q | (p & X(p U q))",
      (p, q) => [bin("U", p, q), bin("|", q, bin("&", p, un("X", bin("U", p, q))))],
    ],
    [
      "p R q = q & (p | WX(p R q))",
      (p, q) => [bin("R", p, q), bin("&", q, bin("|", p, un("WX", bin("R", p, q))))],
    ],
    [
      "p S q = q | (p & Y(p S q))",
      (p, q) => [bin("S", p, q), bin("|", q, bin("&", p, un("Y", bin("S", p, q))))],
    ],
    ["F p = p | X F p", (p) => [un("F", p), bin("|", p, un("X", un("F", p)))]],
    ["G p = p & WX G p", (p) => [un("G", p), bin("&", p, un("WX", un("G", p)))]],
    ["O p = p | Y O p", (p) => [un("O", p), bin("|", p, un("Y", un("O", p)))]],
    ["H p = p & !Y !H p", (p) => [un("H", p), bin("&", p, not(un("Y", not(un("H", p)))))]],
    ["F(p | q) = F p | F q", (p, q) => [un("F", bin("|", p, q)), bin("|", un("F", p), un("F", q))]],
    ["G(p & q) = G p & G q", (p, q) => [un("G", bin("&", p, q)), bin("&", un("G", p), un("G", q))]],
    ["X(p & q) = X p & X q", (p, q) => [un("X", bin("&", p, q)), bin("&", un("X", p), un("X", q))]],
    ["p -> q = !p | q", (p, q) => [bin("->", p, q), bin("|", not(p), q)]],
    [
      "p <-> q = (p -> q) & (q -> p)",
      (p, q) => [bin("<->", p, q), bin("&", bin("->", p, q), bin("->", q, p))],
    ],
    ["F F p = F p", (p) => [un("F", un("F", p)), un("F", p)]],
    ["G G p = G p", (p) => [un("G", un("G", p)), un("G", p)]],
    ["O O p = O p", (p) => [un("O", un("O", p)), un("O", p)]],
  ];

  it.each(equivalences)("%s", (_, build) => {
    fc.assert(
      fc.property(sub, sub, traceArb(), (p, q, trace) => {
        const [lhs, rhs] = build(p, q);
        expect(all(lhs, trace)).toEqual(all(rhs, trace));
      }),
      { numRuns: 300 },
    );
  });

  const validities: Array<[string, (p: LtlAst) => LtlAst]> = [
    ["X p -> WX p", (p) => bin("->", un("X", p), un("WX", p))],
    ["G p -> F p", (p) => bin("->", un("G", p), un("F", p))],
    ["H p -> O p", (p) => bin("->", un("H", p), un("O", p))],
    ["Y p -> O Y p", (p) => bin("->", un("Y", p), un("O", un("Y", p)))],
  ];
  it.each(validities)("%s holds everywhere", (_, build) => {
    fc.assert(
      fc.property(sub, traceArb(), (p, trace) => {
        expect(all(build(p), trace).every(Boolean)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("at the last position: G p = F p = p, X p is false, WX p is true; at the first: Y p is false, O p = H p = p", () => {
    fc.assert(
      fc.property(sub, traceArb(), (p, trace) => {
        const last = trace.length - 1;
        const at = (ast: LtlAst, i: number): boolean => evaluate({ ast, trace, at: i });
        expect(at(un("G", p), last)).toBe(at(p, last));
        expect(at(un("F", p), last)).toBe(at(p, last));
        expect(at(un("X", p), last)).toBe(false);
        expect(at(un("WX", p), last)).toBe(true);
        expect(at(un("Y", p), 0)).toBe(false);
        expect(at(un("O", p), 0)).toBe(at(p, 0));
        expect(at(un("H", p), 0)).toBe(at(p, 0));
        expect(at(bin("U", p, atom("a")), last)).toBe(at(atom("a"), last));
      }),
      { numRuns: 300 },
    );
  });
});
