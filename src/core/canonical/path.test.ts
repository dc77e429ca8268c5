import { posix } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalPath,
  normalisePosix,
  pathMatches,
  pathMayMatchBelow,
  pathWithin,
  percentDecodeOnce,
} from "./path.js";

function forms(path: unknown, options: { caseFold?: boolean; base?: string } = {}): string[] {
  const result = canonicalPath({ path, ...options });
  if (!result.ok) throw new Error(`undetermined: ${result.reason}`);
  return result.forms;
}

function reason(path: unknown, options: { caseFold?: boolean; base?: string } = {}): string {
  const result = canonicalPath({ path, ...options });
  if (result.ok) throw new Error(`expected undetermined, got ${JSON.stringify(result.forms)}`);
  return result.reason;
}

/** True when some form of `path` is within `root`: how a deny rule reads it. */
function anyWithin(path: string, root: string): boolean {
  return forms(path).some((form) => pathWithin({ path: form, roots: [root] }));
}

/** True when every form of `path` is within `root`: how an allow rule reads it. */
function allWithin(path: string, root: string): boolean {
  return forms(path).every((form) => pathWithin({ path: form, roots: [root] }));
}

describe("canonicalPath: lexical resolution", () => {
  it.each([
    ["/tmp/../etc/passwd", "/etc/passwd"],
    ["/tmp//../etc/hosts", "/etc/hosts"],
    ["/tmp/./../home/u/.bashrc", "/home/u/.bashrc"],
    ["/app/.env/", "/app/.env"],
    ["/etc/./shadow", "/etc/shadow"],
    ["/../../../etc/passwd", "/etc/passwd"],
    ["//etc///passwd//", "/etc/passwd"],
    ["/", "/"],
    ["/..", "/"],
    ["/a/b/c/../../d", "/a/d"],
  ])("%s → %s", (input, expected) => {
    expect(forms(input)).toEqual([expected]);
  });

  it("a `..` written out of reach of /tmp escapes it for every reader", () => {
    expect(allWithin("/tmp/../etc/passwd", "/tmp")).toBe(false);
    expect(anyWithin("/tmp/../etc/passwd", "/tmp")).toBe(false);
  });
});

describe("canonicalPath: percent-encoding", () => {
  it("keeps the literal reading and adds the decoded one", () => {
    expect(forms("/tmp/%2e%2e/etc/passwd")).toEqual(["/tmp/%2e%2e/etc/passwd", "/etc/passwd"]);
  });

  it("the decoded form of /tmp/%2e%2e/etc/passwd is outside /tmp, so an allow on /tmp does not hold", () => {
    expect(anyWithin("/tmp/%2e%2e/etc/passwd", "/tmp")).toBe(true);
    expect(allWithin("/tmp/%2e%2e/etc/passwd", "/tmp")).toBe(false);
  });

  it("the literal form of /etc/%2e%2e/tmp/x is outside /tmp (why both readings are forms)", () => {
    const result = forms("/etc/%2e%2e/tmp/x");
    expect(result).toContain("/etc/%2e%2e/tmp/x");
    expect(result).toContain("/tmp/x");
    expect(allWithin("/etc/%2e%2e/tmp/x", "/tmp")).toBe(false);
    expect(anyWithin("/etc/%2e%2e/tmp/x", "/etc")).toBe(true);
  });

  it("decodes double encoding to a fixpoint, every level a form", () => {
    expect(forms("/tmp/%252e%252e/etc")).toEqual(["/tmp/%252e%252e/etc", "/tmp/%2e%2e/etc", "/etc"]);
  });

  it("encoded slashes become separators in the decoded reading", () => {
    expect(forms("/tmp/a%2F..%2F..%2Fetc")).toContain("/etc");
  });

  it("is undetermined when decoding still changes the path after 4 rounds", () => {
    expect(forms("/tmp/%2525252e")).toContain("/tmp");
    expect(reason("/tmp/%252525252e/x")).toMatch(/4 rounds/);
  });

  it("is undetermined when the bytes are not UTF-8", () => {
    expect(reason("/tmp/%ff")).toMatch(/UTF-8/);
    // Overlong UTF-8 for "." (the classic %c0%ae traversal) is not UTF-8 either.
    expect(reason("/tmp/%c0%ae%c0%ae/etc/passwd")).toMatch(/UTF-8/);
  });

  it("leaves a `%` that starts no escape alone", () => {
    expect(forms("/tmp/100%/x%zz")).toEqual(["/tmp/100%/x%zz"]);
  });
});

