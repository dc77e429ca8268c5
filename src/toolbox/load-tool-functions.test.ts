import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadToolFunctions, parseToolFunctionsJs } from "./load-tool-functions.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "warden-toolbox-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const JS_FILE = `// Functions for the shopping policy.

/**
 * True when the user is at least \`min\` years old.
 * @signature IsOldEnough(user: { age: number }, min: number) -> boolean
 */
function IsOldEnough(user, min) {
  return Number(user.age) >= min;
}

/**
 * Lower-cases and trims a name.
 */
function Normalise(name) {
  return clean(name);
}

// A helper that travels with Normalise.
function clean(text) {
  return String(text).trim().toLowerCase();
}

/**
 * @name Membership
 * @description Whether the user is a member,
 *   reading "yes"/"no" too.
 * @signature Membership(user: { membership: unknown }) -> boolean
 */
function Membership(user) {
  return ["true", "yes"].includes(String(user.membership).toLowerCase());
}
`;

describe("loading toolbox functions", () => {
  it("reads a JavaScript file with a documentation block per function", async () => {
    const file = path.join(dir, "tools.js");
    await writeFile(file, JS_FILE);
    const fns = await loadToolFunctions({ path: file });
    expect(fns.map((f) => f.name)).toEqual(["IsOldEnough", "Normalise", "Membership"]);
    expect(fns[0]).toMatchObject({
      signature: "IsOldEnough(user: { age: number }, min: number) -> boolean",
      description: "True when the user is at least `min` years old.",
    });
    expect(fns[0]!.source.startsWith("function IsOldEnough(user, min)")).toBe(true);
    expect(fns[1]).toMatchObject({
      signature: "Normalise(name)",
      description: "Lower-cases and trims a name.",
    });
    expect(fns[1]!.source).toContain("function clean(text)");
    expect(fns[2]!.description).toBe('Whether the user is a member, reading "yes"/"no" too.');
  });

  it("refuses code before the first documented function, and a file without any", () => {
    expect(() => parseToolFunctionsJs({ source: "const x = 1;\n/** Doc. */\nfunction A() {}" })).toThrow(
      /before the first documented function/,
    );
    expect(() => parseToolFunctionsJs({ source: "function A() {}" })).toThrow(/no documented function/);
  });

  it("requires a description", () => {
    expect(() =>
      parseToolFunctionsJs({ source: "/**\n * @signature A() -> number\n */\nfunction A() { return 1; }" }),
    ).toThrow(/description/);
  });

  it("reads JSON and YAML lists, with sources inline or in files", async () => {
    await writeFile(path.join(dir, "double.js"), "function Double(x) {\n  return 2 * x;\n}\n");
    const json = path.join(dir, "tools.json");
    await writeFile(
      json,
      JSON.stringify([
        {
          name: "Double",
          signature: "Double(x: number) -> number",
          description: "Twice x.",
          sourceFile: "double.js",
        },
      ]),
    );
    const yaml = path.join(dir, "tools.yaml");
    await writeFile(
      yaml,
      [
        "functions:",
        "  - name: Half",
        "    signature: 'Half(x: number) -> number'",
        "    description: Half of x.",
        "    source: |",
        "      function Half(x) {",
        "        return x / 2;",
        "      }",
      ].join("\n"),
    );
    const [fromJson] = await loadToolFunctions({ path: json });
    expect(fromJson).toMatchObject({ name: "Double", description: "Twice x." });
    expect(fromJson!.source).toContain("return 2 * x;");
    const [fromYaml] = await loadToolFunctions({ path: yaml });
    expect(fromYaml).toMatchObject({ name: "Half", signature: "Half(x: number) -> number" });
  });

  it("names the file and the field of a bad entry", async () => {
    const file = path.join(dir, "bad.json");
    await writeFile(
      file,
      JSON.stringify([{ name: "Bad name", signature: "x", description: "y", source: "z" }]),
    );
    await expect(loadToolFunctions({ path: file })).rejects.toThrow(/bad\.json.*0\.name/);
    await expect(loadToolFunctions({ path: path.join(dir, "missing.json") })).rejects.toThrow(
      /Cannot read toolbox file/,
    );
    const other = path.join(dir, "tools.txt");
    await writeFile(other, "x");
    await expect(loadToolFunctions({ path: other })).rejects.toThrow(/Unsupported/);
  });
});
