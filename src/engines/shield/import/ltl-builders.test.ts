import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluate, parseLtl } from "../ltl/index.js";
import { atLeast, atMost, exactly, sequence } from "./ltl-builders.js";

const holds = (formula: string, trace: Array<Record<string, boolean>>) =>
  evaluate({ ast: parseLtl({ formula }), trace });

describe("ltl builders", () => {
  const trace = fc
    .array(fc.boolean(), { minLength: 1, maxLength: 12 })
    .map((bits) => bits.map((p) => ({ p })));

  it("count exactly as a loop over the trace does", () => {
    fc.assert(
      fc.property(trace, fc.integer({ min: 0, max: 6 }), (t, k) => {
        const count = t.filter((s) => s.p).length;
        expect(holds(atLeast({ atom: "p", count: k }), t)).toBe(count >= k);
        expect(holds(atMost({ atom: "p", count: k }), t)).toBe(count <= k);
        expect(holds(exactly({ atom: "p", count: k }), t)).toBe(count === k);
      }),
    );
  });

  it("find ordered and contiguous sequences as a brute-force search does", () => {
    const steps = fc.array(fc.constantFrom("a", "b", "c", "x"), { minLength: 1, maxLength: 10 });
    fc.assert(
      fc.property(
        steps,
        fc.array(fc.constantFrom("a", "b", "c"), { minLength: 1, maxLength: 3 }),
        (labels, want) => {
          const t = labels.map((l) => ({ a: l === "a", b: l === "b", c: l === "c" }));
          const contiguous = labels.join(",").includes(want.join(","))
            ? labels.some((_, i) => want.every((w, k) => labels[i + k] === w))
            : false;
          let k = 0;
          for (const l of labels) if (k < want.length && l === want[k]) k += 1;
          expect(holds(sequence({ atoms: want, contiguous: true }), t)).toBe(contiguous);
          expect(holds(sequence({ atoms: want, contiguous: false }), t)).toBe(k === want.length);
        },
      ),
    );
  });
});
