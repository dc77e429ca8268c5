/**
 * Tokenizer for the Python subset that EHRAgent writes (and a good deal more): names, numbers, strings
 * with every prefix and quote style, operators, comments, explicit and implicit line joining, and
 * INDENT/DEDENT tokens computed from tabs or spaces the way CPython does (a tab advances to the next
 * multiple of 8). It also accepts EHRAgent's few-shot notation `SQLInterpreter[select ...]`, whose
 * bracket holds raw SQL rather than Python, by turning it into a call with one string argument.
 */
import { WardenError } from "../../../../core/errors.js";

/** A list of words written as one block of text. */
const words = (text: string): string[] => text.trim().split(/\s+/);

export type TokenKind = "name" | "number" | "string" | "op" | "newline" | "indent" | "dedent" | "eof";

export interface Token {
  kind: TokenKind;
  /** Name or operator text; decoded contents for a string; source text for a number. */
  value: string;
  line: number;
  col: number;
  /** String tokens: lower-cased prefix letters ("", "f", "rb", ...). */
  prefix?: string;
  /** String tokens: the body exactly as written between the quotes (f-strings are parsed from it). */
  body?: string;
}

/** Longest first, so that the first match is the right one. */
const OPERATORS = words(`
  **= //= >>= <<= ... -> := == != <> <= >= ** // << >> += -= *= /= %= &= |= ^= @=
  + - * / % @ & | ^ ~ < > ( ) [ ] { } , : ; . = !
`);

const STRING_PREFIXES = new Set(["r", "u", "b", "f", "br", "rb", "fr", "rf"]);

/** Tab stops every 8 columns, as CPython computes indentation. */
const TAB_SIZE = 8;

/** Call names whose `Name[...]` form carries raw SQL in EHRAgent's prompt notation. */
const RAW_BRACKET_CALLS = new Set(["SQLInterpreter"]);

export function syntaxError(options: { message: string; line: number; col: number }): WardenError {
  return new WardenError({
    code: "EXTRACTION_FAILED",
    message: `Python syntax error at line ${options.line}, column ${options.col}: ${options.message}`,
    details: { line: options.line, col: options.col },
  });
}

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

