/** freezeDeep: every object and array under a value frozen, within a bound, without recursion. */
import { describe, expect, it } from "vitest";
import { freezeDeep } from "./freeze-deep.js";

describe("freezeDeep", () => {
  it("freezes the value and everything under it", () => {
    const value = { a: [1, { b: "x" }], c: { d: null } };
    expect(freezeDeep({ value, maxNodes: 100 })).toBe(value);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a[1])).toBe(true);
    expect(Object.isFrozen(value.c)).toBe(true);
  });

  it("stops after maxNodes objects, and a nested value deeper than the stack is no problem", () => {
    let deep: unknown[] = [];
    const top = deep;
    for (let i = 0; i < 100_000; i++) {
      const next: unknown[] = [];
      deep.push(next);
      deep = next;
    }
    freezeDeep({ value: top, maxNodes: 10 });
    expect(Object.isFrozen(top)).toBe(true);
    expect(Object.isFrozen(deep)).toBe(false);
  });

  it("leaves primitives as they are", () => {
    expect(freezeDeep({ value: "x", maxNodes: 1 })).toBe("x");
  });
});
