import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { numberReadings } from "./number.js";

const read = (value: unknown) => numberReadings({ value });

describe("numberReadings", () => {
  it("reads JSON numbers, absent values, null and booleans as themselves", () => {
    for (const value of [0, -3.5, 1e21, Number.POSITIVE_INFINITY, undefined, null, true, false]) {
      expect(read(value)).toEqual({ ok: true, forms: [value] });
    }
  });

  it("reads a plain numeral as its text, with the integer prefix where an integer parser reads less", () => {
    expect(read("42")).toEqual({ ok: true, forms: ["42"] });
    expect(read(" 5000 ")).toEqual({ ok: true, forms: [" 5000 "] });
    expect(read("+12.5")).toEqual({ ok: true, forms: ["+12.5", 12] });
    expect(read("0.5")).toEqual({ ok: true, forms: ["0.5", 0] });
    expect(read("1e3")).toEqual({ ok: true, forms: ["1e3", 1] });
    expect(read(".5")).toEqual({ ok: true, forms: [".5"] });
    expect(read("7.")).toEqual({ ok: true, forms: ["7."] });
  });

  it("leaves undetermined a text that parsers read as a number other than Number() does", () => {
    for (const text of [
      "5000abc",
      "5000 USD",
      "5_000",
      "５０００",
      "٥٠٠٠",
      "5,000",
      "0x1388",
      "0b101",
      "5000\u0000",
      "\u22125000",
      "inf",
      "-Infinity",
      "NaN",
      ".5e",
    ]) {
      const result = read(text);
      expect(result.ok, text).toBe(false);
      if (!result.ok) expect(result.reason).toContain("not a plain number");
    }
  });

  it("leaves undetermined a list or an object where one number is compared", () => {
    expect(read([1, 5000])).toEqual({ ok: false, reason: "a list where a number is compared" });
    expect(read({ $numberLong: "5000" })).toEqual({
      ok: false,
      reason: "an object where a number is compared",
    });
  });

  it("leaves a text with no number in it as it is", () => {
    for (const text of ["", " ", "savings", "acct-42", "information", "-", "e5"]) {
      expect(read(text)).toEqual({ ok: true, forms: [text] });
    }
  });

  it("reads every finite number's own spelling as that number", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const result = read(String(n));
        expect(result.ok).toBe(true);
        if (result.ok) expect(Number(result.forms[0]) === n).toBe(true);
      }),
    );
  });

  it("never reads a numeral with anything after it as a number (some parser takes its prefix)", () => {
    const junk = fc.stringMatching(/^[A-Za-z_,$%#/]+$/);
    fc.assert(
      fc.property(fc.integer(), junk, (n, tail) => {
        expect(read(`${n}${tail}`).ok).toBe(false);
      }),
    );
  });
});
