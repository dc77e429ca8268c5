/**
 * Tokenizer for the Python subset that EHRAgent writes (and a good deal more): names, numbers, strings
 * with every prefix and quote style, operators, comments, explicit and implicit line joining, and
 * INDENT/DEDENT tokens computed from tabs or spaces the way CPython does (a tab advances to the next
 * multiple of 8). It also accepts EHRAgent's few-shot notation `SQLInterpreter[select ...]`, whose
 * bracket holds raw SQL rather than Python, by turning it into a call with one string argument.
 */
import { WardenError } from "../../../../core/errors.js";
import { decodePythonEscapes } from "../../../common/python-escapes.js";

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

const STRING_PREFIXES = new Set(["r", "u", "b", "f", "br", "rb", "fr", "rf"]);

/** Tab stops every 8 columns, as CPython computes indentation. */
const TAB_SIZE = 8;

/** The call name whose `Name[...]` form carries raw SQL in EHRAgent's prompt notation. */
const RAW_BRACKET_CALL = "SQLInterpreter";

export function syntaxError(options: { message: string; line: number; col: number }): WardenError {
  return new WardenError({
    code: "EXTRACTION_FAILED",
    message: `Python syntax error at line ${options.line}, column ${options.col}: ${options.message}`,
    details: { line: options.line, col: options.col },
  });
}

// Character codes the scanner compares against: the hot loop reads `charCodeAt`, never one-character
// substrings or per-character regexes (a check tokenizes every time; this loop is a large part of it).
const C_TAB = 9;
const C_LF = 10;
const C_FF = 12;
const C_SPACE = 32;
const C_BANG = 33;
const C_DQUOTE = 34;
const C_HASH = 35;
const C_PERCENT = 37;
const C_AMP = 38;
const C_SQUOTE = 39;
const C_LPAREN = 40;
const C_RPAREN = 41;
const C_STAR = 42;
const C_PLUS = 43;
const C_COMMA = 44;
const C_MINUS = 45;
const C_DOT = 46;
const C_SLASH = 47;
const C_0 = 48;
const C_9 = 57;
const C_COLON = 58;
const C_SEMI = 59;
const C_LT = 60;
const C_EQ = 61;
const C_GT = 62;
const C_AT = 64;
const C_LBRACKET = 91;
const C_BACKSLASH = 92;
const C_RBRACKET = 93;
const C_CARET = 94;
const C_LBRACE = 123;
const C_PIPE = 124;
const C_RBRACE = 125;
const C_TILDE = 126;

/**
 * Python's keywords (soft keywords excluded; the parser reads `True`, `False` and `None` as names, see
 * CONSTANT_NAMES).
 */
export const PY_KEYWORDS: ReadonlySet<string> = new Set(
  `and as assert async await break class continue def del elif else except finally for from global if
  import in is lambda nonlocal not or pass raise return try while with yield`
    .trim()
    .split(/\s+/),
);

/** The three constants spelled like names. */
const CONSTANT_NAMES: ReadonlySet<string> = new Set(["False", "None", "True"]);

/** ASCII letters, digits and "_" (1 = may start a name, 2 = may only continue one). */
const NAME_CHARS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) NAME_CHARS[c] = 1;
  else if (c >= C_0 && c <= C_9) NAME_CHARS[c] = 2;
}

function isNameStartCode(c: number): boolean {
  return c > 127 || NAME_CHARS[c] === 1;
}

function isDigitCode(c: number): boolean {
  return c >= C_0 && c <= C_9;
}

/** Python number literals; sticky, so it matches at `lastIndex` without slicing the source. */
const NUMBER =
  /0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][+-]?[0-9_]+)?[jJ]?/y;

/**
 * The operator at `pos`, the longest that matches, or null. Operators: `**= //= >>= <<= ... -> := == !=
 * <> <= >= ** // << >> += -= *= /= %= &= |= ^= @= + - * / % @ & | ^ ~ < > ( ) [ ] { } , : ; . = !`.
 * A switch on the character codes rather than trying each operator with `startsWith`.
 */
