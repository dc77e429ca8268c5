import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { breaksValKey, join, NONE, NUM, str, unknown, type Val, valKey } from "./abstract-values.js";
import { symText } from "./sym-string.js";

/** Values of every container kind, including dicts with fewer values than keys (as a dict comprehension can make). */
const value: fc.Arbitrary<Val> = fc.letrec<{ val: Val }>((tie) => ({
  val: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom<Val>(NONE, NUM, str(symText("age")), unknown("x"), { k: "table", tables: ["lab"] }),
    fc
      .record({ items: fc.array(tie("val"), { maxLength: 3 }), exact: fc.boolean() })
      .map(({ items, exact }): Val => ({ k: "list", items, exact })),
    fc
      .tuple(fc.array(tie("val"), { maxLength: 3 }), fc.array(tie("val"), { maxLength: 3 }))
      .map(([keys, values]): Val => ({ k: "dict", keys, values, exact: false })),
    tie("val").map((self): Val => ({ k: "method", self, name: "get" })),
  ),
})).val;

function throws(run: () => unknown): boolean {
  try {
    run();
    return false;
  } catch {
    return true;
  }
}

describe("breaksValKey", () => {
  it("says exactly when valKey, and so a join, of a value throws", () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(breaksValKey(v)).toBe(throws(() => valKey(v)));
        expect(breaksValKey(v)).toBe(throws(() => join(v, v)));
        // A join of one plain value that does not throw is that value.
        if (!breaksValKey(v)) expect(join(v, v)).toBe(v);
      }),
      { numRuns: 3000 },
    );
  });
});
