import { describe, expect, it } from "vitest";
import { normaliseInaccessible } from "./violations-from-reasons.js";

describe("normaliseInaccessible", () => {
  it("keeps tables and columns as the model listed them, trimmed and without repeats", () => {
    expect(normaliseInaccessible({ " lab ": ["a", " b", "a"], patient: "x, y", empty: [] })).toEqual({
      lab: ["a", "b"],
      patient: ["x", "y"],
    });
  });

  it("keeps a table named __proto__ as a table", () => {
    const out = normaliseInaccessible(JSON.parse('{"__proto__":["secret"],"lab":["a"]}'));
    expect(Object.keys(out ?? {})).toEqual(["__proto__", "lab"]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