function operatorAt(src: string, pos: number, c: number): string | null {
  const c1 = src.charCodeAt(pos + 1);
  switch (c) {
    case C_LPAREN:
      return "(";
    case C_RPAREN:
      return ")";
    case C_LBRACKET:
      return "[";
    case C_RBRACKET:
      return "]";
    case C_LBRACE:
      return "{";
    case C_RBRACE:
      return "}";
    case C_COMMA:
      return ",";
    case C_SEMI:
      return ";";
    case C_TILDE:
      return "~";
    case C_DOT:
      return c1 === C_DOT && src.charCodeAt(pos + 2) === C_DOT ? "..." : ".";
    case C_EQ:
      return c1 === C_EQ ? "==" : "=";
    case C_COLON:
      return c1 === C_EQ ? ":=" : ":";
    case C_BANG:
      return c1 === C_EQ ? "!=" : "!";
    case C_MINUS:
      return c1 === C_GT ? "->" : c1 === C_EQ ? "-=" : "-";
    case C_PLUS:
      return c1 === C_EQ ? "+=" : "+";
    case C_PERCENT:
      return c1 === C_EQ ? "%=" : "%";
    case C_AMP:
      return c1 === C_EQ ? "&=" : "&";
    case C_PIPE:
      return c1 === C_EQ ? "|=" : "|";
    case C_CARET:
      return c1 === C_EQ ? "^=" : "^";
    case C_AT:
      return c1 === C_EQ ? "@=" : "@";
    case C_STAR:
      if (c1 === C_STAR) return src.charCodeAt(pos + 2) === C_EQ ? "**=" : "**";
      return c1 === C_EQ ? "*=" : "*";
    case C_SLASH:
      if (c1 === C_SLASH) return src.charCodeAt(pos + 2) === C_EQ ? "//=" : "//";
      return c1 === C_EQ ? "/=" : "/";
    case C_GT:
      if (c1 === C_GT) return src.charCodeAt(pos + 2) === C_EQ ? ">>=" : ">>";
      return c1 === C_EQ ? ">=" : ">";
    case C_LT:
      if (c1 === C_LT) return src.charCodeAt(pos + 2) === C_EQ ? "<<=" : "<<";
      return c1 === C_GT ? "<>" : c1 === C_EQ ? "<=" : "<";
    default:
      return null;
  }
}

/** Turns Python source into tokens; throws a WardenError (EXTRACTION_FAILED) on malformed input. */
export function tokenizePython(options: { source: string }): Token[] {
  const source = options.source;
  const src = source.indexOf("\r") < 0 ? contiguous(source) : source.replace(/\r\n?/g, "\n");
  return new Scanner(src).run();
}

/**
 * The same text, held in one buffer of its own. Code cut out of an agent's output (`output.slice`) is
 * a slice of the output to V8, which reads each character of a slice through the slice's parent: a
 * sixth of the scan's time, every character being read once or twice. Two halves joined make a new
 * string that V8 copies into one buffer at its first read (tens of nanoseconds for a few kilobytes).
 * The characters (UTF-16 code units, surrogate halves included) are exactly those of `text`.
 */
function contiguous(text: string): string {
  const half = text.length >> 1;
  return half === 0 ? text : text.slice(0, half) + text.slice(half);
}

/**
 * The scanning state and its steps. A class rather than closures inside tokenizePython: the closures
 * would be created again for every call, and this runs once per check.
 */
class Scanner {
  private readonly tokens: Token[] = [];
  private readonly indents: number[] = [0];
  private readonly length: number;
  private pos = 0;
  private line = 1;
  private lineStart = 0;
  private depth = 0;
  private atLineStart = true;

  constructor(private readonly src: string) {
    this.length = src.length;
  }

  private col(at: number): number {
    return at - this.lineStart + 1;
  }

  private push(kind: TokenKind, value: string, at: number): void {
    this.tokens.push({ kind, value, line: this.line, col: at - this.lineStart + 1 });
  }

  /** Whether a NEWLINE may follow the last token (not at the start, not after NEWLINE/INDENT/DEDENT). */
  private endsLogicalLine(): boolean {
    const last = this.tokens[this.tokens.length - 1];
    return last !== undefined && last.kind !== "newline" && last.kind !== "indent" && last.kind !== "dedent";
  }

