import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BDD_FALSE, BDD_TRUE, Bdd } from "./bdd.js";

type Expr =
  | { kind: "var"; v: number }
  | { kind: "const"; value: boolean }
  | { kind: "not"; a: Expr }
  | { kind: "and" | "or" | "iff" | "implies"; a: Expr; b: Expr }
  | { kind: "ite"; c: Expr; a: Expr; b: Expr };

const VARS = 4;
const exprArb: fc.Arbitrary<Expr> = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof(
    { maxDepth: 5, depthIdentifier: "bdd" },
    fc.integer({ min: 0, max: VARS - 1 }).map((v): Expr => ({ kind: "var", v })),
    fc.boolean().map((value): Expr => ({ kind: "const", value })),
    tie("e").map((a): Expr => ({ kind: "not", a })),
    fc
      .tuple(fc.constantFrom("and", "or", "iff", "implies") as fc.Arbitrary<"and">, tie("e"), tie("e"))
      .map(([kind, a, b]): Expr => ({ kind, a, b })),
    fc.tuple(tie("e"), tie("e"), tie("e")).map(([c, a, b]): Expr => ({ kind: "ite", c, a, b })),
  ),
})).e;

function truth(e: Expr, env: boolean[]): boolean {
  switch (e.kind) {
    case "var":
      return env[e.v] as boolean;
    case "const":
      return e.value;
    case "not":
      return !truth(e.a, env);
    case "and":
      return truth(e.a, env) && truth(e.b, env);
    case "or":
      return truth(e.a, env) || truth(e.b, env);
    case "iff":
      return truth(e.a, env) === truth(e.b, env);
    case "implies":
      return !truth(e.a, env) || truth(e.b, env);
    case "ite":
      return truth(e.c, env) ? truth(e.a, env) : truth(e.b, env);
  }
}

function build(bdd: Bdd, e: Expr): number {
  switch (e.kind) {
    case "var":
      return bdd.variable(e.v);
    case "const":
      return e.value ? BDD_TRUE : BDD_FALSE;
    case "not":
      return bdd.not(build(bdd, e.a));
    case "ite":
      return bdd.ite(build(bdd, e.c), build(bdd, e.a), build(bdd, e.b));
    default:
      return bdd[e.kind](build(bdd, e.a), build(bdd, e.b));
  }
}

function read(bdd: Bdd, f: number, env: boolean[]): boolean {
  let node = f;
  while (!bdd.isTerminal(node)) node = env[bdd.varOf(node)] ? bdd.high(node) : bdd.low(node);
  return node === BDD_TRUE;
}

const envs = Array.from({ length: 2 ** VARS }, (_, m) =>
  Array.from({ length: VARS }, (_, v) => ((m >> v) & 1) === 1),
);

describe("Bdd", () => {
  it("computes the same truth table as the expression, and is canonical", () => {
    fc.assert(
      fc.property(exprArb, exprArb, (e1, e2) => {
        const bdd = new Bdd();
        const f1 = build(bdd, e1);
        const f2 = build(bdd, e2);
        for (const env of envs) expect(read(bdd, f1, env)).toBe(truth(e1, env));
        const same = envs.every((env) => truth(e1, env) === truth(e2, env));
        expect(f1 === f2).toBe(same);
      }),
      { numRuns: 2000 },
    );
  });

  it("copies diagrams into a fresh manager without changing them", () => {
    fc.assert(
      fc.property(exprArb, (e) => {
        const bdd = new Bdd();
        const f = build(bdd, e);
        const fresh = new Bdd();
        const g = bdd.copyInto(fresh, f, new Map());
        for (const env of envs) expect(read(fresh, g, env)).toBe(read(bdd, f, env));
        expect(fresh.size).toBeLessThanOrEqual(bdd.size);
        expect(fresh.size).toBe(bdd.reachable([f]) + (f < 2 ? 1 : 0));
      }),
      { numRuns: 500 },
    );
  });
});
