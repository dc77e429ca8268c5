/**
 * `pathMatches` answers a glob list with one alternation of picomatch's expressions (path.ts); these
 * tests hold it equal to picomatch's own list matcher, the semantics it stands for, on generated globs
 * (stars, globstars, classes, braces, extglobs, negations, dot files) and paths, and check that a list
 * changed in place is matched as it is now.
 */
import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { pathMatches } from "./path.js";

const SEGMENT_PARTS = [
  "a",
  "b",
  "env",
  ".env",
  ".ssh",
  "id_rsa",
  "x.pem",
  "*",
  "**",
  "?",
  "[ab]",
  "{a,b}",
  "+(a|b)",
  "@(env)",
  "!(a)",
  ".",
  "..",
  "*.key",
  "a*",
];
const PATH_PARTS = [
  "a",
  "b",
  "ab",
  ".env",
  "env",
  ".ssh",
  "id_rsa",
  "x.pem",
  "y.key",
  ".",
  "..",
  "aa",
  "",
  "a.b",
  "(a)",
  "*",
];

const glob = fc
  .tuple(
    fc.boolean(),
    fc.boolean(),
    fc.array(fc.array(fc.constantFrom(...SEGMENT_PARTS), { minLength: 1, maxLength: 2 }), {
      minLength: 1,
      maxLength: 4,
    }),
  )
  .map(
    ([negated, absolute, segments]) =>
      `${negated ? "!" : ""}${absolute ? "/" : ""}${segments.map((s) => s.join("")).join("/")}`,
  );
const path = fc
  .array(fc.constantFrom(...PATH_PARTS), { minLength: 0, maxLength: 5 })
  .map((segments) => `/${segments.join("/")}`);

describe("pathMatches over glob lists", () => {
  it("answers as picomatch's list matcher does", () => {
    fc.assert(
      fc.property(
        fc.array(glob, { minLength: 1, maxLength: 6 }),
        fc.array(path, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (globs, paths, caseFold) => {
          const reference = picomatch(globs, { dot: true, nocase: caseFold, windows: false });
          for (const p of [...paths, ...globs]) {
            expect(pathMatches({ path: p, globs, caseFold }), `${p} against ${JSON.stringify(globs)}`).toBe(
              reference(p),
            );
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("matches a glob spelled literally as the path, and never the empty path", () => {
    expect(pathMatches({ path: "/a/[ab]", globs: ["/a/[ab]"] })).toBe(true);
    expect(pathMatches({ path: "", globs: ["**"] })).toBe(false);
  });

  it("sees a list changed in place", () => {
    const globs = ["**/.env"];
    expect(pathMatches({ path: "/w/.env", globs })).toBe(true);
    globs[0] = "**/*.pem";
    expect(pathMatches({ path: "/w/.env", globs })).toBe(false);
    expect(pathMatches({ path: "/w/k.pem", globs })).toBe(true);
    globs.push("**/.env");
    expect(pathMatches({ path: "/w/.env", globs })).toBe(true);
  });

  it("keeps one matcher per case setting for the same list, read either way in turn", () => {
    const globs = ["**/.env"];
    for (let i = 0; i < 3; i++) {
      expect(pathMatches({ path: "/w/.ENV", globs, caseFold: false })).toBe(false);
      expect(pathMatches({ path: "/w/.ENV", globs, caseFold: true })).toBe(true);
    }
  });

  it("refuses an empty glob as picomatch does", () => {
    expect(() => pathMatches({ path: "/a", globs: ["**/.env", ""] })).toThrow();
  });
});