  run(): Token[] {
    const { src, length } = this;
    // `pos` lives in a local while the loop runs and in `this.pos` around the helper methods.
    let pos = this.pos;
    while (pos < length) {
      if (this.atLineStart && this.depth === 0) {
        this.pos = pos;
        const more = this.indentation();
        pos = this.pos;
        if (!more) break;
        continue;
      }
      const c = src.charCodeAt(pos);
      if (c === C_SPACE || c === C_TAB || c === C_FF) {
        pos++;
        continue;
      }
      if (isNameStartCode(c)) {
        pos = this.name(pos);
        continue;
      }
      if (c === C_LF) {
        if (this.depth === 0) {
          if (this.endsLogicalLine()) this.push("newline", "\n", pos);
          this.atLineStart = true;
        }
        pos++;
        this.line++;
        this.lineStart = pos;
        continue;
      }
      if (c === C_SQUOTE || c === C_DQUOTE) {
        pos = this.readString("", pos, pos);
        continue;
      }
      if (c === C_HASH) {
        const end = src.indexOf("\n", pos);
        pos = end < 0 ? length : end;
        continue;
      }
      if (c === C_BACKSLASH) {
        if (src.charCodeAt(pos + 1) === C_LF) {
          pos += 2;
          this.line++;
          this.lineStart = pos;
          continue;
        }
        throw syntaxError({
          message: "unexpected character after line continuation",
          line: this.line,
          col: this.col(pos),
        });
      }
      if (isDigitCode(c) || (c === C_DOT && isDigitCode(src.charCodeAt(pos + 1)))) {
        NUMBER.lastIndex = pos;
        const text = NUMBER.exec(src)?.[0] || src[pos]!;
        this.push("number", text, pos);
        pos += text.length;
        continue;
      }
      const op = operatorAt(src, pos, c);
      if (op === null) {
        throw syntaxError({
          message: `unexpected character ${JSON.stringify(src[pos])}`,
          line: this.line,
          col: this.col(pos),
        });
      }
      if (c === C_LPAREN || c === C_LBRACKET || c === C_LBRACE) this.depth++;
      else if (c === C_RPAREN || c === C_RBRACKET || c === C_RBRACE) this.depth = Math.max(0, this.depth - 1);
      this.push("op", op, pos);
      pos += op.length;
    }
    this.pos = pos;

    if (this.endsLogicalLine()) this.push("newline", "\n", this.pos);
    while (this.indents.length > 1) {
      this.indents.pop();
      this.push("dedent", "", this.pos);
    }
    this.push("eof", "", this.pos);
    return this.tokens;
  }

  /**
   * At the start of a logical line: measures the indentation and emits INDENT/DEDENT tokens, or skips a
   * blank or comment-only line (which does not count). False at the end of the input.
   */
  private indentation(): boolean {
    const { src, length, indents } = this;
    let width = 0;
    let p = this.pos;
    for (; p < length; p++) {
      const c = src.charCodeAt(p);
      if (c === C_SPACE) width++;
      else if (c === C_TAB) width = (Math.floor(width / TAB_SIZE) + 1) * TAB_SIZE;
      else if (c === C_FF) width = 0;
      else break;
    }
    if (p >= length) {
      this.pos = p;
      return false;
    }
    const c = src.charCodeAt(p);
    if (c === C_LF || c === C_HASH || (c === C_BACKSLASH && src.charCodeAt(p + 1) === C_LF)) {
      if (c === C_HASH) {
        const end = src.indexOf("\n", p);
        p = end < 0 ? length : end;
      } else if (c === C_BACKSLASH) {
        p += 1;
      }
      if (p < length) {
        p++;
        this.line++;
        this.lineStart = p;
      }
      this.pos = p;
      return true;
    }
    const current = indents[indents.length - 1]!;
    if (width > current) {
      indents.push(width);
      this.push("indent", "", p);
    } else if (width < current) {
      while (indents.length > 1 && width < indents[indents.length - 1]!) {
        indents.pop();
        this.push("dedent", "", p);
      }
      if (width !== indents[indents.length - 1]) {
        throw syntaxError({
          message: "unindent does not match any outer indentation level",
          line: this.line,
          col: 1,
        });
      }
    }
    this.pos = p;
    this.atLineStart = false;
    return true;
  }

  /**
   * A name as Python reads it: identifiers are NFKC-normalised (PEP 3131), so `ＬｏａｄＤＢ` is `LoadDB`
   * and `ﬁlter` is `filter`. A non-ASCII spelling of a keyword is refused: CPython matches keywords
   * before normalising, and what it then does is not worth modelling.
   */
  private identifier(word: string, pos: number): string {
    const normalized = word.normalize("NFKC");
    if (PY_KEYWORDS.has(normalized) || CONSTANT_NAMES.has(normalized)) {
      throw syntaxError({
        message: `"${word}" is a non-ASCII spelling of the keyword "${normalized}"`,
        line: this.line,
        col: this.col(pos),
      });
    }
    return normalized;
  }

