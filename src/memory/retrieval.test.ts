import { distance } from "fastest-levenshtein";
import { describe, expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import { topK } from "./retrieval.js";

const items = [
  { id: "c", seq: 3, input: "abc", output: "xyz" },
  { id: "a", seq: 1, input: "abd", output: "xyz" },
  { id: "b", seq: 2, input: "zzz", output: "xyz" },
  { id: "d", seq: 4, input: "abc", output: "xy" },
  { id: "e", seq: 3, input: "abc", output: "xyz" },
];

describe("topK (exhaustive retrieval)", () => {
  it("ranks by input distance + output distance, ties by seq then id", () => {
    const hits = topK({ items, input: "abc", output: "xyz", k: 5, order: "most" });
    expect(hits.map((h) => [h.item.id, h.distance])).toEqual([
      ["c", 0],
      ["e", 0],
      ["a", 1],
      ["d", 1],
      ["b", 3],
    ]);
    for (const hit of hits) {
      expect(hit.distance).toBe(distance(hit.item.input, "abc") + distance(hit.item.output, "xyz"));
    }
  });

  it("'least' returns the farthest first, with the same tie-break", () => {
    const hits = topK({ items, input: "abc", output: "xyz", k: 3, order: "least" });
    expect(hits.map((h) => [h.item.id, h.distance])).toEqual([
      ["b", 3],
      ["a", 1],
      ["d", 1],
    ]);
  });

  it("returns [] for k = 0 or no items, and everything for k > n", () => {
    expect(topK({ items, input: "a", output: "b", k: 0, order: "most" })).toEqual([]);
    expect(topK({ items: [], input: "a", output: "b", k: 3, order: "most" })).toEqual([]);
    expect(topK({ items, input: "a", output: "b", k: 50, order: "least" })).toHaveLength(items.length);
  });

  it("rejects a bad k or order with a WardenError naming the field", () => {
    for (const [bad, field] of [
      [{ k: -1 }, "k"],
      [{ k: 1.5 }, "k"],
      [{ order: "closest" }, "order"],
      [{ input: 3 }, "input"],
    ] as const) {
      let error: unknown;
      try {
        topK({ items, input: "a", output: "b", k: 1, order: "most", ...(bad as object) } as Parameters<
          typeof topK
        >[0]);
      } catch (e) {
        error = e;
      }
      expect(isWardenError(error) && error.code === "INVALID_INPUT" && error.message.includes(field)).toBe(
        true,
      );
    }
  });
});
