/**
 * Canonical JSON: the text is what a sorted deep copy prints (the implementation before values already in
 * order were printed without a copy), for values in order, out of order, not plain, and with the edge
 * cases JSON.stringify has (undefined, functions, integer-like keys, toJSON, holes).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stableStringify } from "./stable-json.js";

/**
 * The reference: a deep copy with every object's keys sorted, then JSON.stringify. Built from entries, so
 * an own "__proto__" key (JSON.parse makes one) stays a key of the copy rather than setting its prototype.
 */
function referenceSort(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(referenceSort);
  if (value !== null && typeof value === "object") {
    const entries: [string, unknown][] = [];
    for (const key of Object.keys(value as object).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) entries.push([key, referenceSort(v)]);
    }
    return Object.fromEntries(entries);
  }
  return value;
}
const reference = (value: unknown, indent?: number) => JSON.stringify(referenceSort(value), null, indent);

class Point {
  constructor(
    readonly y: number,
    readonly x: number,
  ) {}
}

const cases: Record<string, unknown> = {
  "in order": { a: 1, b: [1, { c: 2, d: "x" }], e: { f: null } },
  "out of order": { b: 1, a: { z: 1, y: [{ q: 1, p: 2 }] } },
  "nested out of order under in-order keys": { a: { b: { d: 1, c: 2 } }, b: 1 },
  "an array of mixed items": [1, "a", null, { b: 1, a: 2 }, [{ y: 1, x: 2 }], true],
  "undefined values and functions": { a: undefined, b: () => 1, c: [undefined, () => 1], d: 1 },
  "integer-like keys": { "10": 1, "9": 2, a: 3, "1": 4 },
  "integer-like keys in order": { "1": 1, "2": 2 },
  "a date": { when: new Date(0), at: new Date(1) },
  "a class instance": { p: new Point(1, 2) },
  "a map": { m: new Map([["a", 1]]) },
  "a null-prototype object": Object.assign(Object.create(null) as object, { b: 1, a: 2 }),
  "own toJSON": { a: 1, toJSON: () => "own" },
  "a holey array": new Array<number>(3).fill(1, 0, 1),
  "empty containers": { a: {}, b: [] },
  scalars: "text",
  null: null,
  "unicode keys": { é: 1, e: 2, "\u{1F600}": 3, Z: 4 },
  "an own __proto__ key": JSON.parse('{"b":1,"__proto__":{"y":1,"x":2},"a":null}'),
};

describe("stableStringify", () => {
  for (const [name, value] of Object.entries(cases)) {
    it(`prints ${name} as a sorted copy would`, () => {
      expect(stableStringify({ value })).toBe(reference(value));
      expect(stableStringify({ value, indent: 2 })).toBe(reference(value, 2));
    });
  }

  it("prints any JSON value as a sorted copy would, and a sorted copy as itself", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = stableStringify({ value });
        expect(text).toBe(reference(value));
        expect(stableStringify({ value: JSON.parse(text) })).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it("leaves the value it prints unchanged", () => {
    const value = { b: { d: 1, c: 2 }, a: [{ y: 1, x: 2 }] };
    const before = JSON.stringify(value);
    stableStringify({ value });
    expect(JSON.stringify(value)).toBe(before);
  });

  it("sorts deep out-of-order trees (each child sorted once, not once per level)", () => {
    let value: Record<string, unknown> = { z: 1, a: 2 };
    for (let depth = 0; depth < 200; depth++) value = { z: value, a: depth };
    expect(stableStringify({ value })).toBe(reference(value));
  });
});
