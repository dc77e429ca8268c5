import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createGroupCommit } from "./group-commit.js";

describe("createGroupCommit", () => {
  it("writes items of one turn in one batch and those arriving during a write in the next, in order", async () => {
    const batches: number[][] = [];
    const commit = createGroupCommit<number, string>({
      write: async (items) => {
        batches.push(items);
        await new Promise((r) => setTimeout(r, 5));
        return items.map((i) => `row ${i}`);
      },
    });
    const first = [1, 2].map((i) => commit.append(i));
    await new Promise((r) => setTimeout(r, 1)); // the first write is in flight now
    const second = [3, 4].map((i) => commit.append(i));
    expect(await Promise.all([...first, ...second])).toEqual(["row 1", "row 2", "row 3", "row 4"]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it("fails every caller of a failed batch and goes on with the next one", async () => {
    let calls = 0;
    const commit = createGroupCommit<number, number>({
      write: async (items) => {
        calls++;
        await new Promise((r) => setTimeout(r, 2));
        if (calls === 2) throw new Error("disk full");
        return items;
      },
    });
    const first = commit.append(1);
    await new Promise((r) => setTimeout(r, 1)); // 2 and 3 arrive during the first write: the second batch
    const settled = await Promise.allSettled([first, ...[2, 3].map((i) => commit.append(i))]);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "rejected"]);
    await expect(commit.append(9)).resolves.toBe(9);
  });

  it("never loses, repeats or reorders an item, whatever the batch size", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 8 }),
        async (n, maxBatch) => {
          const written: number[] = [];
          const commit = createGroupCommit<number, number>({
            maxBatch,
            write: async (items) => {
              expect(items.length).toBeLessThanOrEqual(maxBatch);
              await Promise.resolve();
              written.push(...items);
              return items.map((i) => i * 2);
            },
          });
          const items = Array.from({ length: n }, (_, i) => i);
          expect(await Promise.all(items.map((i) => commit.append(i)))).toEqual(items.map((i) => i * 2));
          expect(written).toEqual(items);
        },
      ),
      { numRuns: 50 },
    );
  });
});
