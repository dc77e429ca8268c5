/**
 * Reads a BrowserGym action string such as `click('a12')`, `fill("b3", "Jane")` or
 * `send_msg_to_user('Shall I delete it?')` into a name and arguments, without evaluating anything.
 * BrowserGym runs the string as Python, so it is read as Python reads it:
 * - the name is an identifier, NFKC-normalised as Python normalises identifiers (`ｇｏｔｏ` is `goto`);
 * - arguments are literals: strings with every escape decoded as the EHRAgent tokenizer decodes them
 *   (`decodePythonEscapes`: `\x65`, `\u0065`, `\145`, a backslash at a line's end), `r`/`u`
 *   prefixes, adjacent strings joined (`"ev" "il"`); numbers (hex, octal, binary, underscores,
 *   exponents); `True`/`False`/`None`; lists and tuples of literals; keyword arguments (`url="…"`).
 * Anything else is "not one action call" (null), never an error: an expression, an f-string or bytes,
 * a `\N{…}` escape, a comment, a second call after it. A step's action may just as well be a plain
 * name like "click"; `isCode` tells a plain name from code that could not be read, which the shield
 * must treat as undetermined (step-facts.ts).
 */
import { decodePythonEscapes } from "./python-escapes.js";

export type ActionLiteral = string | number | boolean | null | ActionLiteral[];

export interface ParsedActionCall {
  name: string;
  /** Positional arguments in order. */
  args: ActionLiteral[];
  /** Keyword arguments (`button="left"`), by their NFKC-normalised names. */
  kwargs: Record<string, ActionLiteral>;
}

/** How deep lists of literals may nest. */
const MAX_NESTING = 8;

const IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}\u00b7\u0387\u1369-\u1371\u19da]*/u;
const CALL_NAME = new RegExp(
  `^${IDENTIFIER.source.slice(1)}(?:\\s*\\.\\s*${IDENTIFIER.source.slice(1)})*`,
  "u",
);
const NUMBER =
  /^(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:\d(?:_?\d)*)?\.?\d(?:_?\d)*(?:[eE][-+]?\d(?:_?\d)*)?)(?![\w.])/;

/**
 * Whether a step's action is code rather than a plain action name: a call, several statements, or
 * anything Python would have to parse. A plain name ("click", "browser.click", "mcp:web.fill") is not.
 */
