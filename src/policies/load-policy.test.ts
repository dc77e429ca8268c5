import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  bundledPoliciesDir,
  listBundledPolicies,
  loadPolicy,
  readPolicyFile,
  readPolicyFileContent,
  validatedPolicyDigest,
} from "./load-policy.js";

const root = mkdtempSync(join(tmpdir(), "warden-load-policy-"));
writeFileSync(join(root, "outside.md"), "OUTSIDE");

function policyWith(name: string, specification: unknown): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "texts"), { recursive: true });
  writeFileSync(join(dir, "texts", "spec.md"), "the agent");
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ name, specification, requests: "guard it" }));
  return dir;
}

describe("loadPolicy confines text files to the policy's folder", () => {
  it("loads every bundled policy", () => {
    const names = listBundledPolicies();
    expect(names.length).toBeGreaterThan(3);
    for (const name of names)
      expect(loadPolicy({ ref: name }).policy.specification.length).toBeGreaterThan(0);
  });

  it("reads a relative file in the folder or below it", () => {
    const dir = policyWith("nested-ok", { file: "texts/spec.md" });
    expect(loadPolicy({ ref: dir }).policy.specification).toBe("the agent");
    const dotted = policyWith("dotted-ok", { file: "./texts/../texts/spec.md" });
    expect(() => loadPolicy({ ref: dotted })).toThrow(/'\.\.'/);
  });

  it.each([
    ["absolute", { file: "/etc/passwd" }, /an absolute path/],
    ["dotdot", { file: "../outside.md" }, /a path with '\.\.'/],
    ["backslash-dotdot", { file: "texts\\..\\..\\outside.md" }, /a path with '\.\.'/],
  ])("refuses a %s reference naming the field", (name, specification, why) => {
    const dir = policyWith(name, specification);
    expect(() => loadPolicy({ ref: dir })).toThrow(why);
    expect(() => loadPolicy({ ref: dir })).toThrow(/Policy field specification/);
  });

  it("refuses a symbolic link whose real path leaves the folder", () => {
    const dir = policyWith("linked", { file: "spec.md" });
    symlinkSync(join(root, "outside.md"), join(dir, "spec.md"));
    expect(() => loadPolicy({ ref: dir })).toThrow(/real path .* is outside the folder/);
  });

  it("refuses a text that is a directory, and a policy that is not a regular file", () => {
    const dir = policyWith("dir-text", { file: "texts" });
    expect(() => loadPolicy({ ref: dir })).toThrow(/not a regular file/);
    expect(() => loadPolicy({ ref: "/dev/null" })).toThrow(/INVALID_POLICY|not a regular file/);
  });
});

describe("loadPolicy's options", () => {
  it("answers a wrong option with an error naming the field", () => {
    expect(() => loadPolicy({ name: "mcp-tools" } as never)).toThrow(/loadPolicy options: ref/);
    expect(() => loadPolicy({ ref: "" })).toThrow(/ref/);
  });
});

describe("loadPolicy's regex checks", () => {
  const dir = join(root, "bad-regex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "policy.json"),
    JSON.stringify({
      name: "bad-regex",
      specification: "s",
      requests: "r",
      rules: {
        toolRules: [
          {
            id: "no-x",
            tool: "Bash",
            when: { field: "args.command", op: "matches", value: "(?=x)rm" },
            effect: "deny",
            message: "m",
          },
        ],
      },
    }),
  );

  it("rejects a regex RE2 refuses at load by default, and leaves it to its first use with regexes: use", () => {
    expect(() => loadPolicy({ ref: dir })).toThrow(/rule "no-x".*lookahead/);
    const { policy } = loadPolicy({ ref: dir, regexes: "use" });
    expect(policy.rules?.toolRules?.[0]?.id).toBe("no-x");
    // The deferral ends with the load: the next default load still parses (and refuses) the pattern.
    expect(() => loadPolicy({ ref: dir })).toThrow(/lookahead/);
  });

  it("parses once and still rejects what the schema rejects, with the texts resolved", () => {
    const { policy } = loadPolicy({ ref: "coding-agent", regexes: "use" });
    expect(policy.kind).toBe("warden.policy");
    expect(policy.specification).toMatch(/coding/);
    const wrong = join(root, "wrong-effect");
    mkdirSync(wrong, { recursive: true });
    writeFileSync(
      join(wrong, "policy.json"),
      JSON.stringify({
        name: "w",
        specification: "s",
        requests: "r",
        rules: { toolRules: [{ id: "a", tool: "Bash", effect: "permit", message: "m" }] },
      }),
    );
    expect(() => loadPolicy({ ref: wrong, regexes: "use" })).toThrow(/effect/);
  });
});

describe("documents the build validated (validated-policy-digests.ts)", () => {
  const bundledText = (name: string) =>
    readPolicyFile({ path: join(bundledPoliciesDir(), name, "policy.json"), what: "policy file" });

  it("has a digest for every bundled policy, none for a document the schema changes, and refuses an invalid one", () => {
    for (const name of listBundledPolicies())
      expect(validatedPolicyDigest({ text: bundledText(name), what: name })).toMatch(/^[0-9a-f]{64}$/);
    // The schema fills in `kind`: the parse is not the document, so it must keep being parsed.
    const defaulted = JSON.stringify({ name: "d", specification: "s", requests: "r" });
    expect(validatedPolicyDigest({ text: defaulted, what: "d" })).toBeUndefined();
    const invalid = JSON.stringify({ name: "", specification: "s", requests: "r" });
    expect(() => validatedPolicyDigest({ text: invalid, what: "i" })).toThrow(/Invalid i/);
  });

  it("loads a validated document as its parse, and parses any other byte", () => {
    const dir = join(root, "validated");
    mkdirSync(dir);
    const path = join(dir, "policy.json");
    const text = bundledText("coding-agent");
    writeFileSync(path, text);
    const digest = validatedPolicyDigest({ text, what: "coding-agent" })!;
    const parsed = readPolicyFileContent({ path, what: "p", digests: [] });
    expect(readPolicyFileContent({ path, what: "p", digests: [digest] })).toStrictEqual(parsed);
    // One byte more (a rule id emptied) is another document: parsed, and refused.
    writeFileSync(path, text.replace('"id": "code.no-secret-files"', '"id": ""'));
    expect(() => readPolicyFileContent({ path, what: "p", digests: [digest] })).toThrow(
      /INVALID_POLICY|Invalid p/,
    );
  });
});
