import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJsonInput, readJsonObjectInput, readTextInput } from "./read-input.js";

const dir = mkdtempSync(join(tmpdir(), "warden-read-input-"));
const file = join(dir, "in.txt");
writeFileSync(file, "hello");

describe("readTextInput", () => {
  it("reads a regular file under the cap", async () => {
    expect(await readTextInput({ value: file, option: "--input" })).toBe("hello");
  });

  it.each([
    [dir, /--input: .* is a directory/],
    ["/dev/zero", /--input: \/dev\/zero is not a regular file/],
    [join(dir, "missing.txt"), /--input: no such file/],
  ])("refuses %s naming the option", async (value, message) => {
    await expect(readTextInput({ value, option: "--input" })).rejects.toThrow(message);
  });

  it("refuses a file past the cap", async () => {
    await expect(readTextInput({ value: file, option: "--output", maxBytes: 4 })).rejects.toThrow(
      /--output: .* is larger than 4 bytes/,
    );
  });
});

describe("readJsonInput", () => {
  it("refuses JSON nested deeper than the document limit", async () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    await expect(readJsonInput({ value: deep, option: "--trajectory" })).rejects.toThrow(
      /--trajectory: nested more than 128 levels deep/,
    );
  });

  it("takes only an object where an object is expected", async () => {
    await expect(readJsonObjectInput({ value: "[1,2]", option: "--context" })).rejects.toThrow(
      /--context: expects a JSON object.*got an array/,
    );
    expect(await readJsonObjectInput({ value: '{"a":1}', option: "--context" })).toEqual({ a: 1 });
  });
});
