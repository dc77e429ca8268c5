import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { globSelects, searchGlobAdmits, searchGlobMatches } from "./search-glob.js";

const SECRETS = [".env", ".aws/credentials", ".docker/config.json", ".bash_history", "id_rsa"];
const selects = (glob: string, paths = SECRETS) => globSelects({ glob, paths, caseFold: false });

describe("a search tool's file glob (ripgrep --glob)", () => {
  // What ripgrep 13 searched (rg -l --no-ignore -g GLOB) in a tree with these files at its root, in src/
  // and in sub/deep/: every file the glob admits, no other.
  const TREE = ["", "src/", "sub/deep/"].flatMap((dir) =>
    [
      ".env",
      ".aws/credentials",
      ".docker/config.json",
      ".bash_history",
      "id_rsa",
      "a.ts",
      "package.json",
    ].map((file) => `${dir}${file}`),
  );
  const RIPGREP: [string, string[]][] = [
    ["?env", [".env", "src/.env", "sub/deep/.env"]],
    ["*env", [".env", "src/.env", "sub/deep/.env"]],
    ["[.]env", [".env", "src/.env", "sub/deep/.env"]],
    ["*.env", [".env", "src/.env", "sub/deep/.env"]],
    ["{.e,x}nv", [".env", "src/.env", "sub/deep/.env"]],
    [
      "*e*",
      [".env", "package.json", "src/.env", "src/package.json", "sub/deep/.env", "sub/deep/package.json"],
    ],
    [
      "*",
      [
        ".aws/credentials",
        ".bash_history",
        ".docker/config.json",
        ".env",
        "a.ts",
        "id_rsa",
        "package.json",
        "src/.aws/credentials",
        "src/.bash_history",
        "src/.docker/config.json",
        "src/.env",
        "src/a.ts",
        "src/id_rsa",
        "src/package.json",
        "sub/deep/.aws/credentials",
        "sub/deep/.bash_history",
        "sub/deep/.docker/config.json",
        "sub/deep/.env",
        "sub/deep/a.ts",
        "sub/deep/id_rsa",
        "sub/deep/package.json",
      ],
    ],
    [
      "**",
      [
        ".aws/credentials",
        ".bash_history",
        ".docker/config.json",
        ".env",
        "a.ts",
        "id_rsa",
        "package.json",
        "src/.aws/credentials",
        "src/.bash_history",
        "src/.docker/config.json",
        "src/.env",
        "src/a.ts",
        "src/id_rsa",
        "src/package.json",
        "sub/deep/.aws/credentials",
        "sub/deep/.bash_history",
        "sub/deep/.docker/config.json",
        "sub/deep/.env",
        "sub/deep/a.ts",
        "sub/deep/id_rsa",
        "sub/deep/package.json",
      ],
    ],
    [
      "**/*",
      [
        ".aws/credentials",
        ".bash_history",
        ".docker/config.json",
        ".env",
        "a.ts",
        "id_rsa",
        "package.json",
        "src/.aws/credentials",
        "src/.bash_history",
        "src/.docker/config.json",
        "src/.env",
        "src/a.ts",
        "src/id_rsa",
        "src/package.json",
        "sub/deep/.aws/credentials",
        "sub/deep/.bash_history",
        "sub/deep/.docker/config.json",
        "sub/deep/.env",
        "sub/deep/a.ts",
        "sub/deep/id_rsa",
        "sub/deep/package.json",
      ],
    ],
    [
      "{*,x}",
      [
        ".aws/credentials",
        ".bash_history",
        ".docker/config.json",
        ".env",
        "a.ts",
        "id_rsa",
        "package.json",
        "src/.aws/credentials",
        "src/.bash_history",
        "src/.docker/config.json",
        "src/.env",
        "src/a.ts",
        "src/id_rsa",
        "src/package.json",
        "sub/deep/.aws/credentials",
        "sub/deep/.bash_history",
        "sub/deep/.docker/config.json",
        "sub/deep/.env",
        "sub/deep/a.ts",
        "sub/deep/id_rsa",
        "sub/deep/package.json",
      ],
    ],
    [
      "src/**",
      [
        "src/.aws/credentials",
        "src/.bash_history",
        "src/.docker/config.json",
        "src/.env",
        "src/a.ts",
        "src/id_rsa",
        "src/package.json",
      ],
    ],
    ["src/*", ["src/.bash_history", "src/.env", "src/a.ts", "src/id_rsa", "src/package.json"]],
    ["*/*", ["src/.bash_history", "src/.env", "src/a.ts", "src/id_rsa", "src/package.json"]],
    ["*/.env", ["src/.env"]],
    ["?env*", [".env", "src/.env", "sub/deep/.env"]],
    ["*history", [".bash_history", "src/.bash_history", "sub/deep/.bash_history"]],
    ["{.aws,.aws/*}", [".aws/credentials"]],
    ["{.aws,credentials}", [".aws/credentials", "src/.aws/credentials", "sub/deep/.aws/credentials"]],
    ["*.{ts,env}", [".env", "a.ts", "src/.env", "src/a.ts", "sub/deep/.env", "sub/deep/a.ts"]],
    ["id_*", ["id_rsa", "src/id_rsa", "sub/deep/id_rsa"]],
    ["*.ts", ["a.ts", "src/a.ts", "sub/deep/a.ts"]],
    ["**/*.ts", ["a.ts", "src/a.ts", "sub/deep/a.ts"]],
    ["*.json", ["package.json", "src/package.json", "sub/deep/package.json"]],
    ["config*", []],
    ["?aws/*", []],
    [".aws/*", []],
    ["**/credentials", []],
    ["credentials", []],
    [
      "!*.ts",
      [
        "id_rsa",
        "package.json",
        "src/id_rsa",
        "src/package.json",
        "sub/deep/id_rsa",
        "sub/deep/package.json",
      ],
    ],
    [
      "*/**",
      [
        "src/.aws/credentials",
        "src/.bash_history",
        "src/.docker/config.json",
        "src/.env",
        "src/a.ts",
        "src/id_rsa",
        "src/package.json",
        "sub/deep/.aws/credentials",
        "sub/deep/.bash_history",
        "sub/deep/.docker/config.json",
        "sub/deep/.env",
        "sub/deep/a.ts",
        "sub/deep/id_rsa",
        "sub/deep/package.json",
      ],
    ],
    [
      "src/**/*",
      [
        "src/.aws/credentials",
        "src/.bash_history",
        "src/.docker/config.json",
        "src/.env",
        "src/a.ts",
        "src/id_rsa",
        "src/package.json",
      ],
    ],
    ["**/.aws/*", []],
    ["sub/**/.env", ["sub/deep/.env"]],
    ["[!a]env", [".env", "src/.env", "sub/deep/.env"]],
    [
      "*/*/*",
      [
        "sub/deep/.bash_history",
        "sub/deep/.env",
        "sub/deep/a.ts",
        "sub/deep/id_rsa",
        "sub/deep/package.json",
      ],
    ],
  ];

  it("admits the files ripgrep searched for each glob, and no others", () => {
    for (const [glob, searched] of RIPGREP) {
      const admitted = TREE.filter((path) => searchGlobAdmits({ glob, path, caseFold: false }));
      // A negated glob only excludes: ripgrep searches what it would without one, which it does not admit.
      expect([...admitted].sort(), glob).toEqual(glob.startsWith("!") ? [] : [...searched].sort());
    }
  });

  it("selects a policy's paths wherever the glob reaches them", () => {
    const selected = (glob: string) => SECRETS.filter((path) => selects(glob, [path]));
    expect(selected("?env")).toEqual([".env"]);
    expect(selected("src/**")).toEqual(SECRETS);
    expect(selected("*/*")).toEqual([".env", ".bash_history", "id_rsa"]);
    expect(selected("{.aws,credentials}")).toEqual([".aws/credentials"]);
    expect(selected("*.ts")).toEqual([]);
    expect(selected("**/*.ts")).toEqual([]);
    expect(selected("?aws/*")).toEqual([]);
    expect(selected("!*")).toEqual([]);
  });

  it("reads a policy path with a wildcard (*.pem) as every file so named: does the glob meet it?", () => {
    const paths = [".env", "*.pem", "*.key"];
    const selects = (glob: string) => globSelects({ glob, paths, caseFold: false });
    for (const glob of ["*.pem", "priv*", "srv*.pem", "**/*.{pem,key}", "certs/*.p?m", "*", ".*"]) {
      expect([glob, selects(glob)]).toEqual([glob, true]);
    }
    for (const glob of ["*.ts", "src/**/*.{ts,tsx}", "*.pem.bak", "!*.pem", "config*.ts"]) {
      expect([glob, selects(glob)]).toEqual([glob, false]);
    }
    expect(selects("[[:alpha:]]*")).toBe(undefined);
  });

  it("ignores case unless told not to, and reads each word of a glob with spaces", () => {
    expect(globSelects({ glob: "*.ENV", paths: [".env"], caseFold: true })).toBe(true);
    expect(globSelects({ glob: "*.ENV", paths: [".env"], caseFold: false })).toBe(false);
    expect(globSelects({ glob: "[.]E[N]v", paths: [".env"], caseFold: true })).toBe(true);
    expect(selects("*.ts ?env", [".env"])).toBe(true);
    expect(selects("\\*env", [".env"])).toBe(false);
    expect(selects("/*env", [".env"])).toBe(true);
    // `[!…]` is a negated class, as `[^…]` (picomatch reads it otherwise, hence its absence below).
    expect(searchGlobMatches({ glob: "[!a]", path: "b", caseFold: false })).toBe(true);
    expect(searchGlobMatches({ glob: "[!a]", path: "a", caseFold: false })).toBe(false);
    expect(searchGlobMatches({ glob: "*.*", path: "a.", caseFold: false })).toBe(true);
    expect(searchGlobAdmits({ glob: "src/**", path: "src", caseFold: false })).toBe(false);
  });

  it("is no answer for a glob past its bounds, and never backtracks for long", () => {
    expect(globSelects({ glob: `${"*".repeat(2000)}`, paths: [".env"], caseFold: true })).toBeUndefined();
    expect(
      globSelects({ glob: "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", paths: [".env"], caseFold: true }),
    ).toBe(undefined);
    const crafted = `${"*a".repeat(120)}*b`;
    const path = `.${"a".repeat(60)}`;
    expect(globSelects({ glob: crafted, paths: [path], caseFold: false })).toBe(false);
    // Past 256 characters, 64 alternatives, or 2,048 characters of alternatives together: no answer.
    expect(globSelects({ glob: `${"*a".repeat(128)}*b`, paths: [path], caseFold: false })).toBeUndefined();
    expect(globSelects({ glob: `${"{a,b}".repeat(7)}`, paths: [".env"], caseFold: true })).toBeUndefined();
    expect(
      globSelects({ glob: `${"x".repeat(60)}{a,b}{a,b}{a,b}{a,b}{a,b}`, paths: [".env"], caseFold: true }),
    ).toBeUndefined();
    expect(
      globSelects({ glob: `${"x".repeat(60)}{a,b}{a,b}{a,b}{a,b}?env`, paths: [".env"], caseFold: true }),
    ).toBe(false);
  });

  it("matches as picomatch does on globs without ripgrep's differences (property)", () => {
    const glob = fc
      .array(fc.constantFrom("a", "b", ".", "/", "*", "?", "[a.]", "[^a]", "{a,.b}", "**/"), { maxLength: 7 })
      .map((parts) => parts.join(""))
      // No empty, "." or ".." segment, `**` only as a whole segment and never last (picomatch's `a/**`
      // matches `a` itself, ripgrep's only what is inside): where ripgrep and picomatch differ.
      .filter(
        (g) =>
          g !== "" &&
          !/\/\/|^\/|\/$|\/\*\*$|\*\*\*|[^/]\*\*|\*\*[^/]/.test(g) &&
          !g.split("/").some((seg) => seg === "." || seg === ".."),
      );
    const path = fc
      .array(fc.constantFrom("a", "b", ".", "/"), { minLength: 1, maxLength: 8 })
      .map((parts) => parts.join(""))
      // File names: no empty segment, no "." or ".." (which picomatch's stars never match), and no name
      // ending in a dot (picomatch's `*.*` wants a character after the dot; ripgrep's does not).
      .filter(
        (p) =>
          !/\/\/|^\/|\/$/.test(p) &&
          !p.split("/").some((seg) => seg === "." || seg === ".." || seg.endsWith(".")),
      );
    fc.assert(
      fc.property(glob, path, (g, p) => {
        const reference = picomatch(g, { dot: true, noextglob: true, windows: false })(p);
        expect(searchGlobMatches({ glob: g, path: p, caseFold: false }), `${g} ${p}`).toBe(reference);
      }),
      { numRuns: 5000 },
    );
  });
});
