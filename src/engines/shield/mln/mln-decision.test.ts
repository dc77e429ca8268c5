import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMonitor, type LtlMonitor, parseLtl } from "../ltl/index.js";
import {
  decideMln,
  type MlnRule,
  type MlnSide,
  type MlnWorld,
  prepareMln,
  solveMln,
} from "./mln-decision.js";

const ACTIONS = ["a", "b"];
const STATES = ["s", "t", "u", "v"];

/** Propositional formulas over the atoms (the current step only). */
const formulaArb: fc.Arbitrary<string> = fc.letrec<{ f: string }>((tie) => ({
  f: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...ACTIONS, ...STATES),
    tie("f").map((x) => `!(${x})`),
    fc.tuple(tie("f"), fc.constantFrom("&", "|", "->"), tie("f")).map(([x, op, y]) => `(${x}) ${op} (${y})`),
  ),
})).f;

interface TestRule extends MlnRule {
  /** A monitor that has seen nothing: peeking one step reads the formula on that one-step trace. */
  monitor: LtlMonitor;
}

function makeRules(formulas: string[], weights: number[]): TestRule[] {
  return formulas.map((formula, i) => {
    const ast = parseLtl({ formula });
    const atoms = [...new Set(formula.match(/[a-z]+/g) ?? [])];
    return { id: `r${i}`, weight: weights[i] ?? 1, atoms, monitor: createMonitor({ ast }) };
  });
}

function holdsFor(rules: TestRule[]): MlnSide["holds"] {
  return ({ rule, world }) => rules[rule]!.monitor.peek({ step: world }).atStart;
}

/** μ+ = the world with the invoked actions true, μ− = the same with them false. */
function sides(
  rules: TestRule[],
  world: Record<string, boolean>,
  invoked: string[],
  open: string[],
): { plus: MlnSide; minus: MlnSide } {
  const holds = holdsFor(rules);
  const plus: Record<string, boolean> = { ...world };
  const minus: Record<string, boolean> = { ...world };
  for (const a of invoked) {
    plus[a] = true;
    minus[a] = false;
  }
  for (const o of open) {
    delete plus[o];
    delete minus[o];
  }
  return {
    plus: { values: plus, unassigned: open, holds },
    minus: { values: minus, unassigned: open, holds },
  };
}

const worldArb = fc.record(
  Object.fromEntries([...ACTIONS, ...STATES].map((p) => [p, fc.boolean()])),
) as fc.Arbitrary<Record<string, boolean>>;
const invokedArb = fc.subarray(ACTIONS, { minLength: 1 });
const openArb = fc.subarray(STATES);

