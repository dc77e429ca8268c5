import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodePythonEscapes } from "./python-escapes.js";

describe("Python string escapes", () => {
  it("decodePythonEscapes refuses the escapes Python refuses, and \\N, which it cannot decode", () => {
    for (const body of [
      String.raw`\x6`,
      String.raw`\u00e`,
      String.raw`\U0011ffff`,
      String.raw`\N`,
      String.raw`a\N{DASH}`,
    ]) {
      expect(() => decodePythonEscapes({ body }), body).toThrow(/escape/);
    }
    expect(decodePythonEscapes({ body: String.raw`\U0010ffff\q` })).toBe("\u{10ffff}\\q");
  });

  it("decodePythonEscapes leaves text without backslashes alone (property)", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes("\\")),
        (body) => {
          expect(decodePythonEscapes({ body })).toBe(body);
        },
      ),
    );
  });
});
