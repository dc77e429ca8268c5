import { describe, expect, it } from "vitest";
import { depthProblem } from "./limits.js";

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe("depthProblem", () => {
  it("accepts a value at the limit and names the first place past it", () => {
    expect(depthProblem({ value: { a: { b: 1 } }, maxDepth: 2 })).toBeUndefined();
    expect(depthProblem({ value: { a: { b: [1] } }, maxDepth: 2 })).toEqual({ path: "a.b", depth: 3 });
    expect(depthProblem({ value: "text", maxDepth: 0 })).toBeUndefined();
  });

  it("measures 200 000 levels without overflowing the stack, with a short path", () => {
    const problem = depthProblem({ value: { x: nested(200_000) }, maxDepth: 64, path: "args" });
    expect(problem?.depth).toBe(65);
    expect(problem?.path.startsWith("args.x.0.0")).toBe(true);
    expect(problem?.path.endsWith(".…")).toBe(true);
    expect(problem!.path.length).toBeLessThan(80);
  });
});
