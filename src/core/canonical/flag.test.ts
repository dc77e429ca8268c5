import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { flagReadings } from "./flag.js";

const read = (value: unknown) => flagReadings({ value });

describe("flagReadings", () => {
  it("reads booleans, absent values and null as themselves", () => {
    for (const value of [true, false, undefined, null]) expect(read(value)).toEqual([value]);
  });

  it("reads numbers as JavaScript and Python do: 0 is false, any other number true", () => {
    expect(read(0)).toEqual([0, false]);
    expect(read(1)).toEqual([1, true]);
    expect(read(-2.5)).toEqual([-2.5, true]);
  });

  it("reads every non-empty text as true, and the words a flag parser reads as false as both", () => {
    expect(read("")).toEqual(["", false]);
    for (const text of ["true", "yes", "1", "on", "anything", " "]) expect(read(text)).toEqual([text, true]);
    for (const text of ["false", "FALSE", " no ", "0", "off", "n", "f"]) {
      expect(read(text)).toEqual([text, false, true]);
    }
  });

  it("reads objects and lists as true, and an empty one also as false (Python)", () => {
    expect(read({ on: true })).toEqual([{ on: true }, true]);
    expect(read([0])).toEqual([[0], true]);
    expect(read([])).toEqual([[], false, true]);
    expect(read({})).toEqual([{}, false, true]);
  });

  it("always keeps the value first and always includes what JavaScript's if reads", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const readings = read(value);
        expect(readings[0]).toBe(value);
        if (value !== null)
          expect(readings.includes(Boolean(value)) || readings[0] === Boolean(value)).toBe(true);
      }),
    );
  });
});
