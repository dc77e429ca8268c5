import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import { assertJsonDepth, findTooDeep, showPath } from "./json-depth.js";

/** JSON text of a value nested `levels` deep under key `a`. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
const tooDeep = (value: unknown, maxDepth: number) => findTooDeep({ text: JSON.stringify(value), maxDepth });

/** Depth measured recursively, for comparison on small values only. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe("findTooDeep", () => {
  it("accepts a value exactly at the limit and names the path of the first level past it", () => {
    expect(findTooDeep({ text: nested(5), maxDepth: 5 })).toBeUndefined();
    expect(findTooDeep({ text: nested(6), maxDepth: 5 })).toEqual(["a", "a", "a", "a", "a"]);
    expect(tooDeep({ x: [1, { y: [[]] }] }, 3)).toEqual(["x", "1", "y"]);
    expect(tooDeep({ "[{": "}]", 'k"\\': [{ "a,b": 1, c: ["[", "{"], d: { e: {} } }] }, 4)).toEqual([
      'k"\\',
      "0",
      "d",
      "e",
    ]);
    expect(tooDeep({ "[{": "[[[[[" }, 1)).toBeUndefined();
  });

  it("measures 200 000 levels without overflowing the stack", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    expect(findTooDeep({ text: deep, maxDepth: 64 })).toEqual(Array.from({ length: 64 }, () => "0"));
  });

  it("agrees with a recursive depth on any JSON value, and its path leads to a container", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 1, max: 8 }), (value, maxDepth) => {
        const path = tooDeep(value, maxDepth);
        expect(path === undefined).toBe(depthOf(value) <= maxDepth);
        if (!path) return;
        expect(path).toHaveLength(maxDepth);
        let at: unknown = value;
        for (const key of path) at = (at as Record<string, unknown>)[key];
        expect(typeof at === "object" && at !== null).toBe(true);
      }),
    );
  });
});

describe("assertJsonDepth", () => {
  it("throws a 400-family error naming a shortened path and the limit", () => {
    const text = `{"subject":{"context":{"toolCall":{"args":${nested(100)}}}}}`;
    try {
      assertJsonDepth({ text, maxDepth: 64, what: "the request body" });
      expect.unreachable();
    } catch (error) {
      expect(isWardenError(error) && error.code).toBe("INVALID_INPUT");
      const { message, details } = error as { message: string; details: Record<string, unknown> };
      expect(message).toContain("subject.context.toolCall.args.a");
      expect(message).toContain("64 levels");
      expect(details).toMatchObject({ reason: "too-deep", limit: 64 });
    }
  });

  it("shortens long keys and long paths", () => {
    expect(showPath({ path: [] })).toBe("(body)");
    expect(showPath({ path: ["k".repeat(100)] })).toBe(`${"k".repeat(40)}…`);
    expect(showPath({ path: Array.from({ length: 10 }, () => "a") })).toBe(
      "a.a.a.a.a.a.a.a.…(2 more levels)",
    );
  });
});
