import fc from "fast-check";
import { distance } from "fastest-levenshtein";
import { describe, expect, it } from "vitest";
import { affixUpperBound, bagDistance, charProfile } from "./distance-bounds.js";

const text = fc
  .constantFrom("ab", "abcde", "xé中😀\n")
  .chain((alphabet) => fc.array(fc.constantFrom(...alphabet.split("")), { maxLength: 120 }))
  .map((chars) => chars.join(""));
const related = fc.tuple(text, fc.nat({ max: 30 }), fc.nat()).map(([a, cut, shift]) => {
  // Shares a prefix or suffix with a, so the affix bound has something to strip.
  const b = shift % 2 === 0 ? a.slice(0, Math.max(0, a.length - cut)) + "zz" : "zz" + a.slice(cut);
  return [a, b] as const;
});

describe("distance bounds", () => {
  it("bag distance is a lower bound of the Levenshtein distance, and at least the length difference", () => {
    fc.assert(
      fc.property(fc.oneof(fc.tuple(text, text), related), ([a, b]) => {
        const bag = bagDistance({ a, b });
        const d = distance(a, b);
        expect(bag).toBeLessThanOrEqual(d);
        expect(bag).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
        expect(bagDistance({ a: b, b: a })).toBe(bag);
      }),
      { numRuns: 500 },
    );
  });

  it("the affix bound is an upper bound of the distance and at most the longer length", () => {
    fc.assert(
      fc.property(fc.oneof(fc.tuple(text, text), related), ([a, b]) => {
        const ub = affixUpperBound({ a, b });
        expect(ub).toBeGreaterThanOrEqual(distance(a, b));
        expect(ub).toBeLessThanOrEqual(Math.max(a.length, b.length));
      }),
      { numRuns: 500 },
    );
  });

  it("profiles count code units", () => {
    const p = charProfile({ text: "aab😀" });
    const counts = Object.fromEntries([...p.codes].map((c, i) => [c, p.counts[i]]));
    expect(counts).toEqual({ 97: 2, 98: 1, 55357: 1, 56832: 1 });
    expect(p.length).toBe(5);
  });
});
