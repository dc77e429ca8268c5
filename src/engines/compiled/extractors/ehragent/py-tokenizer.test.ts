import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isWardenError } from "../../../../core/errors.js";
import { type Token, tokenizePython } from "./py-tokenizer.js";

const kinds = (tokens: Token[]) =>
  tokens.map((t) => (t.kind === "name" || t.kind === "op" ? t.value : t.kind));
const strings = (source: string) =>
  tokenizePython({ source })
    .filter((t) => t.kind === "string")
    .map((t) => t.value);

/** Writes a Python string literal for any text, escaping what Python requires. */
function pythonLiteral(text: string, quote: "'" | '"'): string {
  let body = "";
  for (const ch of text) {
    if (ch === "\\") body += "\\\\";
    else if (ch === quote) body += `\\${quote}`;
    else if (ch === "\n") body += "\\n";
    else if (ch === "\r") body += "\\r";
    else body += ch;
  }
  return `${quote}${body}${quote}`;
}

/** Characters that stress string scanning, mixed with arbitrary graphemes. */
const tricky = fc.oneof(
  fc.constantFrom("'", '"', "\\", "\n", "\t", "|", "{", "}", "%", "#", "é", "\u0000"),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
);

describe("tokenizePython", () => {
  it("emits INDENT/DEDENT for spaces and for tabs", () => {
    const spaces = tokenizePython({ source: "if x:\n    y = 1\n    z = 2\nw = 3\n" });
    expect(kinds(spaces)).toEqual([
      "if",
      "x",
      ":",
      "newline",
      "indent",
      "y",
      "=",
      "number",
      "newline",
      "z",
      "=",
      "number",
      "newline",
      "dedent",
      "w",
      "=",
      "number",
      "newline",
      "eof",
    ]);
    const tabs = tokenizePython({ source: "for a in b:\n\tc = 1\n\tif c:\n\t\td = 2\ne = 3" });
    expect(kinds(tabs).filter((k) => k === "indent").length).toBe(2);
    expect(kinds(tabs).filter((k) => k === "dedent").length).toBe(2);
  });

  it("ignores blank lines, comment-only lines and comments", () => {
    const tokens = tokenizePython({ source: "a = 1  # one\n\n   # indented comment\nb = 2\n" });
    expect(kinds(tokens)).toEqual(["a", "=", "number", "newline", "b", "=", "number", "newline", "eof"]);
  });

  it("joins lines inside brackets and after a backslash", () => {
    const tokens = tokenizePython({ source: "x = f(1,\n      2)\ny = 1 + \\\n    2\n" });
    expect(kinds(tokens)).toEqual([
      "x",
      "=",
      "f",
      "(",
      "number",
      ",",
      "number",
      ")",
      "newline",
      "y",
      "=",
      "number",
      "+",
      "number",
      "newline",
      "eof",
    ]);
  });

  it("decodes strings with every quote style and prefix", () => {
    expect(strings(`a = 'it\\'s' + "say \\"hi\\"" + '''tri'ple\nline''' + r'\\d+' + b'x'`)).toEqual([
      "it's",
      'say "hi"',
      "tri'ple\nline",
      "\\d+",
      "x",
    ]);
    expect(strings(String.raw`s = 'tab\there\x41\u00e9\101\q'`)).toEqual(["tab\there\x41\u00e9A\\q"]);
  });

  it("keeps || and quotes inside strings as text", () => {
    expect(strings(`FilterDB(db, "name='a||b'||age>3")`)).toEqual(["name='a||b'||age>3"]);
  });

  it("keeps the raw body of f-strings", () => {
    const token = tokenizePython({ source: "f'x={x!r:>{w}}\\n'" }).find((t) => t.kind === "string")!;
    expect(token.prefix).toBe("f");
    expect(token.body).toBe("x={x!r:>{w}}\\n");
  });

  it("turns SQLInterpreter[raw sql] into a call with one string", () => {
    const tokens = tokenizePython({
      source: "answer = SQLInterpreter[select count(*) from lab where lab.labname = 'x[1]']\n",
    });
    expect(kinds(tokens)).toEqual(["answer", "=", "SQLInterpreter", "(", "string", ")", "newline", "eof"]);
    expect(tokens[4]!.value).toBe("select count(*) from lab where lab.labname = 'x[1]'");
  });

  it("reports malformed input with line and column", () => {
    const cases = ["x = 'open\n", "if a:\n        b\n    c\n", "x = $\n", "x = '''never closed"];
    for (const source of cases) {
      try {
        tokenizePython({ source });
        expect.unreachable(`no error for ${JSON.stringify(source)}`);
      } catch (error) {
        expect(isWardenError(error) && error.code).toBe("EXTRACTION_FAILED");
        expect((error as Error).message).toMatch(/line \d+, column \d+/);
      }
    }
  });

  it("round-trips any string through a Python literal (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: tricky }), fc.constantFrom<"'" | '"'>("'", '"'), (text, quote) => {
        expect(strings(`x = ${pythonLiteral(text, quote)}`)).toEqual([text]);
      }),
      { numRuns: 300 },
    );
  });
});

describe("tokenizePython on text cut out of a longer string", () => {
  it("reads exactly the characters of the slice (odd lengths, surrogate pairs split at the middle)", () => {
    const code = "x = '\u{1F600}é'\nif x:\n    y = \"\u{1F600}\" + 'a\\\\b'\n";
    const output = `Knowledge...\nGenerated code:\n${code}\nAnswer:\n1`;
    const start = output.indexOf(code);
    for (let end = start; end <= start + code.length; end++) {
      const slice = output.slice(start, end);
      let expected: unknown;
      let got: unknown;
      try {
        expected = tokenizePython({ source: [...slice].join("") });
      } catch (error) {
        expected = (error as Error).message;
      }
      try {
        got = tokenizePython({ source: slice });
      } catch (error) {
        got = (error as Error).message;
      }
      expect(got).toEqual(expected);
    }
  });
});