describe("canonicalPath: separators, Unicode, file: URLs", () => {
  it("reads `\\` both as a literal and as a separator", () => {
    expect(forms("/tmp\\..\\etc\\passwd")).toEqual(["/tmp\\..\\etc\\passwd", "/etc/passwd"]);
    expect(forms("/tmp/%5c..%5cetc")).toContain("/etc");
  });

  it("adds the NFC reading of an NFD name", () => {
    const nfd = "/tmp/cafe\u0301";
    expect(forms(nfd)).toEqual([nfd, "/tmp/caf\u00e9"]);
    expect(forms("/tmp/caf\u00e9")).toEqual(["/tmp/caf\u00e9"]);
  });

  it("reads file: URLs as their path", () => {
    expect(forms("file:///tmp/../etc/shadow")).toEqual(["/etc/shadow"]);
    expect(forms("file://localhost/etc/shadow")).toEqual(["/etc/shadow"]);
    expect(forms("FILE://LOCALHOST/etc/shadow")).toEqual(["/etc/shadow"]);
    expect(forms("file:/etc/shadow")).toEqual(["/etc/shadow"]);
    expect(forms("file:///tmp/%2e%2e/etc/shadow")).toContain("/etc/shadow");
  });

  it("cuts a file: URL's query/fragment in one reading and keeps it in another", () => {
    expect(forms("file:///tmp/x?y#z")).toEqual(["/tmp/x", "/tmp/x?y#z"]);
  });

  it("a file: URL naming another host is undetermined", () => {
    expect(reason("file://evil.example/etc/passwd")).toMatch(/host/);
    expect(reason("file:etc/passwd")).toMatch(/file:/);
  });
});

describe("canonicalPath: undetermined inputs", () => {
  it.each([
    ["~/.ssh/id_rsa", /~/],
    ["~root/.ssh", /~/],
    ["$HOME/x", /variable/],
    ["/home/$" + "{USER}/x", /variable/], // written split so it is not read as a template
    ["/tmp/$(whoami)", /variable/],
    ["/tmp/`id`", /backtick/],
    ["/tmp/a\0b", /NUL/],
    ["/tmp/a%00b", /NUL/],
    ["%7e/.ssh/id_rsa", /relative|~/],
    ["/tmp/%24HOME", /variable/],
    ["C:\\Windows\\system32", /Windows/],
    ["relative/file", /relative/],
    ["", /empty/],
  ])("%s", (input, expected) => {
    expect(reason(input)).toMatch(expected);
  });

  it.each([[undefined], [null], [42], [{}], [["/tmp"]]])("non-string %j", (input) => {
    expect(reason(input)).toMatch(/not a string/);
  });

  it("an over-long path is undetermined", () => {
    expect(reason(`/${"a".repeat(40_000)}`)).toMatch(/longer/);
  });

  it("a `~` inside a name is an ordinary character", () => {
    expect(forms("/tmp/notes.txt~")).toEqual(["/tmp/notes.txt~"]);
  });
});

describe("canonicalPath: base and caseFold", () => {
  it("resolves relative paths against base", () => {
    expect(forms("../../etc/passwd", { base: "/srv/app" })).toEqual(["/etc/passwd"]);
    expect(forms("./src/x.ts", { base: "/srv/app/" })).toEqual(["/srv/app/src/x.ts"]);
    expect(forms("%2fetc/passwd", { base: "/tmp" })).toContain("/etc/passwd");
  });

  it("rejects a base that is not absolute", () => {
    expect(reason("x", { base: "rel" })).toMatch(/base/);
  });

  it("lower-cases every form when caseFold is set", () => {
    expect(forms("/Users/Bob/../ALICE/.SSH", { caseFold: true })).toEqual(["/users/alice/.ssh"]);
  });
});

describe("pathWithin", () => {
  it("compares whole segments", () => {
    expect(pathWithin({ path: "/tmp", roots: ["/tmp"] })).toBe(true);
    expect(pathWithin({ path: "/tmp/a/b", roots: ["/tmp"] })).toBe(true);
    expect(pathWithin({ path: "/tmpx/a", roots: ["/tmp"] })).toBe(false);
    expect(pathWithin({ path: "/etc/passwd", roots: ["/tmp", "/srv"] })).toBe(false);
    expect(pathWithin({ path: "/etc/passwd", roots: ["/"] })).toBe(true);
    expect(pathWithin({ path: "/etc/passwd", roots: [] })).toBe(false);
  });

  it("tolerates a trailing slash on a root", () => {
    expect(pathWithin({ path: "/etc/passwd", roots: ["/etc/"] })).toBe(true);
    expect(pathWithin({ path: "/etc", roots: ["/etc/"] })).toBe(true);
  });
});