describe("decideMln", () => {
  it("without open predicates equals the plain score difference (marginal = exact)", () => {
    fc.assert(
      fc.property(
        fc.array(formulaArb, { minLength: 1, maxLength: 6 }),
        fc.array(fc.double({ min: 0, max: 5, noNaN: true }), { minLength: 6, maxLength: 6 }),
        worldArb,
        invokedArb,
        (formulas, weights, world, invoked) => {
          const rules = makeRules(formulas, weights);
          const { plus, minus } = sides(rules, world, invoked, []);
          const r = decideMln({ rules, plus, minus });
          let want = 0;
          rules.forEach((rule, i) => {
            const hp = plus.holds({ rule: i, world: plus.values }) ? 1 : 0;
            const hm = minus.holds({ rule: i, world: minus.values }) ? 1 : 0;
            want += rule.weight * (hp - hm);
          });
          expect(r.delta).toBeCloseTo(want, 9);
          expect(r.method).toBe("hard");
        },
      ),
    );
  });

  it("partition function cancels: a rule that does not depend on the action never changes the verdict", () => {
    fc.assert(
      fc.property(
        fc.array(formulaArb, { minLength: 1, maxLength: 5 }),
        worldArb,
        invokedArb,
        openArb,
        fc.constantFrom("x", "x & y", "x -> y", "!(x | y)"),
        fc.boolean(),
        fc.double({ min: 0, max: 10, noNaN: true }),
        fc.double({ min: 0, max: 2, noNaN: true }),
        (formulas, world, invoked, open, extra, extraOpen, extraWeight, epsilon) => {
          const rules = makeRules(formulas, []);
          const s = sides(rules, world, invoked, open);
          const base = decideMln({ rules, ...s, epsilon });
          // The added rule reads only fresh predicates (x, y), assigned or open.
          const more = makeRules([...formulas, extra], [...formulas.map(() => 1), extraWeight]);
          const w2 = { ...world, x: true, y: false };
          const s2 = sides(more, w2, invoked, extraOpen ? [...open, "x", "y"] : open);
          const after = decideMln({ rules: more, ...s2, epsilon });
          expect(after.allowed).toBe(base.allowed);
          expect(after.delta).toBeCloseTo(base.delta, 9);
        },
      ),
    );
  });

  it("is monotone in ε", () => {
    fc.assert(
      fc.property(
        fc.array(formulaArb, { minLength: 1, maxLength: 5 }),
        fc.array(fc.double({ min: 0, max: 3, noNaN: true }), { minLength: 5, maxLength: 5 }),
        worldArb,
        invokedArb,
        openArb,
        fc.double({ min: 0, max: 3, noNaN: true }),
        fc.double({ min: 0, max: 3, noNaN: true }),
        (formulas, weights, world, invoked, open, e1, e2) => {
          const rules = makeRules(formulas, weights);
          const problem = prepareMln({ rules, ...sides(rules, world, invoked, open) });
          const [lo, hi] = e1 <= e2 ? [e1, e2] : [e2, e1];
          if (solveMln({ problem, epsilon: lo }).allowed)
            expect(solveMln({ problem, epsilon: hi }).allowed).toBe(true);
        },
      ),
    );
  });

  it("with equal weights and nothing open, allows iff no rule is newly violated (when none is newly satisfied)", () => {
    fc.assert(
      fc.property(
        fc.array(formulaArb, { minLength: 1, maxLength: 6 }),
        fc.double({ min: 0.1, max: 4, noNaN: true }),
        worldArb,
        invokedArb,
        (formulas, w, world, invoked) => {
          const rules = makeRules(
            formulas,
            formulas.map(() => w),
          );
          const s = sides(rules, world, invoked, []);
          const r = decideMln({ rules, ...s, epsilon: 0 });
          const newly = rules.filter(
            (_, i) =>
              s.minus.holds({ rule: i, world: s.minus.values }) &&
              !s.plus.holds({ rule: i, world: s.plus.values }),
          );
          expect(r.violated.map((v) => v.id)).toEqual(newly.map((x) => x.id));
          // In general: allowed iff newly violated <= newly satisfied; with none satisfied, iff none violated.
          expect(r.allowed).toBe(newly.length <= r.newlySatisfied.length);
          if (r.newlySatisfied.length === 0) expect(r.allowed).toBe(newly.length === 0);
        },
      ),
    );
  });

  it("marginalises an open predicate exactly: G(delete -> !sensitive) with sensitive unknown", () => {
    const rules = makeRules(["a -> !s"], [1]);
    const s = sides(rules, { a: true, s: false }, ["a"], ["s"]);
    const r = decideMln({ rules, ...s, epsilon: 0 });
    // plus: mean(e^1, e^0); minus: e^1 -> Δ = log((1 + e^-1) / 2).
    expect(r.delta).toBeCloseTo(Math.log((1 + Math.exp(-1)) / 2), 12);
    expect(r.allowed).toBe(false);
    expect(r.method).toBe("exact");
    expect(r.violated).toEqual([
      expect.objectContaining({ id: "r0", minus: 1, plus: expect.closeTo(Math.E / (Math.E + 1), 12) }),
    ]);
    expect(decideMln({ rules, ...s, epsilon: 0.38 }).allowed).toBe(true);
    expect(decideMln({ rules, ...s, epsilon: 0.37 }).allowed).toBe(false);
  });

  it("lets a physical rule over an open predicate sway the verdict", () => {
    // The action is bad only on sensitive data; t -> s (weight 3) says that pages of kind t are sensitive.
    const rules = makeRules(["a -> !s", "t -> s"], [1, 3]);
    const on = decideMln({ rules, ...sides(rules, { a: true, t: true }, ["a"], ["s"]), epsilon: 0.5 });
    const off = decideMln({ rules, ...sides(rules, { a: true, t: false }, ["a"], ["s"]), epsilon: 0.5 });
    expect(on.delta).toBeLessThan(off.delta);
    expect(on.allowed).toBe(false);
    expect(off.allowed).toBe(true);
  });

  it("sampling agrees with exact enumeration where both apply", () => {
    const formulas = ["a -> !(s & t)", "(s | u) -> !b", "t -> u", "v | s", "a -> (v -> !u)"];
    const rules = makeRules(formulas, [1.5, 1, 0.7, 2, 1.2]);
    for (const world of [
      { a: true, b: true },
      { a: true, b: false },
    ]) {
      const s = sides(rules, world, ["a", "b"], ["s", "t", "u", "v"]);
      const exact = decideMln({ rules, ...s });
      const sampled = decideMln({ rules, ...s, exactLimit: 0, samples: 20_000, seed: 3 });
      expect(exact.method).toBe("exact");
      expect(sampled.method).toBe("sampled");
      expect(Math.abs(sampled.delta - exact.delta)).toBeLessThan(0.03);
      expect(sampled.allowed).toBe(exact.allowed);
      exact.expectations.plus.forEach((p, i) => {
        if (p !== null) expect(Math.abs((sampled.expectations.plus[i] as number) - p)).toBeLessThan(0.03);
      });
      // The same seed gives the same estimate.
      expect(decideMln({ rules, ...s, exactLimit: 0, samples: 20_000, seed: 3 }).delta).toBe(sampled.delta);
    }
  });

  it("compares log-means when μ− fixes an open action predicate", () => {
    // An action predicate nobody could assign is open in μ+ and false in μ− ("no action").
    const rules = makeRules(["!a"], [1]);
    const holds = holdsFor(rules);
    const plus: MlnSide = { values: {}, unassigned: ["a"], holds };
    const minus: MlnSide = { values: { a: false } as MlnWorld, unassigned: [], holds };
    const r = decideMln({ rules, plus, minus });
    expect(r.delta).toBeCloseTo(Math.log((1 + Math.E) / 2) - 1, 12);
    expect(r.allowed).toBe(false);
  });

  it("rejects negative weights and ε with an error naming the field", () => {
    const rules = makeRules(["a"], [-1]);
    const s = sides(rules, { a: true }, ["a"], []);
    expect(() => decideMln({ rules, ...s })).toThrow(/rules\.0\.weight/);
    const ok = makeRules(["a"], [1]);
    expect(() => decideMln({ rules: ok, ...sides(ok, { a: true }, ["a"], []), epsilon: -1 })).toThrow(
      /epsilon/,
    );
  });
});
