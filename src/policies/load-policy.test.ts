import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listBundledPolicies, loadPolicy } from "./load-policy.js";

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
