/**
 * Splits an LTLf formula into tokens. A "word" is a maximal run of letters, digits and '_': an
 * all-lower-case word is an atom (or the constant `true`/`false`); an all-upper-case word is a run of
 * operator keywords read greedily (`WX` is one keyword, so `GF` = `G F`, `XWX` = `X WX`); any other
 * word is an error. So an operator must be separated from a following atom by a space or a
 * parenthesis (`X p`, `X(p)`, `G!p`): `Xp` is rejected with a hint rather than silently read, which
 * also catches camelCase predicate names such as `isPrivate`.
 */
import { ltlParseError } from "./parse-error.js";

export type LtlTokenKind = "atom" | "const" | "unary" | "binary" | "lparen" | "rparen" | "eof";

export interface LtlToken {
  kind: LtlTokenKind;
  /** The token's text; for keywords the operator itself ("WX", "->"). */
  text: string;
  /** 0-based offset of its first character. */
  offset: number;
}

const UNARY_KEYWORDS = new Set(["X", "WX", "G", "F", "Y", "O", "H"]);
const BINARY_KEYWORDS = new Set(["U", "R", "S"]);
const KEYWORD_LIST = "X WX G F U R Y O H S";

const WORD = /[A-Za-z0-9_]+/y;
const LOWER_WORD = /^[a-z_][a-z0-9_]*$/;
const UPPER_WORD = /^[A-Z]+$/;
const OPERATOR_PREFIX = /^(?:WX|[XGFURSYOH])+(?=[a-z_])/;

/** Misspellings of the symbolic operators, answered with the right spelling. */
const SYMBOL_HINTS: ReadonlyArray<[string, string]> = [
  ["<=>", "equivalence is written '<->'"],
  ["=>", "implication is written '->'"],
  ["&&", "conjunction is written '&'"],
  ["||", "disjunction is written '|'"],
  ["~", "negation is written '!'"],
  ["¬", "negation is written '!'"],
  ["∧", "conjunction is written '&'"],
  ["∨", "disjunction is written '|'"],
  ["→", "implication is written '->'"],
  ["-", "implication is written '->'"],
  ["<", "equivalence is written '<->'"],
  ["=", "equivalence is written '<->'"],
  ["^", "exclusive or is not an operator; write '!(a <-> b)'"],
];

function describeChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return code < 32 || code === 127 ? `U+${code.toString(16).toUpperCase().padStart(4, "0")}` : `'${ch}'`;
}

function classifyUpper(options: { source: string; word: string; offset: number; tokens: LtlToken[] }): void {
  const { source, word, offset, tokens } = options;
  if (word === "TRUE" || word === "FALSE") {
    throw ltlParseError({
      source,
      offset,
      reason: `unknown operator '${word}' (the constants are written 'true' and 'false')`,
    });
  }
  let i = 0;
  while (i < word.length) {
    const two = word.slice(i, i + 2);
    const one = word[i] as string;
    if (two === "WX") {
      tokens.push({ kind: "unary", text: "WX", offset: offset + i });
      i += 2;
    } else if (UNARY_KEYWORDS.has(one)) {
      tokens.push({ kind: "unary", text: one, offset: offset + i });
      i += 1;
    } else if (BINARY_KEYWORDS.has(one)) {
      tokens.push({ kind: "binary", text: one, offset: offset + i });
      i += 1;
    } else {
      const hint =
        one === "W"
          ? " (weak next is 'WX'; weak until is not an operator: write 'a W b' as 'a U b | G a')"
          : one === "M"
            ? " (strong release is not an operator: write 'a M b' as 'a R b & F a')"
            : ` (the operators are ${KEYWORD_LIST})`;
      throw ltlParseError({ source, offset: offset + i, reason: `unknown operator '${one}'${hint}` });
    }
  }
}

function classifyWord(options: { source: string; word: string; offset: number; tokens: LtlToken[] }): void {
  const { source, word, offset, tokens } = options;
  if (LOWER_WORD.test(word)) {
    const kind = word === "true" || word === "false" ? "const" : "atom";
    tokens.push({ kind, text: word, offset });
    return;
  }
  if (UPPER_WORD.test(word)) {
    classifyUpper(options);
    return;
  }
  if (/^[0-9]/.test(word)) {
    throw ltlParseError({
      source,
      offset,
      reason: `'${word}' is not an atom: atoms start with a lower-case letter or '_'`,
    });
  }
  if (/^(true|false)$/i.test(word)) {
    throw ltlParseError({
      source,
      offset,
      reason: `'${word}' is not an atom (the constants are written 'true' and 'false')`,
    });
  }
  const prefix = OPERATOR_PREFIX.exec(word)?.[0];
  const rest = prefix === undefined ? "" : word.slice(prefix.length);
  if (prefix !== undefined && LOWER_WORD.test(rest)) {
    throw ltlParseError({
      source,
      offset,
      reason: `'${word}' is neither an atom nor an operator: separate the operator from its argument, e.g. '${prefix} ${rest}' or '${prefix}(${rest})'`,
    });
  }
  throw ltlParseError({
    source,
    offset,
    reason: `'${word}' is not an atom: atoms are lower-case identifiers [a-z_][a-z0-9_]*`,
  });
}

export function tokenize(options: { source: string }): LtlToken[] {
  const { source } = options;
  const tokens: LtlToken[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i] as string;
    if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") {
      i++;
      continue;
    }
    WORD.lastIndex = i;
    const word = WORD.exec(source)?.[0];
    if (word !== undefined) {
      classifyWord({ source, word, offset: i, tokens });
      i += word.length;
      continue;
    }
    if (source.startsWith("<->", i)) {
      tokens.push({ kind: "binary", text: "<->", offset: i });
      i += 3;
      continue;
    }
    if (source.startsWith("->", i)) {
      tokens.push({ kind: "binary", text: "->", offset: i });
      i += 2;
      continue;
    }
    const hint = SYMBOL_HINTS.find(([bad]) => source.startsWith(bad, i));
    if (hint !== undefined) {
      throw ltlParseError({ source, offset: i, reason: `unexpected '${hint[0]}': ${hint[1]}` });
    }
    if (ch === "!") tokens.push({ kind: "unary", text: "!", offset: i });
    else if (ch === "&" || ch === "|") tokens.push({ kind: "binary", text: ch, offset: i });
    else if (ch === "(") tokens.push({ kind: "lparen", text: ch, offset: i });
    else if (ch === ")") tokens.push({ kind: "rparen", text: ch, offset: i });
    else {
      const cp = source.codePointAt(i) ?? 0;
      throw ltlParseError({
        source,
        offset: i,
        reason: `unexpected character ${describeChar(String.fromCodePoint(cp))}`,
      });
    }
    i++;
  }
  tokens.push({ kind: "eof", text: "", offset: source.length });
  return tokens;
}