export function isCode(options: { text: string }): boolean {
  return /[()[\]{};=\n\r"'#+]/.test(options.text);
}

interface Cursor {
  text: string;
  at: number;
}

function skipSpace(c: Cursor): void {
  while (c.at < c.text.length && /\s/.test(c.text[c.at] as string)) c.at += 1;
}

/** One string literal (prefix, quotes, body) at the cursor, or undefined when it is not one Warden reads. */
function readOneString(c: Cursor): string | undefined {
  const prefix = /^[rRuUbBfF]{0,2}(?=['"])/.exec(c.text.slice(c.at));
  if (!prefix) return undefined;
  const flags = prefix[0].toLowerCase();
  // Bytes and f-strings (whose {…} are expressions) are not read; u is a no-op; r keeps backslashes.
  if (!["", "r", "u"].includes(flags)) return undefined;
  const raw = flags === "r";
  c.at += prefix[0].length;
  const quote = c.text[c.at] as string;
  const triple = c.text.startsWith(quote.repeat(3), c.at);
  const close = triple ? quote.repeat(3) : quote;
  c.at += close.length;
  const bodyStart = c.at;
  while (c.at < c.text.length) {
    if (c.text.startsWith(close, c.at)) {
      const body = c.text.slice(bodyStart, c.at);
      c.at += close.length;
      // A raw string keeps its backslashes; any other is decoded as the EHRAgent tokenizer decodes,
      // which throws on an escape Python refuses (caught in parseBrowserGymAction: not one call).
      return raw ? body : decodePythonEscapes({ body });
    }
    const ch = c.text[c.at];
    if (!triple && ch === "\n") return undefined;
    // A backslash keeps the next character (a quote, a line break) from ending the string.
    c.at += ch === "\\" ? 2 : 1;
  }
  return undefined;
}

/** A string literal and every literal written right after it (Python joins them), or undefined. */
function readStrings(c: Cursor): string | undefined {
  let out = readOneString(c);
  if (out === undefined) return undefined;
  for (;;) {
    const mark = c.at;
    skipSpace(c);
    if (!/^[rRuUbBfF]{0,2}['"]/.test(c.text.slice(c.at))) {
      c.at = mark;
      return out;
    }
    const next = readOneString(c);
    if (next === undefined) return undefined;
    out += next;
  }
}

function readNumber(c: Cursor): number | undefined {
  const sign = c.text[c.at] === "-" || c.text[c.at] === "+" ? (c.text[c.at] as string) : "";
  const match = NUMBER.exec(c.text.slice(c.at + sign.length));
  if (!match || match[0] === "") return undefined;
  const value = Number(match[0].replaceAll("_", ""));
  if (!Number.isFinite(value)) return undefined;
  c.at += sign.length + match[0].length;
  return sign === "-" ? -value : value;
}

/** A list or tuple of literals at the cursor (its opening bracket included), or undefined. */
function readSequence(c: Cursor, depth: number): ActionLiteral[] | undefined {
  const close = c.text[c.at] === "[" ? "]" : ")";
  c.at += 1;
  const items: ActionLiteral[] = [];
  for (;;) {
    skipSpace(c);
    if (c.text[c.at] === close) {
      c.at += 1;
      return items;
    }
    const item = readLiteral(c, depth + 1);
    if (item === undefined) return undefined;
    items.push(item);
    skipSpace(c);
    if (c.text[c.at] === ",") c.at += 1;
    else if (c.text[c.at] !== close) return undefined;
  }
}

function readLiteral(c: Cursor, depth: number): ActionLiteral | undefined {
  if (depth > MAX_NESTING) return undefined;
  const ch = c.text[c.at];
  if (ch === "[" || ch === "(") return readSequence(c, depth);
  if (/^[rRuUbBfF]{0,2}['"]/.test(c.text.slice(c.at))) return readStrings(c);
  const word = /^(True|False|None|true|false|null)(?![\p{L}\p{N}_])/u.exec(c.text.slice(c.at));
  if (word) {
    c.at += word[1]!.length;
    const w = word[1]!;
    return w === "True" || w === "true" ? true : w === "False" || w === "false" ? false : null;
  }
  return readNumber(c);
}

/** `name=` at the cursor (not `==`): the keyword, NFKC-normalised, with the cursor past `=`. */
function readKeyword(c: Cursor): string | undefined {
  const match = IDENTIFIER.exec(c.text.slice(c.at));
  if (!match) return undefined;
  const after: Cursor = { text: c.text, at: c.at + match[0].length };
  skipSpace(after);
  if (c.text[after.at] !== "=" || c.text[after.at + 1] === "=") return undefined;
  c.at = after.at + 1;
  return match[0].normalize("NFKC");
}

/** The dotted name (NFKC, as Python reads it) and "(" at the cursor, which is left past the "(". */
function readCallHead(c: Cursor): string | undefined {
  skipSpace(c);
  const head = CALL_NAME.exec(c.text.slice(c.at));
  if (!head) return undefined;
  const after: Cursor = { text: c.text, at: c.at + head[0].length };
  skipSpace(after);
  if (c.text[after.at] !== "(") return undefined;
  c.at = after.at + 1;
  return head[0].replace(/\s+/g, "").normalize("NFKC");
}

/**
 * The name code calls first, for its action type even when the rest cannot be read; "" when it does
 * not begin with a call.
 */
export function calledName(options: { text: string }): string {
  return readCallHead({ text: options.text, at: 0 }) ?? "";
}

/** Parses one `name(arg, ...)` call; null when the text is not exactly one such call. */
export function parseBrowserGymAction(options: { text: string }): ParsedActionCall | null {
  try {
    return parseCall({ text: options.text.replace(/\r\n?/g, "\n"), at: 0 });
  } catch {
    // An escape Python refuses, or one Warden does not decode (decodePythonEscapes).
    return null;
  }
}

/** The call at the cursor, which is the whole text (line breaks as "\n", as Python reads source). */
function parseCall(c: Cursor): ParsedActionCall | null {
  const name = readCallHead(c);
  if (name === undefined) return null;
  const args: ActionLiteral[] = [];
  const kwargs: Record<string, ActionLiteral> = {};
  for (;;) {
    skipSpace(c);
    if (c.text[c.at] === ")") {
      c.at += 1;
      skipSpace(c);
      return c.at === c.text.length ? { name, args, kwargs } : null;
    }
    const keyword = readKeyword(c);
    if (keyword !== undefined) skipSpace(c);
    // A positional argument after a keyword one is a SyntaxError in Python.
    else if (Object.keys(kwargs).length > 0) return null;
    const literal = readLiteral(c, 0);
    if (literal === undefined) return null;
    if (keyword === undefined) args.push(literal);
    else if (Object.hasOwn(kwargs, keyword)) return null;
    // defineProperty: a keyword named __proto__ stays an own property.
    else
      Object.defineProperty(kwargs, keyword, {
        value: literal,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    skipSpace(c);
    if (c.text[c.at] === ",") c.at += 1;
    else if (c.text[c.at] !== ")") return null;
  }
}

/**
 * BrowserGym's parameter names of the actions Warden reads (by their canonical type: goto, fill…), so
 * a keyword argument (`goto(url=…)`) lands where a positional one would.
 */
const PARAMETERS: Readonly<Record<string, readonly string[]>> = {
  goto: ["url"],
  send_msg_to_user: ["text"],
  answer: ["text"],
  fill: ["bid", "value"],
  select_option: ["bid", "options"],
  press: ["bid", "key_comb"],
};
/** Other keyword names agents use for the same parameter. */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  url: ["href"],
  text: ["message", "msg", "content", "reason", "answer"],
  value: ["text"],
  options: ["option", "value", "values"],
  key_comb: ["key", "keys"],
};

/**
 * The call's arguments by BrowserGym's parameter names for its action `type` (positional first, then
 * the keyword or an alias of it; undefined when neither was given). An action not listed has none.
 */
export function browserGymArguments(options: {
  type: string;
  call: Pick<ParsedActionCall, "args" | "kwargs">;
}): Record<string, ActionLiteral | undefined> {
  const { call } = options;
  const named: Record<string, ActionLiteral | undefined> = {};
  (PARAMETERS[options.type] ?? []).forEach((name, i) => {
    const keyword = [name, ...(ALIASES[name] ?? [])].find((k) => Object.hasOwn(call.kwargs, k));
    named[name] = call.args[i] ?? (keyword !== undefined ? call.kwargs[keyword] : undefined);
  });
  return named;
}

/** The call a BrowserGym action string runs, as a tool call's name and arguments (browserGymCall). */
export interface BrowserGymCall {
  /** The called name, NFKC (`goto`, `page.goto`). */
  name: string;
  /** The method a dotted name runs (`goto` for `page.goto`); absent for a plain name. */
  method?: string;
  /** Positional arguments as `arg0`…, and by BrowserGym's parameter names, keyword arguments over them. */
  args: Record<string, ActionLiteral>;
}

/**
 * The tool call a BrowserGym action string runs; undefined when the text is not one call Warden reads.
 * A dotted call runs a method (`page.goto(…)` in BrowserGym's python action space): its arguments are
 * the method's, and rules on the method apply to it too (match-tool-rule.ts).
 */
export function browserGymCall(options: { text: string }): BrowserGymCall | undefined {
  const call = parseBrowserGymAction(options);
  if (!call) return undefined;
  const type = call.name.split(".").pop() ?? call.name;
  const positional = Object.fromEntries(call.args.map((value, i) => [`arg${i}`, value]));
  const named = Object.fromEntries(
    Object.entries(browserGymArguments({ type, call })).filter(([, value]) => value !== undefined),
  ) as Record<string, ActionLiteral>;
  // Spreads define own properties, so a keyword named __proto__ stays an argument.
  return {
    name: call.name,
    ...(type !== call.name ? { method: type } : {}),
    args: { ...positional, ...named, ...call.kwargs },
  };
}
