import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withFields } from "./with-fields.js";

describe("withFields", () => {
  it("gives what { ...base, ...fields } gives: keys, order, values, and fields winning", () => {
    fc.assert(
      fc.property(fc.object(), fc.object(), (base, fields) => {
        const out = withFields({ base, fields });
        const literal = { ...base, ...fields };
        expect(Object.keys(out)).toEqual(Object.keys(literal));
        expect(out).toEqual(literal);
        expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps an own __proto__ key an own property, never a prototype", () => {
    const base = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as object;
    const out = withFields({ base, fields: { b: 2 } });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(out)).toEqual(["__proto__", "a", "b"]);
  });

  it("takes an absent base as empty, and gives a new object each time", () => {
    const fields = { a: 1 };
    const out = withFields({ base: undefined, fields });
    expect(out).toEqual({ a: 1 });
    expect(out).not.toBe(fields);
  });
});
