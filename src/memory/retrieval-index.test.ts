import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createSeededRandom,
  generateSyntheticDemonstrations,
  perturbDemonstration,
} from "../../test/support/synthetic-demonstrations.js";
import { isWardenError } from "../core/errors.js";
import { type RetrievalHit, type RetrievalItem, type RetrievalOrder, topK } from "./retrieval.js";
import { createRetrievalIndex } from "./retrieval-index.js";

const summary = (hits: RetrievalHit[]) => hits.map((h) => [h.item.id, h.distance]);

// Tiny alphabets and short texts make equal distances (ties) and near-ties common; seq values repeat so
// the id tie-break is exercised; batches arrive out of seq order.
const text = (alphabet: readonly string[]) =>
  fc.array(fc.constantFrom(...alphabet), { maxLength: 90 }).map((chars) => chars.join(""));
const corpus = fc.constantFrom(["a", "b"], ["a", "b", "c"], ["a", "é", "😀"]).chain((alphabet) =>
  fc.record({
    items: fc.uniqueArray(
      fc.record({
        id: fc.stringMatching(/^[a-z0-9]{1,4}$/),
        seq: fc.integer({ min: 0, max: 12 }),
        input: text(alphabet),
        output: text(alphabet),
      }),
      { selector: (item) => item.id, maxLength: 40 },
    ),
    queries: fc.array(fc.record({ input: text(alphabet), output: text(alphabet) }), {
      minLength: 1,
      maxLength: 4,
    }),
    // Mostly k < n (where pruning happens), sometimes k >= n (everything returned).
    k: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 45 })),
    order: fc.constantFrom<RetrievalOrder>("most", "least"),
    split: fc.nat(),
  }),
);

describe("createRetrievalIndex", () => {
  it("returns exactly the exhaustive top-k (items, order, distances) for random corpora", () => {
    fc.assert(
      fc.property(corpus, ({ items, queries, k, order, split }) => {
        const cut = items.length === 0 ? 0 : split % (items.length + 1);
        const index = createRetrievalIndex<RetrievalItem>({ items: items.slice(0, cut) });
        index.add({ items: items.slice(cut) });
        expect(index.size).toBe(items.length);
        for (const query of queries) {
          const expected = topK({ items, ...query, k, order });
          expect(summary(index.query({ ...query, k, order }))).toEqual(summary(expected));
          // A query equal to a stored item finds it at distance 0 first.
          const first = items[0];
          if (first && order === "most" && k > 0) {
            expect(index.query({ input: first.input, output: first.output, k, order })[0]?.distance).toBe(0);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("matches the exhaustive scan on realistic near-duplicate demonstrations, for every k and both orders", () => {
    const items = generateSyntheticDemonstrations({ count: 200, seed: 11 });
    const index = createRetrievalIndex({ items: items.slice(0, 100) });
    index.add({ items: items.slice(100) });
    const random = createSeededRandom({ seed: 5 });
    const fresh = generateSyntheticDemonstrations({ count: 2, seed: 12 });
    const queries = [
      perturbDemonstration({ demonstration: items[7] as (typeof items)[number], random }),
      perturbDemonstration({
        demonstration: items[123] as (typeof items)[number],
        random,
        editsPerThousand: 40,
      }),
      ...fresh,
    ];
    for (const query of queries) {
      // One full exhaustive ranking per order; the top-k for every k is its prefix.
      const most = topK({ items, input: query.input, output: query.output, k: items.length, order: "most" });
      const least = topK({
        items,
        input: query.input,
        output: query.output,
        k: items.length,
        order: "least",
      });
      for (const k of [1, 2, 3, 4, 5, 8]) {
        expect(summary(index.query({ input: query.input, output: query.output, k, order: "most" }))).toEqual(
          summary(most.slice(0, k)),
        );
      }
      for (const k of [1, 3]) {
        expect(summary(index.query({ input: query.input, output: query.output, k, order: "least" }))).toEqual(
          summary(least.slice(0, k)),
        );
      }
    }
    // The point of the index: most distances are never computed in full.
    index.query({ input: queries[0]?.input ?? "", output: queries[0]?.output ?? "", k: 1, order: "most" });
    expect(index.lastQueryStats().exactComputations).toBeLessThan(items.length / 2);
  });

  it("rejects bad queries with a WardenError naming the field", () => {
    const index = createRetrievalIndex({ items: [{ id: "a", seq: 1, input: "x", output: "y" }] });
    for (const [bad, field] of [
      [{ k: -2 }, "k"],
      [{ order: "nearest" }, "order"],
      [{ output: null }, "output"],
    ] as const) {
      let error: unknown;
      try {
        index.query({ input: "x", output: "y", k: 1, order: "most", ...(bad as object) } as Parameters<
          typeof index.query
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
