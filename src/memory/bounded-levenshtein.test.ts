import fc from "fast-check";
import { distance } from "fastest-levenshtein";
import { describe, expect, it } from "vitest";
import { boundedLevenshtein, createLevenshteinPattern } from "./bounded-levenshtein.js";

// Small alphabets force many equal characters (the hard case for bit-parallel carries); lengths cross the
// 32-row block boundary several times; the astral character exercises surrogate pairs (two code units).
const alphabets = [
  ["a", "b"],
  ["a", "b", "c", "d", "e"],
  ["x", "é", "中", "😀", "\n"],
];
const text = (alphabet: string[], maxLength: number) =>
  fc.array(fc.constantFrom(...alphabet), { maxLength }).map((chars) => chars.join(""));
const pair = fc.integer({ min: 0, max: alphabets.length - 1 }).chain((i) => {
  const alphabet = alphabets[i] as string[];
  return fc.tuple(text(alphabet, 150), text(alphabet, 150));
});

/** Derives a near copy (the retrieval case: a few edits) so that small bounds are exercised too. */
const nearPair = fc
  .tuple(
    text(["a", "b", "c"], 300),
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.constantFrom("ins", "del", "sub", "cut", "paste"),
        fc.constantFrom("a", "b", "z"),
        fc.integer({ min: 1, max: 40 }),
      ),
      { maxLength: 12 },
    ),
  )
  .map(([a, edits]) => {
    const chars = a.split("");
    for (const [at, op, c, run] of edits) {
      const p = chars.length === 0 ? 0 : at % (chars.length + 1);
      if (op === "ins") chars.splice(p, 0, c);
      else if (op === "del") chars.splice(p, 1);
      else if (op === "cut")
        chars.splice(p, run); // long deletions and insertions move the path
      else if (op === "paste") chars.splice(p, 0, ...c.repeat(run));
      else if (p < chars.length) chars[p] = c;
    }
    return [a, chars.join("")] as const;
  });

describe("boundedLevenshtein", () => {
  it("is exact when the distance is within max, and says 'more than max' otherwise", () => {
    fc.assert(
      fc.property(fc.oneof(pair, nearPair), fc.nat({ max: 400 }), ([a, b], slack) => {
        const d = distance(a, b);
        for (const max of [0, 1, d - 1, d, d + 1, slack, Math.floor(d / 2)]) {
          if (max < 0) continue;
          const got = boundedLevenshtein({ a, b, max });
          if (d <= max) expect(got).toBe(d);
          else expect(got).toBeGreaterThan(max);
        }
        expect(boundedLevenshtein({ a, b, max: Number.POSITIVE_INFINITY })).toBe(d);
      }),
      { numRuns: 1500 },
    );
  });

  it("reuses one preprocessed pattern across many texts", () => {
    fc.assert(
      fc.property(
        text(["a", "b", "c"], 120),
        fc.array(text(["a", "b", "c"], 120), { maxLength: 8 }),
        (p, texts) => {
          const pattern = createLevenshteinPattern({ text: p });
          for (const t of texts) {
            const d = distance(p, t);
            expect(pattern.distance({ text: t, max: d })).toBe(d);
            if (d > 0) expect(pattern.distance({ text: t, max: d - 1 })).toBeGreaterThan(d - 1);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("is exact at the threshold for near copies across block boundaries (31..97 units)", () => {
    const nearCopy = fc
      .tuple(
        fc.constantFrom(31, 32, 33, 34, 54, 63, 64, 65, 66, 95, 96, 97),
        fc.array(fc.constantFrom("a", "b"), { minLength: 97, maxLength: 97 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom("ins", "del", "sub"), fc.constantFrom("a", "b")), {
          maxLength: 5,
        }),
      )
      .map(([length, chars, edits]) => {
        const a = chars.slice(0, length).join("");
        const b = a.split("");
        for (const [at, op, c] of edits) {
          const p = at % (b.length + 1);
          if (op === "ins") b.splice(p, 0, c);
          else if (op === "del") b.splice(p, 1);
          else if (p < b.length) b[p] = c;
        }
        return [a, b.join("")] as const;
      });
    fc.assert(
      fc.property(nearCopy, ([a, b]) => {
        const d = distance(a, b);
        for (const max of [d - 1, d, d + 1, d + 3]) {
          if (max < 0) continue;
          for (const [x, y] of [
            [a, b],
            [b, a],
          ] as const) {
            const got = boundedLevenshtein({ a: x, b: y, max });
            if (d <= max) expect(got).toBe(d);
            else expect(got).toBeGreaterThan(max);
          }
        }
      }),
      { numRuns: 3000 },
    );
    // Regressions: a path stepping diagonally out of rows that just left the band, into a block that
    // was dead one column earlier.
    expect(
      boundedLevenshtein({
        a: "baabaaaaaabbaabababbbbbbbabbbbbbb",
        b: "baabaaaaaabbbaabababbbbbbbabbbbbbb",
        max: 1,
      }),
    ).toBe(1);
    expect(
      boundedLevenshtein({
        a: "bbbaabbbaaabbbbaabbbabbaaababaaababbabbababaababaabbaa",
        b: "bbbaabbbaaabbbaaabbbabbaaababaaaababbabbababaababaabbaa",
        max: 2,
      }),
    ).toBe(2);
  });

  it("handles empty strings and long texts", () => {
    expect(boundedLevenshtein({ a: "", b: "", max: 0 })).toBe(0);
    expect(boundedLevenshtein({ a: "", b: "abc", max: 5 })).toBe(3);
    expect(boundedLevenshtein({ a: "abc", b: "", max: 2 })).toBeGreaterThan(2);
    const long =
      "Knowledge:\n- We can find the patient 030-51920 information in the patient database.\n".repeat(30);
    const edited = long.replace("030-51920", "035-2205").replace("patient database", "allergy table");
    const d = distance(long, edited);
    expect(boundedLevenshtein({ a: long, b: edited, max: d })).toBe(d);
    expect(boundedLevenshtein({ a: long, b: edited, max: d - 1 })).toBeGreaterThan(d - 1);
  });
});