describe("pathMatches", () => {
  it("matches dot files and nested paths", () => {
    expect(pathMatches({ path: "/app/.env", globs: ["**/.env"] })).toBe(true);
    expect(pathMatches({ path: "/home/u/.ssh/id_rsa", globs: "/home/*/.ssh/**" })).toBe(true);
    expect(pathMatches({ path: "/etc", globs: ["/etc/**"] })).toBe(true);
    expect(pathMatches({ path: "/etcx/a", globs: ["/etc/**"] })).toBe(false);
    expect(pathMatches({ path: "/etc/passwd", globs: [] })).toBe(false);
  });

  it("folds case only when asked", () => {
    expect(pathMatches({ path: "/app/.ENV", globs: ["**/.env"] })).toBe(false);
    expect(pathMatches({ path: "/app/.ENV", globs: ["**/.env"], caseFold: true })).toBe(true);
  });

  it("a backslash in a path is not a separator to the glob", () => {
    // The literal reading `/tmp/a\..\b` is one file name inside /tmp; its other form is `/tmp/b`.
    expect(pathMatches({ path: "/tmp/a\\..\\b", globs: ["/tmp/*"] })).toBe(true);
    expect(pathMatches({ path: "/tmp/a\\..\\b", globs: ["/tmp/a/**"] })).toBe(false);
  });
});

describe("pathMayMatchBelow", () => {
  const homes = ["/", "/home", "/home/*", "/root"];
  it("is true for a directory a glob matches or one above such a directory", () => {
    for (const dir of ["/", "/home", "/home/dev", "/root"])
      expect(pathMayMatchBelow({ dir, globs: homes }), dir).toBe(true);
    expect(pathMayMatchBelow({ dir: "/home/dev", globs: "/home/*/.ssh" })).toBe(true);
    expect(pathMayMatchBelow({ dir: "/srv", globs: "**/.env" })).toBe(true);
    expect(pathMayMatchBelow({ dir: "/a/b/c", globs: "/a/**/z" })).toBe(true);
  });

  it("is false for a directory below every match or beside them", () => {
    for (const dir of ["/home/dev/proj", "/work/proj", "/roots", "/etc"])
      expect(pathMayMatchBelow({ dir, globs: homes }), dir).toBe(false);
    expect(pathMayMatchBelow({ dir: "/", globs: [] })).toBe(false);
    // A relative glob without a leading ** matches no absolute path, as for pathMatches.
    expect(pathMayMatchBelow({ dir: "/", globs: "home/*" })).toBe(false);
  });

  it("folds case only when asked, and reads a brace or a negation as matching more", () => {
    expect(pathMayMatchBelow({ dir: "/HOME/dev", globs: "/home/*" })).toBe(false);
    expect(pathMayMatchBelow({ dir: "/HOME/dev", globs: "/home/*", caseFold: true })).toBe(true);
    expect(pathMayMatchBelow({ dir: "/x/y/z", globs: "/x/{a,y/z}" })).toBe(true);
    expect(pathMayMatchBelow({ dir: "/anything", globs: "!/home/*" })).toBe(true);
  });
});

describe("helpers", () => {
  it("percentDecodeOnce decodes one level and keeps a BOM", () => {
    expect(percentDecodeOnce("%252e")).toBe("%2e");
    expect(percentDecodeOnce("%EF%BB%BFx")).toBe("\uFEFFx");
    expect(percentDecodeOnce("%C3%A9")).toBe("é");
    expect(percentDecodeOnce("%C3")).toBeUndefined();
  });

  it("normalisePosix keeps `..` above the root at the root", () => {
    expect(normalisePosix("/../a/./b/")).toBe("/a/b");
  });
});

// ---- property tests ---------------------------------------------------------------------------------

const SAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.";
const segment = fc
  .string({ unit: fc.constantFrom(...SAFE), minLength: 1, maxLength: 8 })
  .filter((s) => s !== "." && s !== "..");
const canonicalAbsolute = fc.array(segment, { maxLength: 6 }).map((segs) => `/${segs.join("/")}`);

/** Rewrites of a canonical path that every reader resolves to the same file. */
function respell(path: string, choices: number[]): string {
  const segs = path.split("/").filter((s) => s !== "");
  const out: string[] = [""];
  segs.forEach((seg, i) => {
    const c = choices[i % choices.length] ?? 0;
    if (c % 5 === 1) out.push(".");
    if (c % 5 === 2) out.push("junk", "..");
    if (c % 5 === 3) out.push("");
    out.push(c % 7 === 4 ? encodeSome(seg) : seg);
  });
  const joined = out.join("/") || "/";
  return choices[0] !== undefined && choices[0] % 2 === 1 ? `${joined}/` : joined;
}

function encodeSome(seg: string): string {
  return [...seg]
    .map((ch, i) => (i % 2 === 0 ? `%${ch.charCodeAt(0).toString(16).padStart(2, "0")}` : ch))
    .join("");
}

