import { describe, expect, it } from "vitest";
import { checkTimeoutFrom } from "./guard-options.js";

describe("checkTimeoutFrom", () => {
  it("reads --check-timeout as whole milliseconds, 0 for no limit, nothing when absent", () => {
    expect(checkTimeoutFrom({ raw: { checkTimeout: "1500" } })).toEqual({ checkTimeoutMs: 1500 });
    expect(checkTimeoutFrom({ raw: { checkTimeout: "0" } })).toEqual({ checkTimeoutMs: 0 });
    expect(checkTimeoutFrom({ raw: {} })).toEqual({});
  });

  it.each(["", "-5", "1.5", "abc", "1e3", "99999999999"])(
    "rejects --check-timeout %j naming the flag",
    (value) => {
      expect(() => checkTimeoutFrom({ raw: { checkTimeout: value } })).toThrow(
        expect.objectContaining({
          code: "INVALID_INPUT",
          message: expect.stringContaining("--check-timeout"),
        }),
      );
    },
  );
});
