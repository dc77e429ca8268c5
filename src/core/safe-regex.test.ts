import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeRegex, safeRegex, validatePolicyRegex } from "./safe-regex.js";

describe("safeRegex", () => {
  it("matches like a JS RegExp with the u flag on simple patterns (property)", () => {
    const atom = fc.constantFrom(
      "a",
      "b",
      "c",
      ".",
      "\\d",
      "\\s",
      "\\S",
      "\\w",
      "[ab]",
      "[^a]",
      "(a|b)",
      "\\u0041",
      "[\\s]",
    );
    const quantifier = fc.constantFrom("", "*", "+", "?", "{1,2}");
    const pattern = fc
      .tuple(fc.boolean(), fc.array(fc.tuple(atom, quantifier), { minLength: 1, maxLength: 5 }), fc.boolean())
      .map(
        ([start, parts, end]) =>
          `${start ? "^" : ""}${parts.map(([a, q]) => a + q).join("")}${end ? "$" : ""}`,
      );
    const text = fc
      .array(fc.constantFrom("a", "b", "A", "c", "1", " ", "\n", "\r", "\u00a0", "\u2028", "_", "ſ"), {
        maxLength: 12,
      })
      .map((chars) => chars.join(""));
    fc.assert(
      fc.property(pattern, text, fc.boolean(), (p, t, caseSensitive) => {
        const js = new RegExp(p, caseSensitive ? "u" : "iu");
        expect(safeRegex({ pattern: p, caseSensitive }).test(t)).toBe(js.test(t));
      }),
      { numRuns: 1_000 },
    );
  });

  it("ignores case unless asked not to", () => {
    expect(safeRegex({ pattern: "^CURL" }).test("curl x")).toBe(true);
    expect(safeRegex({ pattern: "^CURL", caseSensitive: true }).test("curl x")).toBe(false);
  });

  it("reads JS's empty class and any-character class as JS does", () => {
    expect(safeRegex({ pattern: "a[]" }).test("a]")).toBe(false);
    expect(safeRegex({ pattern: "a[^]b" }).test("a\nb")).toBe(true);
  });

  it("matches a pattern that backtracks in JS over 1 MB in one pass", () => {
    const text = "curl ".repeat(200_000);
    expect(safeRegex({ pattern: "(curl|wget)[^|]*\\|" }).test(text)).toBe(false);
    expect(safeRegex({ pattern: "^(a+)+$" }).test(`${"a".repeat(100_000)}!`)).toBe(false);
  }, 30_000);

  it("escapes text so that it matches itself", () => {
    const text = "a.b*c+(d)[e]{f}|g^h$i\\j?k-l";
    expect(safeRegex({ pattern: `^${escapeRegex({ text })}$`, re2Syntax: true }).test(text)).toBe(true);
  });
});

describe("validatePolicyRegex", () => {
  it("accepts RE2 patterns", () => {
    expect(validatePolicyRegex({ pattern: "^dd\\s(.*\\s)?of=(\\S*/)?dev/" })).toBeUndefined();
    expect(validatePolicyRegex({ pattern: "(?P<name>a)\\p{L}" })).toBeUndefined();
  });

  it("says why a pattern is rejected", () => {
    expect(validatePolicyRegex({ pattern: "(unclosed" })).toMatch(/missing closing \)/);
    expect(validatePolicyRegex({ pattern: "^(?!safe)" })).toMatch(/lookahead and lookbehind/);
    expect(validatePolicyRegex({ pattern: "(?<=x)y" })).toMatch(/lookahead and lookbehind/);
    expect(validatePolicyRegex({ pattern: "(a)\\1" })).toMatch(/backreferences/);
    expect(validatePolicyRegex({ pattern: "a".repeat(5_000) })).toMatch(/longer than/);
  });

  it("rejects exactly the patterns safeRegex cannot compile, with the same reason", () => {
    // Validation only parses (the matcher is built on first use); the parse is where re2js refuses.
    const patterns = ["b", "(", ")", "[", "[z-a]", "a**", "*", "a{2,1}", "a{1001}", "(a{999}){999}", "\\C"];
    patterns.push("\\pX", "\\p{Greek}", "[[:alpha:]]", "[[:foo:]]", "(?P<n>a)(?P<n>b)", "\\x{110000}", "[]");
    patterns.push("(?i)A", "(?U)a*", "a|", "(?:", "\\", "\\8", "\\Z", "\\u{1F600}+", "[\\d-z]", "(?=a)");
    for (const pattern of patterns) {
      for (const caseSensitive of [false, true]) {
        const validated = validatePolicyRegex({ pattern, caseSensitive });
        let compiled: string | undefined;
        try {
          safeRegex({ pattern, caseSensitive });
        } catch (error) {
          compiled = (error as Error).message;
        }
        expect({ pattern, caseSensitive, validated }).toEqual({
          pattern,
          caseSensitive,
          validated: compiled,
        });
      }
    }
  });
});