/** Independent containment check (node:path) to hold pathWithin against. */
function referenceWithin(path: string, root: string): boolean {
  const rel = posix.relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !posix.isAbsolute(rel));
}

describe("canonicalPath properties", () => {
  it("is idempotent: every form canonicalises to a set containing itself, within the original forms", () => {
    const arbitraryPath = fc.oneof(
      canonicalAbsolute,
      fc.string({ unit: fc.constantFrom(..."/.%2eE5cC\\ab~é\u0301"), maxLength: 24 }).map((s) => `/${s}`),
    );
    fc.assert(
      fc.property(arbitraryPath, fc.boolean(), (path, caseFold) => {
        const result = canonicalPath({ path, caseFold });
        if (!result.ok) return;
        for (const form of result.forms) {
          const again = canonicalPath({ path: form, caseFold });
          expect(again.ok).toBe(true);
          if (!again.ok) return;
          expect(again.forms).toContain(form);
          if (!caseFold) for (const f of again.forms) expect(result.forms).toContain(f);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("every equivalent spelling has the original's canonical form among its forms", () => {
    fc.assert(
      fc.property(
        canonicalAbsolute,
        fc.array(fc.nat(100), { minLength: 1, maxLength: 6 }),
        (path, choices) => {
          const expected = forms(path);
          expect(expected).toEqual([path === "/" ? "/" : path]);
          expect(forms(respell(path, choices))).toContain(expected[0]);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("pathWithin is never true when every form escapes the root", () => {
    const escaping = fc
      .tuple(canonicalAbsolute, fc.nat(3), fc.array(fc.nat(100), { minLength: 1, maxLength: 4 }), segment)
      .map(([root, extra, choices, target]) => {
        const depth = root.split("/").filter((s) => s !== "").length;
        const ups = Array.from({ length: depth + 1 + extra }, () =>
          choices[0]! % 2 === 0 ? ".." : "%2e%2e",
        );
        return {
          root,
          target,
          path: respell(`${root}/${ups.join("/")}/${target}`.replace("//", "/"), choices),
        };
      });
    fc.assert(
      fc.property(escaping, ({ root, target, path }) => {
        const result = canonicalPath({ path });
        if (!result.ok) return;
        for (const form of result.forms) {
          expect(pathWithin({ path: form, roots: [root] })).toBe(referenceWithin(form, root));
        }
        // The fully resolved reading, /<target> (climbing stops at /), escapes unless the root holds it
        // (the root is /, or /<target> itself: root "/-", path "/-/../../-"), so no allow holds.
        if (!referenceWithin(`/${target}`, root))
          expect(result.forms.every((f) => pathWithin({ path: f, roots: [root] }))).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it("never throws, and every form is absolute and normalised", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.anything()),
        fc.option(fc.constantFrom("/", "/srv/app")),
        (path, base) => {
          const result = canonicalPath({ path, base: base ?? undefined });
          if (!result.ok) return;
          for (const form of result.forms) {
            expect(form.startsWith("/")).toBe(true);
            expect(normalisePosix(form)).toBe(form);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("pathMayMatchBelow properties", () => {
  /** A glob made from a path's segments, each kept, replaced by a wildcard or dropped into a `**`. */
  const globOf = (segments: string[], choices: number[]) =>
    `/${segments
      .map((seg, i) => {
        const choice = ["keep", "*", "**", "?", "prefix*", "other"][(choices[i] ?? 0) % 6];
        if (choice === "keep") return seg;
        if (choice === "prefix*") return `${seg.slice(0, 1)}*`;
        if (choice === "other") return `${seg}x`;
        return choice as string;
      })
      .join("/")}`;
  it("never misses: when a path at or below the directory matches a glob, it says so", () => {
    fc.assert(
      fc.property(
        canonicalAbsolute,
        fc.array(segment, { maxLength: 3 }),
        fc.array(fc.nat(100), { maxLength: 9 }),
        fc.boolean(),
        (dir, below, choices, caseFold) => {
          const path = normalisePosix([dir, ...below].join("/"));
          const g = globOf(
            path.split("/").filter((x) => x !== ""),
            choices,
          );
          if (pathMatches({ path, globs: [g], caseFold }))
            expect(pathMayMatchBelow({ dir, globs: [g], caseFold }), `${dir} ${path} ${g}`).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("is exact for literal globs: true only for the glob's own directories and those above", () => {
    fc.assert(
      fc.property(canonicalAbsolute, canonicalAbsolute, (dir, g) => {
        const above = g === dir || g.startsWith(dir === "/" ? "/" : `${dir}/`);
        expect(pathMayMatchBelow({ dir, globs: [g] })).toBe(above);
      }),
      { numRuns: 1000 },
    );
  });
});
