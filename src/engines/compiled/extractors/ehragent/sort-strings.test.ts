import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sortedJoin, sortedStrings, sortStrings } from "./sort-strings.js";

describe("sort-strings", () => {
  it("orders strings exactly as Array.prototype.sort does, short lists and long", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary" }), { maxLength: 40 }), (names) => {
        const expected = [...names].sort();
        expect(sortStrings([...names])).toEqual(expected);
        expect(sortedStrings(new Set(names))).toEqual([...new Set(names)].sort());
        expect(sortedJoin(names)).toBe(expected.join(","));
      }),
      { numRuns: 500 },
    );
  });

  it("sorts in place and keeps duplicates", () => {
    const list = ["b", "a", "b", "A", "é", "e", ""];
    expect(sortStrings(list)).toBe(list);
    expect(list).toEqual(["", "A", "a", "b", "b", "e", "é"]);
  });
});
