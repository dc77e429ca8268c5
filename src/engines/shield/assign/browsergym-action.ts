/**
 * Reads a BrowserGym action string such as `click('a12')`, `fill("b3", "Jane")` or
 * `send_msg_to_user('Shall I delete it?')` into a name and arguments, without evaluating anything:
 * the arguments are Python-style string and number literals (plus `True`/`False`/`None` and keyword
 * arguments), read by a small tokenizer. Anything else is "not an action call" (null), never an error,
 * because a step's action may just as well be a plain name like "click".
 */

export interface ParsedActionCall {
  name: string;
  /** Positional arguments in order. */
  args: Array<string | number | boolean | null>;
  /** Keyword arguments (`button="left"`). */
  kwargs: Record<string, string | number | boolean | null>;
}

type Literal = string | number | boolean | null;

const CALL_HEAD = /^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\(/;

function readString(text: string, start: number): { value: string; end: number } | null {
  const quote = text[start];
  let i = start + 1;
  // Python's triple-quoted strings appear in model output for long messages.
  const triple = text.startsWith(quote!.repeat(3), start);
  if (triple) i = start + 3;
  let out = "";
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "\\" && i + 1 < text.length) {
      const next = text[i + 1]!;
      const escapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"' };
      out += escapes[next] ?? `\\${next}`;
      i += 2;
      continue;
    }
    if (triple ? text.startsWith(quote!.repeat(3), i) : ch === quote) {
      return { value: out, end: i + (triple ? 3 : 1) };
    }
    out += ch;
    i += 1;
  }
  return null;
}

function readLiteral(text: string, start: number): { value: Literal; end: number } | null {
  const ch = text[start];
  if (ch === "'" || ch === '"') return readString(text, start);
  const rest = text.slice(start);
  const number = /^-?\d+(?:\.\d+)?/.exec(rest);
  if (number) return { value: Number(number[0]), end: start + number[0].length };
  const word = /^(True|False|None|true|false|null)\b/.exec(rest);
  if (word) {
    const w = word[1]!;
    const value = w === "True" || w === "true" ? true : w === "False" || w === "false" ? false : null;
    return { value, end: start + w.length };
  }
  return null;
}

function skipSpace(text: string, i: number): number {
  let j = i;
  while (j < text.length && /\s/.test(text[j]!)) j += 1;
  return j;
}

/** Parses one `name(arg, ...)` call; null when the text is not exactly one such call. */
export function parseBrowserGymAction(options: { text: string }): ParsedActionCall | null {
  const { text } = options;
  const head = CALL_HEAD.exec(text);
  if (!head) return null;
  const name = head[1]!;
  const args: Literal[] = [];
  const kwargs: Record<string, Literal> = {};
  let i = skipSpace(text, head[0].length);
  if (text[i] === ")") return skipSpace(text, i + 1) === text.length ? { name, args, kwargs } : null;
  while (i < text.length) {
    i = skipSpace(text, i);
    const key = /^([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)/.exec(text.slice(i));
    let keyword: string | undefined;
    if (key) {
      keyword = key[1]!;
      i = skipSpace(text, i + key[0].length);
    }
    const literal = readLiteral(text, i);
    if (!literal) return null;
    if (keyword === undefined) args.push(literal.value);
    else kwargs[keyword] = literal.value;
    i = skipSpace(text, literal.end);
    if (text[i] === ",") {
      i = skipSpace(text, i + 1);
      // A trailing comma before the closing parenthesis is valid Python.
      if (text[i] === ")") return skipSpace(text, i + 1) === text.length ? { name, args, kwargs } : null;
      continue;
    }
    if (text[i] === ")") return skipSpace(text, i + 1) === text.length ? { name, args, kwargs } : null;
    return null;
  }
  return null;
}
