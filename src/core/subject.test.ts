import { describe, expect, it } from "vitest";
import { ContextSchema, MAX_TRAJECTORY_STEPS, MAX_VALUE_DEPTH, SubjectSchema } from "./subject.js";
import { parseWith } from "./validate.js";

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const parse = (value: unknown) =>
  parseWith({ schema: SubjectSchema, value, what: "subject", path: "subject" });

describe("subject limits", () => {
  it("accepts ordinary subjects and values at the depth limit", () => {
    const subject = parse({
      input: "task",
      trajectory: [{ action: "shell.run", args: { v: nested(MAX_VALUE_DEPTH - 1) } }],
      context: { identity: "nursing" },
    });
    expect(subject.trajectory).toHaveLength(1);
  });

  it("names the field nested too deep: args, meta and context", () => {
    expect(() => parse({ input: "", trajectory: [{ action: "a", args: { v: nested(200) } }] })).toThrow(
      /subject\.trajectory\.0\.args: nested more than 64 levels deep \(at v\.a\.a/,
    );
    expect(() => parse({ input: "", trajectory: [{ action: "a", meta: nested(100) }] })).toThrow(
      /subject\.trajectory\.0\.meta: nested more than 64/,
    );
    expect(() => parse({ input: "", context: nested(100) })).toThrow(/subject\.context: nested more than 64/);
  });

  it("bounds the trajectory length and the length of names", () => {
    const steps = Array.from({ length: MAX_TRAJECTORY_STEPS + 1 }, () => ({ action: "a" }));
    expect(() => parse({ input: "", trajectory: steps })).toThrow(/subject\.trajectory: at most 10000 steps/);
    expect(() => parse({ input: "", trajectory: [{ action: "a".repeat(5000) }] })).toThrow(
      /subject\.trajectory\.0\.action: at most 4096 characters/,
    );
  });

  it("takes only a JSON object as context", () => {
    expect(ContextSchema.safeParse([1, 2]).success).toBe(false);
    expect(ContextSchema.safeParse("x").success).toBe(false);
    expect(ContextSchema.safeParse({ identity: "x" }).success).toBe(true);
  });
});
