import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WardenError } from "../../../core/errors.js";
import { formulaArb, traceArb } from "./arbitraries.test-support.js";
import type { LtlAst } from "./ast.js";
import { evaluate } from "./evaluate.js";
import { createMonitor } from "./monitor.js";
import { parseLtl } from "./parse.js";
import type { LtlStep } from "./trace.js";

const f = (formula: string): LtlAst => parseLtl({ formula });

/** A deterministic pseudo-random trajectory over a, b, c. */
function trajectory(length: number, seed: number): LtlStep[] {
  let s = seed >>> 0;
  const rand = (): number => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return Array.from({ length }, () => ({ a: rand() < 0.3, b: rand() < 0.2, c: rand() < 0.5 }));
}

describe("createMonitor: agreement with the batch evaluator on every prefix", () => {
  it("atStart = evaluate at 0 and atEnd = evaluate at the last step, for every prefix", () => {
    fc.assert(
      fc.property(formulaArb({ maxDepth: 4 }), traceArb({ maxLength: 10 }), (ast, trace) => {
        const monitor = createMonitor({ ast });
        trace.forEach((step, i) => {
          const prefix = trace.slice(0, i + 1);
          const peeked = monitor.peek({ step });
          const atStart = monitor.push({ step });
          expect(atStart).toBe(evaluate({ ast, trace: prefix, at: 0 }));
          const reading = monitor.reading();
          expect(reading.atStart).toBe(atStart);
          expect(reading.atEnd).toBe(evaluate({ ast, trace: prefix, at: i }));
          expect(peeked).toEqual(reading);
          expect(monitor.length).toBe(i + 1);
        });
      }),
      { numRuns: 5000 },
    );
  });

  it("a settled verdict holds for every continuation", () => {
    fc.assert(
      fc.property(
        formulaArb({ maxDepth: 4 }),
        traceArb({ maxLength: 6 }),
        fc.array(traceArb({ minLength: 0, maxLength: 5 }), { minLength: 1, maxLength: 4 }),
        (ast, prefix, continuations) => {
          const monitor = createMonitor({ ast });
          for (const step of prefix) monitor.push({ step });
          const { verdict } = monitor.reading();
          if (verdict === "pending") return;
          for (const rest of continuations) {
            expect(evaluate({ ast, trace: [...prefix, ...rest], at: 0 })).toBe(verdict === "satisfied");
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("stays correct over long trajectories, across garbage collections", () => {
    const formulas = [
      "G(a -> F b)",
      "G(a -> X(b U c))",
      "G(a -> (b S c)) & F(c & X X b)",
      "(a U (b R X c)) | G(c -> O(a & WX b))",
      "G(F a & F b & F c)",
      "F(a & X(b & X(c & X a)))",
      "G(a -> Y(F b))",
      "G(O(X a) -> H(c | F b))",
    ];
    for (const [index, formula] of formulas.entries()) {
      const ast = f(formula);
      const trace = trajectory(3000, index + 1);
      const monitor = createMonitor({ ast });
      trace.forEach((step, i) => {
        const value = monitor.push({ step });
        if (i % 499 === 0 || i === trace.length - 1) {
          const prefix = trace.slice(0, i + 1);
          expect(value, `${formula} at step ${i}`).toBe(evaluate({ ast, trace: prefix }));
          expect(monitor.reading().atEnd, `${formula} at step ${i}`).toBe(
            evaluate({ ast, trace: prefix, at: i }),
          );
        }
      });
    }
  });
});

describe("createMonitor: readings", () => {
  it("reads a whole-run rule at the start and a current-step rule at the end", () => {
    const invariant = createMonitor({ ast: f("G(delete -> O confirm)") });
    const local = createMonitor({ ast: f("delete -> O confirm") });
    const steps: LtlStep[] = [{ browse: true }, { confirm: true }, { delete: true }];
    for (const step of steps) {
      invariant.push({ step });
      local.push({ step });
      expect(invariant.reading().atStart).toBe(local.reading().atEnd);
    }
    const bad = { delete: true };
    const fresh = createMonitor({ ast: f("delete -> O confirm") });
    fresh.push({ step: {} });
    expect(fresh.peek({ step: bad }).atEnd).toBe(false);
    expect(fresh.peek({ step: { confirm: true, delete: true } }).atEnd).toBe(true);
    expect(fresh.length).toBe(1);
  });

  it("reports verdicts: a safety rule is violated for good, an eventuality satisfied for good", () => {
    const safety = createMonitor({ ast: f("G !leak") });
    expect(safety.push({ step: {} })).toBe(true);
    expect(safety.reading().verdict).toBe("pending");
    expect(safety.push({ step: { leak: true } })).toBe(false);
    expect(safety.reading().verdict).toBe("violated");
    expect(safety.push({ step: {} })).toBe(false);

    const goal = createMonitor({ ast: f("F goal") });
    expect(goal.push({ step: {} })).toBe(false);
    expect(goal.reading().verdict).toBe("pending");
    expect(goal.push({ step: { goal: true } })).toBe(true);
    expect(goal.reading().verdict).toBe("satisfied");

    const strongNext = createMonitor({ ast: f("X a") });
    expect(strongNext.push({ step: {} })).toBe(false);
    expect(strongNext.reading().verdict).toBe("pending");
  });

  it("reads the empty trace as satisfying nothing, and reset forgets every step", () => {
    const monitor = createMonitor({ ast: f("true") });
    expect(monitor.reading()).toEqual({ atStart: false, atEnd: false, verdict: "pending" });
    monitor.push({ step: {} });
    expect(monitor.reading()).toEqual({ atStart: true, atEnd: true, verdict: "satisfied" });
    monitor.reset();
    expect(monitor.length).toBe(0);
    expect(monitor.reading().atStart).toBe(false);
    const once = createMonitor({ ast: f("H !a") });
    once.push({ step: { a: true } });
    once.reset();
    expect(once.push({ step: {} })).toBe(true);
  });

  it("rejects a step that is not an object", () => {
    const monitor = createMonitor({ ast: f("a") });
    for (const step of [null, undefined, 3, "a", ["a"]]) {
      expect(() => monitor.push({ step: step as unknown as LtlStep })).toThrow(WardenError);
    }
  });
});

describe("createMonitor: state does not grow with the trace", () => {
  it("keeps the live state and the node table bounded over 20,000 steps", () => {
    const cases: Array<[string, number]> = [
      ["G(a -> O b)", 4],
      ["G(a -> F b)", 8],
      ["F goal", 4],
      ["G(a -> (b S c)) & G(c -> Y a)", 4],
      ["G(a -> X(b U c)) & (a U (b R X c))", 64],
    ];
    for (const [formula, liveBound] of cases) {
      const monitor = createMonitor({ ast: f(formula) });
      let maxLive = 0;
      let maxTable = 0;
      for (const step of trajectory(20_000, 7)) {
        monitor.push({ step });
        const stats = monitor.stats();
        maxLive = Math.max(maxLive, stats.liveNodes);
        maxTable = Math.max(maxTable, stats.tableNodes);
      }
      expect(maxLive, formula).toBeLessThanOrEqual(liveBound);
      expect(maxTable, formula).toBeLessThan(5000);
      expect(monitor.stats().steps).toBe(20_000);
    }
  });
});