  /** A name, or the prefix of a string literal (`f'...'`, `rb"..."`); returns the position after it. */
  private name(pos: number): number {
    const { src, length } = this;
    let end = pos + 1;
    let ascii = src.charCodeAt(pos) < 128;
    while (end < length) {
      const c = src.charCodeAt(end);
      if (c < 128) {
        if (NAME_CHARS[c] === 0) break;
      } else ascii = false;
      end++;
    }
    const quote = src.charCodeAt(end);
    // Prefixes are at most two letters: longer names are never looked up.
    if ((quote === C_SQUOTE || quote === C_DQUOTE) && end - pos <= 2) {
      const prefix = src.slice(pos, end).toLowerCase();
      if (STRING_PREFIXES.has(prefix)) return this.readString(prefix, pos, end);
    }
    const word = ascii ? src.slice(pos, end) : this.identifier(src.slice(pos, end), pos);
    this.push("name", word, pos);
    // The length test first: a Set lookup would hash every name.
    if (end - pos === RAW_BRACKET_CALL.length && word === RAW_BRACKET_CALL) {
      let p = end;
      while (p < length && (src.charCodeAt(p) === C_SPACE || src.charCodeAt(p) === C_TAB)) p++;
      if (src.charCodeAt(p) === C_LBRACKET) return this.readRawBracket(p);
    }
    return end;
  }

  private readString(prefix: string, start: number, quoteAt: number): number {
    const { src, length } = this;
    const quote = src.charCodeAt(quoteAt);
    const triple = src.charCodeAt(quoteAt + 1) === quote && src.charCodeAt(quoteAt + 2) === quote;
    const delimiterLength = triple ? 3 : 1;
    const startLine = this.line;
    const startCol = this.col(start);
    let p = quoteAt + delimiterLength;
    const bodyStart = p;
    for (;;) {
      if (p >= length) {
        throw syntaxError({ message: "unterminated string literal", line: startLine, col: startCol });
      }
      const c = src.charCodeAt(p);
      if (c === C_BACKSLASH) {
        if (src.charCodeAt(p + 1) === C_LF) {
          this.line++;
          this.lineStart = p + 2;
        }
        p += 2;
        continue;
      }
      if (c === C_LF) {
        if (!triple)
          throw syntaxError({ message: "unterminated string literal", line: startLine, col: startCol });
        this.line++;
        this.lineStart = p + 1;
        p++;
        continue;
      }
      if (c === quote && (!triple || (src.charCodeAt(p + 1) === quote && src.charCodeAt(p + 2) === quote)))
        break;
      p++;
    }
    const body = src.slice(bodyStart, p);
    const value = prefix.includes("f") || prefix.includes("r") ? body : decodePythonEscapes({ body });
    this.tokens.push({ kind: "string", value, line: startLine, col: startCol, prefix, body });
    return p + delimiterLength;
  }

  private readRawBracket(openAt: number): number {
    // Find the matching "]" while skipping quoted SQL strings, then emit `( "<sql>" )`.
    const { src } = this;
    let p = openAt + 1;
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
      throw syntaxError({
        message: "unterminated SQLInterpreter[...] bracket",
        line: this.line,
        col: this.col(openAt),
      });
    }
    let sql = src.slice(openAt + 1, p).trim();
    const quoted = /^(['"])([\s\S]*)\1$/.exec(sql);
    if (quoted && !quoted[2]!.includes(quoted[1]!)) sql = quoted[2]!;
    const startCol = this.col(openAt);
    this.tokens.push({ kind: "op", value: "(", line: this.line, col: startCol });
    this.tokens.push({
      kind: "string",
      value: sql,
      line: this.line,
      col: startCol + 1,
      prefix: "",
      body: sql,
    });
    const newlines = src.slice(openAt, p).split("\n").length - 1;
    if (newlines > 0) {
      this.line += newlines;
      this.lineStart = src.lastIndexOf("\n", p) + 1;
    }
    this.tokens.push({ kind: "op", value: ")", line: this.line, col: this.col(p) });
    return p + 1;
  }
}
