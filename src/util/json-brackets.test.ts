import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bracketEnds, matchingBracketEnd } from "./json-brackets.js";

const openers = (text: string) => [...text].flatMap((ch, i) => (ch === "{" || ch === "[" ? [i] : []));

describe("bracketEnds", () => {
  it("agrees with a scan from each opener (property)", () => {
    const piece = fc.constantFrom("{", "}", "[", "]", '"', "\\", "a", " ", ":", ",", '\\"');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const text = pieces.join("");
        const { ends, complete } = bracketEnds({ text });
        expect(complete).toBe(true);
        for (const i of openers(text)) expect(ends[i]).toBe(matchingBracketEnd({ text, start: i }));
      }),
      { numRuns: 500 },
    );
  });

  it("reads 1 MB of openers, nested groups and unclosed strings in one pass", () => {
    for (const text of [
      "{".repeat(1_000_000),
      `${"[".repeat(500_000)}${"]".repeat(500_000)}`,
      '{"'.repeat(500_000),
    ]) {
      const { ends, complete } = bracketEnds({ text });
      expect(complete).toBe(true);
      expect(ends[0]).toBe(matchingBracketEnd({ text, start: 0 }));
    }
  });

  it("says it is incomplete when strings read from different openers make the walks overlap", () => {
    // `\"` keeps the first opener in its string and starts one for each later opener: every walk runs to the end.
    const text = `{"${'{\\"'.repeat(200_000)}`;
    const { complete, from } = bracketEnds({ text });
    expect(complete).toBe(false);
    expect(from).toBeGreaterThan(0);
  });
});
