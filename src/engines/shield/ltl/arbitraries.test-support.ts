/**
 * fast-check generators shared by the LTLf tests: random formulas over every operator (bounded depth)
 * and random traces over a few atoms. Test-only: nothing outside the tests imports this module.
 */
import fc from "fast-check";
import { LTL_BINARY_OPS, LTL_UNARY_OPS, type LtlAst } from "./ast.js";
import type { LtlStep } from "./trace.js";

export const TEST_ATOMS = ["a", "b", "c"] as const;

const leaf: fc.Arbitrary<LtlAst> = fc.oneof(
  { arbitrary: fc.constantFrom(...TEST_ATOMS).map((name): LtlAst => ({ op: "atom", name })), weight: 4 },
  { arbitrary: fc.constantFrom<LtlAst>({ op: "true" }, { op: "false" }), weight: 1 },
);

/** Random formulas using every operator, at most `maxDepth` operators deep. */
export function formulaArb(options: { maxDepth?: number } = {}): fc.Arbitrary<LtlAst> {
  const maxDepth = options.maxDepth ?? 4;
  return fc.letrec<{ formula: LtlAst }>((tie) => ({
    formula: fc.oneof(
      { maxDepth, depthIdentifier: "ltl-formula" },
      leaf,
      fc.record({ op: fc.constantFrom(...LTL_UNARY_OPS), arg: tie("formula") }),
      fc.record({ op: fc.constantFrom(...LTL_BINARY_OPS), left: tie("formula"), right: tie("formula") }),
    ),
  })).formula;
}

/** One step over TEST_ATOMS; atoms that are false are sometimes written, sometimes left out. */
export const stepArb: fc.Arbitrary<LtlStep> = fc
  .tuple(fc.subarray([...TEST_ATOMS]), fc.subarray([...TEST_ATOMS]))
  .map(([trueAtoms, writtenFalse]) => {
    const step: Record<string, boolean> = {};
    for (const name of writtenFalse) step[name] = false;
    for (const name of trueAtoms) step[name] = true;
    return step;
  });

export function traceArb(options: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<LtlStep[]> {
  return fc.array(stepArb, { minLength: options.minLength ?? 1, maxLength: options.maxLength ?? 10 });
}
