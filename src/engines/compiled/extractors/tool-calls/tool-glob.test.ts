import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeRegex, safeRegex } from "../../../../core/safe-regex.js";
import { matchesToolGlob } from "./tool-glob.js";

/** An independent oracle for the tests: the glob as a case-insensitive RE2 regex. */
function globRegex(pattern: string) {
  const body = Array.from(pattern)
    .map((ch) => (ch === "*" ? "(?s:.*)" : ch === "?" ? "(?s:.)" : escapeRegex({ text: ch })))
    .join("");
  return safeRegex({ pattern: `^${body}$`, re2Syntax: true });
}

describe("matchesToolGlob", () => {
  it("matches exact names and globs without case", () => {
    expect(matchesToolGlob({ pattern: "github.create_issue", name: "GitHub.Create_Issue" })).toBe(true);
    expect(matchesToolGlob({ pattern: "filesystem.*", name: "filesystem.read_file" })).toBe(true);
    expect(matchesToolGlob({ pattern: "filesystem.*", name: "github.create_issue" })).toBe(false);
    expect(matchesToolGlob({ pattern: "github.*", name: "github.repos.delete" })).toBe(true);
    expect(matchesToolGlob({ pattern: "a?c", name: "abc" })).toBe(true);
    expect(matchesToolGlob({ pattern: "a?c", name: "ac" })).toBe(false);
    expect(matchesToolGlob({ pattern: "*", name: "" })).toBe(true);
    expect(matchesToolGlob({ pattern: "[a]", name: "a" })).toBe(false);
  });

  it("answers an ASCII name as the glob's RE2 regex does (property)", () => {
    // The characters where case folding and regex syntax could differ: letters with non-ASCII fold
    // partners (k, s), punctuation RE2 gives a meaning, and the two wildcards.
    const patternChar = fc.constantFrom("a", "A", "b", "k", "S", ".", "_", "-", "[", "(", "\\", "*", "?");
    const nameChar = fc.constantFrom(
      "a",
      "A",
      "b",
      "B",
      "k",
      "K",
      "s",
      "S",
      ".",
      "_",
      "-",
      "[",
      "(",
      "\\",
      "x",
    );
    fc.assert(
      fc.property(
        fc.array(patternChar, { maxLength: 8 }).map((cs) => cs.join("")),
        fc.array(nameChar, { maxLength: 10 }).map((cs) => cs.join("")),
        (pattern, name) => {
          expect(matchesToolGlob({ pattern, name })).toBe(globRegex(pattern).test(name));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("folds case beyond ASCII as Unicode's case mappings do, and ? is one code point", () => {
    // U+212A (Kelvin sign) folds to k; U+017F (long s) folds to s.
    expect(matchesToolGlob({ pattern: "kit.s*", name: "\u212Ait.\u017Fend" })).toBe(true);
    expect(matchesToolGlob({ pattern: "t?ol", name: "t\u00e9ol" })).toBe(true);
    expect(matchesToolGlob({ pattern: "t?ol", name: "t\u{1F600}ol" })).toBe(true);
    expect(matchesToolGlob({ pattern: "\u00e9t\u00e9.*", name: "\u00c9T\u00c9.run" })).toBe(true);
    expect(matchesToolGlob({ pattern: "shell.run", name: "she\u0131l.run" })).toBe(false);
  });

  it("answers a long name against a glob with many stars in bounded time", () => {
    expect(matchesToolGlob({ pattern: "*a*a*a*a*a*b", name: "a".repeat(50_000) })).toBe(false);
  });
});
