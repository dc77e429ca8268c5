import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { shellPatternMayMatch } from "./pattern-overlap.js";

const SECRETS = [
  "**/{.env,.netrc,credentials.json,id_rsa,id_ed25519,.ssh}",
  "**/{.env,.ssh,.gnupg}/**",
  "**/*.{pem,key,p12,pfx}",
  "**/.*_history",
  "/etc/{shadow,sudoers}",
];

const may = (pattern: string, globs = SECRETS, caseFold = false) =>
  shellPatternMayMatch({ pattern, globs, caseFold });

describe("shellPatternMayMatch", () => {
  it("reads what a reader's pattern operand may name", () => {
    expect(may("/work/proj/src/*.ts")).toBe(false);
    expect(may("/work/proj/*.md")).toBe(false);
    expect(may("/work/proj/package*.json")).toBe(false);
    expect(may("/work/proj/*")).toBe(true);
    expect(may("/work/proj/ser*")).toBe(true);
    expect(may("/work/proj/*.pem")).toBe(true);
    expect(may("/work/proj/certs/*.p?2")).toBe(true);
    expect(may("/work/proj/*.[kp]e[ym]")).toBe(true);
    expect(may("/work/proj/src/*")).toBe(true);
    expect(may("/etc/sha*")).toBe(true);
    expect(may("/etc/pass*")).toBe(true);
    expect(may("/etc/pass*d")).toBe(false);
    expect(may("/work/proj/credentials.js*")).toBe(true);
    expect(may("/work/proj/credentials.ts")).toBe(false);
  });

  it("never lets bash's * or ? begin a hidden name, but a bracket may", () => {
    expect(may("/work/proj/*env")).toBe(false);
    expect(may("/work/proj/?env")).toBe(false);
    expect(may("/work/proj/*/id_rsa")).toBe(true);
    expect(may("/work/proj/*/config")).toBe(false);
    expect(may("/work/proj/[.]env")).toBe(true);
    expect(may("/work/proj/.e*")).toBe(true);
    expect(may("/home/*/.ssh/x")).toBe(true);
    expect(may("/home/dev/*_history")).toBe(false);
  });

  it("reads a ** segment of the pattern as any number of names", () => {
    expect(may("/work/proj/**/*.ts")).toBe(false);
    expect(may("/work/proj/**/id_rsa")).toBe(true);
  });

  it("reads a search tool's glob with its wildcards beginning hidden names too", () => {
    const hidden = (pattern: string) => shellPatternMayMatch({ pattern, globs: SECRETS, hidden: true });
    expect(hidden("/work/proj/*env")).toBe(true);
    expect(hidden("/work/proj/**/config")).toBe(true);
    expect(hidden("/work/proj/**/*.ts")).toBe(true); // below a hidden .ssh directory
    expect(may("/work/proj/**/*.ts")).toBe(false);
  });

  it("folds case when the file system does", () => {
    expect(may("/work/proj/*.PEM")).toBe(false);
    expect(may("/work/proj/*.PEM", SECRETS, true)).toBe(true);
  });

  it("leaves syntax it does not read unknown", () => {
    expect(may("/work/proj/@(a|b)")).toBe(null);
    expect(may("/work/proj/[[:alpha:]]x")).toBe(null);
    expect(may("/work/proj/x", ["!**/x"])).toBe(null);
    expect(may("/work/proj/x.ts", ["**/x.ts", "!**/y"])).toBe(true);
    expect(may("/work/proj/x", ["**/[xy]"])).toBe(null);
  });

  // Brute force on a small alphabet: every path of up to three names of up to two letters, and of up to
  // two names of up to three letters (a name may need one letter more than its patterns: `.*` and `*.`
  // meet in `.a.`, never in `.` or `..`), read by picomatch as bash reads the shell pattern (dot: false)
  // and as pathMatches reads the glob (dot: true).
  const LETTERS = ["a", "b", "."];
  const upTo = (n: number): string[] =>
    n === 0 ? [""] : [...upTo(n - 1), ...upTo(n - 1).flatMap((x) => LETTERS.map((y) => x + y))];
  const namesUpTo = (n: number) => [...new Set(upTo(n))].filter((x) => x !== "" && x !== "." && x !== "..");
  const SHORT = namesUpTo(2);
  const LONGER = namesUpTo(3);
  const PATHS = [
    ...LONGER.map((a) => `/${a}`),
    ...LONGER.flatMap((a) => LONGER.map((b) => `/${a}/${b}`)),
    ...SHORT.flatMap((a) => SHORT.flatMap((b) => SHORT.map((c) => `/${a}/${b}/${c}`))),
  ];
  const token = fc.constantFrom("a", "b", ".", "*", "?", "[ab]", "[!a]");
  const name = (max: number) => fc.array(token, { minLength: 1, maxLength: max }).map((t) => t.join(""));
  const shellPattern = fc
    .array(name(3), { minLength: 1, maxLength: 3 })
    .filter((segments) => segments.every((s) => !s.startsWith("[") && s !== "." && s !== ".."))
    .map((segments) => `/${segments.join("/")}`);
  const policyGlob = fc
    .array(fc.oneof(name(2), fc.constant("**")), { minLength: 1, maxLength: 3 })
    .map((segments) => `/${segments.join("/")}`);

  it("agrees with a brute force over short paths (a path both match ⇒ true; true ⇒ such a path)", () => {
    fc.assert(
      fc.property(shellPattern, policyGlob, (pattern, glob) => {
        // picomatch reads `[!a]` as `!` or `a`; bash as any letter but `a`, which `[^a]` is to picomatch.
        const bash = picomatch(pattern.replaceAll("[!", "[^"), { dot: false });
        const policy = picomatch(glob, { dot: true });
        const witness = PATHS.some((path) => bash(path) && policy(path));
        const answer = shellPatternMayMatch({ pattern, globs: [glob] });
        // A path both match: true, or unknown (null) where the glob is written beyond what is read.
        if (witness) expect(answer, `${pattern} ∩ ${glob}`).not.toBe(false);
        // Exact where `**` is on neither side (picomatch reads it more narrowly than a list of any number
        // of segments in places) and a witness of two names of up to three letters would have been seen.
        else if (
          answer === true &&
          !glob.includes("**") &&
          pattern.split("/").length <= 3 &&
          glob.split("/").length <= 3 &&
          pattern.split("/").every((s) => s.length <= 2 && s !== "**")
        )
          expect.fail(`${pattern} ∩ ${glob}: true without a witness`);
      }),
      { numRuns: 3_000 },
    );
  });
});