/** Decodes Python backslash escapes in a non-raw string body; unknown escapes stay as written. */
export function decodePythonEscapes(options: { body: string }): string {
  const { body } = options;
  if (!body.includes("\\")) return body;
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\" || i + 1 >= body.length) {
      out += ch;
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
    const hexLength = next === "x" ? 2 : next === "u" ? 4 : next === "U" ? 8 : 0;
    if (hexLength > 0) {
      const hex = body.slice(i + 2, i + 2 + hexLength);
      if (hex.length === hexLength && /^[0-9a-fA-F]+$/.test(hex)) {
        out += String.fromCodePoint(Number.parseInt(hex, 16));
        i += 1 + hexLength;
        continue;
      }
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

function isNameStart(ch: string): boolean {
  return /[A-Za-z_]/.test(ch) || ch.charCodeAt(0) > 127;
}

function isNameChar(ch: string): boolean {
  return /[A-Za-z0-9_]/.test(ch) || ch.charCodeAt(0) > 127;
}

/** Turns Python source into tokens; throws a WardenError (EXTRACTION_FAILED) on malformed input. */
export function tokenizePython(options: { source: string }): Token[] {
  const src = options.source.replace(/\r\n?/g, "\n");
  const tokens: Token[] = [];
  const indents: number[] = [0];
  let pos = 0;
  let line = 1;
  let lineStart = 0;
  let depth = 0;
  let atLineStart = true;

  const col = (at: number) => at - lineStart + 1;
  const push = (kind: TokenKind, value: string, at: number, extra?: Partial<Token>) => {
    tokens.push({ kind, value, line, col: col(at), ...extra });
  };
  const lastSignificant = () => tokens[tokens.length - 1];

  while (pos < src.length) {
    if (atLineStart && depth === 0) {
      // Measure indentation; blank and comment-only lines do not count.
      let width = 0;
      let p = pos;
      while (p < src.length && (src[p] === " " || src[p] === "\t" || src[p] === "\f")) {
        width =
          src[p] === "\t" ? (Math.floor(width / TAB_SIZE) + 1) * TAB_SIZE : src[p] === " " ? width + 1 : 0;
        p++;
      }
      if (p >= src.length) {
        pos = p;
        break;
      }
      const ch = src[p]!;
      if (ch === "\n" || ch === "#" || (ch === "\\" && src[p + 1] === "\n")) {
        if (ch === "#") {
          while (p < src.length && src[p] !== "\n") p++;
        } else if (ch === "\\") {
          p += 1;
        }
        if (p < src.length) {
          p++;
          line++;
          lineStart = p;
        }
        pos = p;
        continue;
      }
      const current = indents[indents.length - 1]!;
      if (width > current) {
        indents.push(width);
        push("indent", "", p);
      } else if (width < current) {
        while (indents.length > 1 && width < indents[indents.length - 1]!) {
          indents.pop();
          push("dedent", "", p);
        }
        if (width !== indents[indents.length - 1]) {
          throw syntaxError({ message: "unindent does not match any outer indentation level", line, col: 1 });
        }
      }
      pos = p;
      atLineStart = false;
      continue;
    }

    const ch = src[pos]!;
    if (ch === "\n") {
      if (depth === 0) {
        const last = lastSignificant();
        if (last && last.kind !== "newline" && last.kind !== "indent" && last.kind !== "dedent") {
          push("newline", "\n", pos);
        }
        atLineStart = true;
      }
      pos++;
      line++;
      lineStart = pos;
      continue;
    }
    if (ch === " " || ch === "\t" || ch === "\f") {
      pos++;
      continue;
    }
    if (ch === "#") {
      while (pos < src.length && src[pos] !== "\n") pos++;
      continue;
    }
    if (ch === "\\") {
      if (src[pos + 1] === "\n") {
        pos += 2;
        line++;
        lineStart = pos;
        continue;
      }
      throw syntaxError({ message: "unexpected character after line continuation", line, col: col(pos) });
    }

    if (isNameStart(ch)) {
      let end = pos + 1;
      while (end < src.length && isNameChar(src[end]!)) end++;
      const word = src.slice(pos, end);
      const quote = src[end];
      if ((quote === "'" || quote === '"') && STRING_PREFIXES.has(word.toLowerCase())) {
        pos = readString({ prefix: word.toLowerCase(), start: pos, quoteAt: end });
        continue;
      }
      push("name", word, pos);
      pos = end;
      if (RAW_BRACKET_CALLS.has(word)) {
        let p = pos;
        while (p < src.length && (src[p] === " " || src[p] === "\t")) p++;
        if (src[p] === "[") pos = readRawBracket({ openAt: p });
      }
      continue;
    }

    if (/[0-9]/.test(ch) || (ch === "." && /[0-9]/.test(src[pos + 1] ?? ""))) {
      const match =
        /^(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][+-]?[0-9_]+)?[jJ]?)/.exec(
          src.slice(pos),
        );
      const text = match?.[0] ?? ch;
      push("number", text, pos);
      pos += Math.max(1, text.length);
      continue;
    }

    if (ch === "'" || ch === '"') {
      pos = readString({ prefix: "", start: pos, quoteAt: pos });
      continue;
    }

    const op = OPERATORS.find((candidate) => src.startsWith(candidate, pos));
    if (!op)
      throw syntaxError({ message: `unexpected character ${JSON.stringify(ch)}`, line, col: col(pos) });
    if (op === "(" || op === "[" || op === "{") depth++;
    if (op === ")" || op === "]" || op === "}") depth = Math.max(0, depth - 1);
    push("op", op, pos);
    pos += op.length;
  }

  const last = lastSignificant();
  if (last && last.kind !== "newline" && last.kind !== "dedent" && last.kind !== "indent") {
    push("newline", "\n", pos);
  }
  while (indents.length > 1) {
    indents.pop();
    push("dedent", "", pos);
  }
  push("eof", "", pos);
  return tokens;

  function readString(args: { prefix: string; start: number; quoteAt: number }): number {
    const { prefix, start, quoteAt } = args;
    const quoteChar = src[quoteAt]!;
    const triple = src.startsWith(quoteChar.repeat(3), quoteAt);
    const delimiter = triple ? quoteChar.repeat(3) : quoteChar;
    const startLine = line;
    const startCol = col(start);
    let p = quoteAt + delimiter.length;
    const bodyStart = p;
    for (;;) {
      if (p >= src.length) {
        throw syntaxError({ message: "unterminated string literal", line: startLine, col: startCol });
      }
      const c = src[p]!;
      if (c === "\\") {
        if (src[p + 1] === "\n") {
          line++;
          lineStart = p + 2;
        }
        p += 2;
        continue;
      }
      if (c === "\n") {
        if (!triple)
          throw syntaxError({ message: "unterminated string literal", line: startLine, col: startCol });
        line++;
        lineStart = p + 1;
        p++;
        continue;
      }
      if (src.startsWith(delimiter, p)) break;
      p++;
    }
    const body = src.slice(bodyStart, p);
    const raw = prefix.includes("r");
    const value = prefix.includes("f") ? body : raw ? body : decodePythonEscapes({ body });
    tokens.push({ kind: "string", value, line: startLine, col: startCol, prefix, body });
    return p + delimiter.length;
  }

  function readRawBracket(args: { openAt: number }): number {
    // Find the matching "]" while skipping quoted SQL strings, then emit `( "<sql>" )`.
    let p = args.openAt + 1;
    let level = 1;
    let quote: string | null = null;
    while (p < src.length) {
      const c = src[p]!;
      if (quote) {
        if (c === quote) quote = null;
      } else if (c === "'" || c === '"') {
        quote = c;
      } else if (c === "[") {
        level++;
      } else if (c === "]") {
        level--;
        if (level === 0) break;
      }
      p++;
    }
    if (p >= src.length) {
      throw syntaxError({ message: "unterminated SQLInterpreter[...] bracket", line, col: col(args.openAt) });
    }
    let sql = src.slice(args.openAt + 1, p).trim();
    const quoted = /^(['"])([\s\S]*)\1$/.exec(sql);
    if (quoted && !quoted[2]!.includes(quoted[1]!)) sql = quoted[2]!;
    const startCol = col(args.openAt);
    tokens.push({ kind: "op", value: "(", line, col: startCol });
    tokens.push({ kind: "string", value: sql, line, col: startCol + 1, prefix: "", body: sql });
    const newlines = src.slice(args.openAt, p).split("\n").length - 1;
    if (newlines > 0) {
      line += newlines;
      lineStart = src.lastIndexOf("\n", p) + 1;
    }
    tokens.push({ kind: "op", value: ")", line, col: col(p) });
    return p + 1;
  }
}
