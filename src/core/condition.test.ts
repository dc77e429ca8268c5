import { describe, expect, it } from "vitest";
import { type Condition, conditionFields, evaluateCondition } from "./condition.js";

describe("condition language", () => {
  const facts = {
    action: "send_email",
    args: { to: "Alice@Example.com", cc: ["bob@example.com"], amount: "120" },
    url: "https://shop.example.com/checkout",
  };

  it("compares text without case by default and with case when asked", () => {
    expect(evaluateCondition({ field: "args.to", op: "endsWith", value: "@example.com" }, facts)).toBe(true);
    expect(
      evaluateCondition({ field: "args.to", op: "startsWith", value: "alice", caseSensitive: true }, facts),
    ).toBe(false);
  });

  it("compares numbers given as strings and never matches a missing field numerically", () => {
    expect(evaluateCondition({ field: "args.amount", op: "gt", value: 100 }, facts)).toBe(true);
    expect(evaluateCondition({ field: "args.missing", op: "lt", value: 100 }, facts)).toBe(false);
  });

  it("combines with all/any/not and lists the fields it reads", () => {
    const c: Condition = {
      all: [
        { field: "action", op: "eq", value: "send_email" },
        { not: { field: "url", op: "containsAny", value: ["/admin", "/profile"] } },
        {
          any: [
            { field: "args.cc", op: "contains", value: "bob@example.com" },
            { field: "x", op: "exists" },
          ],
        },
      ],
    };
    expect(evaluateCondition(c, facts)).toBe(true);
    expect(conditionFields(c)).toEqual(["action", "url", "args.cc", "x"]);
  });

  it("treats empty values as empty", () => {
    expect(evaluateCondition({ field: "args.none", op: "empty" }, facts)).toBe(true);
    expect(evaluateCondition({ field: "args.cc", op: "empty" }, facts)).toBe(false);
  });
});
