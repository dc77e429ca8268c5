/**
 * Python's backslash escapes in a string literal's body, decoded as CPython compiles them: shared by the
 * EHRAgent tokenizer and parser (f-string parts) and by the BrowserGym action reader, which parses one
 * call of Python source (browsergym-action.ts) on every web step and a tool call's trajectory, without
 * loading the whole tokenizer.
 */
import { WardenError } from "../../core/errors.js";

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/**
 * Decodes Python backslash escapes in a non-raw string body; unknown escapes stay as written. An escape
 * Python refuses to compile (a truncated `\x`, `\u` or `\U`, a code point past U+10FFFF, any `\N`)
 * throws EXTRACTION_FAILED, as does `\N{…}`, which needs Unicode's name table: Python would not run
 * the code, and Warden does not guess what it says.
 */
export function decodePythonEscapes(options: { body: string }): string {
  const { body } = options;
  let i = body.indexOf("\\");
  if (i < 0) return body;
  // Copies the text between escapes in slices rather than character by character.
  let out = body.slice(0, i);
  for (; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\" || i + 1 >= body.length) {
      const next = body.indexOf("\\", i + 1);
      const end = next < 0 ? body.length : next;
      out += body.slice(i, end);
      i = end - 1;
      continue;
    }
    const next = body[i + 1]!;
    if (next === "\n") {
      i += 1;
      continue;
    }
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      out += simple;
      i += 1;
      continue;
    }
    if (next === "N") {
      // A character by its Unicode name: decoding it needs the name table, which is not here.
      throw new WardenError({
        code: "EXTRACTION_FAILED",
        message: "a \\N{...} escape (a character by its Unicode name) is not decoded by the analysis",
      });
    }
    const hexLength = next === "x" ? 2 : next === "u" ? 4 : next === "U" ? 8 : 0;
    if (hexLength > 0) {
      const hex = body.slice(i + 2, i + 2 + hexLength);
      const code = hex.length === hexLength && /^[0-9a-fA-F]+$/.test(hex) ? Number.parseInt(hex, 16) : -1;
      if (code < 0 || code > 0x10ffff) {
        throw new WardenError({
          code: "EXTRACTION_FAILED",
          message: `a \\${next} escape that Python refuses (truncated, or past U+10FFFF): \\${next}${hex}`,
        });
      }
      out += String.fromCodePoint(code);
      i += 1 + hexLength;
      continue;
    }
    const octal = /^[0-7]{1,3}/.exec(body.slice(i + 1, i + 4));
    if (octal) {
      out += String.fromCharCode(Number.parseInt(octal[0], 8));
      i += octal[0].length;
      continue;
    }
    // Python keeps an unknown escape as both characters.
    out += ch;
  }
  return out;
}
