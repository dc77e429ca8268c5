import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  hole,
  type SymPart,
  type SymString,
  symConcat,
  symIsKnown,
  symRender,
  symSplit,
  symTrim,
} from "./sym-string.js";

/** Plain definitions of the operations (the shape of the first implementation), to compare with. */
const naive = {
  concat(...strings: SymString[]): SymString {
    const out: SymPart[] = [];
    for (const part of strings.flat()) {
      if (typeof part !== "string") out.push(part);
      else if (part !== "") {
        const last = out[out.length - 1];
        if (typeof last === "string") out[out.length - 1] = last + part;
        else out.push(part);
      }
    }
    return out;
  },
  split(value: SymString, separator: string): SymString[] {
    const pieces: SymPart[][] = [[]];
    for (const part of value) {
      if (typeof part !== "string") {
        pieces[pieces.length - 1]!.push(part);
        continue;
      }
      part.split(separator).forEach((text, i) => {
        if (i > 0) pieces.push([]);
        if (text !== "") pieces[pieces.length - 1]!.push(text);
      });
    }
    return pieces;
  },
  trim(s: SymString): SymString {
    const parts = [...s];
    if (typeof parts[0] === "string") parts[0] = parts[0].trimStart();
    const last = parts.length - 1;
    if (typeof parts[last] === "string") parts[last] = (parts[last] as string).trimEnd();
    return naive.concat(parts);
  },
  render(s: SymString): string {
    return s.map((part) => (typeof part === "string" ? part : "{?}")).join("");
  },
};

const text = fc
  .array(fc.constantFrom("a", "b", "|", "||", ",", " ", "\t", "\n", "x=1", ""), { maxLength: 6 })
  .map((pieces) => pieces.join(""));
const sym = fc.array(fc.oneof(text, fc.constantFrom(hole("x"), hole("y"))), { maxLength: 5 });

describe("sym-string", () => {
  it("split, trim, concat, render and isKnown agree with their plain definitions", () => {
    fc.assert(
      fc.property(sym, sym, fc.constantFrom("||", ",", "|", "", "ab"), (a, b, separator) => {
        expect(symSplit({ value: a, separator })).toEqual(naive.split(a, separator));
        expect(symTrim(a)).toEqual(naive.trim(a));
        expect(symConcat(a, b)).toEqual(naive.concat(a, b));
        expect(symRender({ value: a })).toBe(naive.render(a));
        expect(symIsKnown(a)).toBe(a.every((part) => typeof part === "string"));
      }),
      { numRuns: 3000 },
    );
  });

  it("renders holes with the caller's text, numbered in order", () => {
    expect(
      symRender({ value: ["a=", hole("x"), ",b=", hole("y")], holeText: (h, i) => `<${h.origin}${i}>` }),
    ).toBe("a=<x0>,b=<y1>");
  });
});
