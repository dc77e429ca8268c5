import { describe, expect, it } from "vitest";
import { partialRatio, ratio } from "./partial-ratio.js";

describe("RapidFuzz ratio / partial_ratio", () => {
  it("matches the values RapidFuzz documents", () => {
    expect(ratio({ a: "this is a test", b: "this is a test!" })).toBeCloseTo(96.5517, 3);
    expect(ratio({ a: "fuzzy wuzzy was a bear", b: "wuzzy fuzzy was a bear" })).toBeCloseTo(90.909, 2);
    expect(partialRatio({ a: "this is a test", b: "this is a test!" })).toBe(100);
  });

  it("aligns the shorter string anywhere in the longer one, either argument order", () => {
    expect(partialRatio({ a: "invite", b: "add invitee" })).toBe(100);
    // " mail" scores 80; the partial window "mail" at the end scores 2*4/9.
    expect(partialRatio({ a: "email", b: "send mail" })).toBeCloseTo(88.889, 2);
    expect(partialRatio({ a: "send mail", b: "email" })).toBeCloseTo(88.889, 2);
    expect(partialRatio({ a: "delete", b: "save changes" })).toBeLessThan(75);
  });

  it("an empty string scores 0 against text, 100 against another empty string", () => {
    expect(partialRatio({ a: "", b: "abc" })).toBe(0);
    expect(partialRatio({ a: "", b: "" })).toBe(100);
  });
});
