/**
 * Python's text formatting, for the values the EHRAgent interpreter knows exactly: `repr` of a string,
 * `format(text, spec)` (the spec of `'{:.9}'.format(...)` and of f-string fields) and printf-style
 * `%s` conversions with flags, width and precision. Column names are often built with these, so the
 * interpreter must compute exactly what CPython computes (`'{:.9}'.format('labresulttime')` is
 * `labresult`). Each function answers null for anything it does not follow exactly (another type code,
 * a character whose printing rules differ between Unicode versions, `*` widths...): the caller then
 * treats the text as unknown, which is safe.
 */

/** Characters CPython's `repr` prints as they are, outside ASCII: letters, marks, numbers, punctuation, symbols. */
const PRINTABLE_NON_ASCII = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** CPython's `repr(text)` (or `ascii(text)` when `ascii`), or null where it is not followed exactly. */
export function pythonStrRepr(options: { text: string; ascii?: boolean }): string | null {
  const { text } = options;
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code < 0x7f) out += ch;
    else if (options.ascii) return null;
    else if (PRINTABLE_NON_ASCII.test(ch)) out += ch;
    else return null;
  }
  return out + quote;
}

/** The number of code points of a string (Python's len). */
function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The first `count` code points of a string. */
function firstCodePoints(text: string, count: number): string {
  let out = "";
  let n = 0;
  for (const ch of text) {
    if (n++ >= count) break;
    out += ch;
  }
  return out;
}

/** Pads `text` to `width` code points with `fill`, aligned left, right or centred as Python does. */
function pad(text: string, width: number, fill: string, align: "<" | ">" | "^"): string {
  const missing = width - codePoints(text);
  if (missing <= 0) return text;
  if (align === "<") return text + fill.repeat(missing);
  if (align === ">") return fill.repeat(missing) + text;
  const left = Math.floor(missing / 2);
  return fill.repeat(left) + text + fill.repeat(missing - left);
}

const STR_SPEC = /^(?:([\s\S])?([<>^]))?(\d+)?(?:\.(\d+))?(s)?$/u;

/** Widths and precisions beyond this are refused (the padding would be built in memory). */
const MAX_WIDTH = 10_000;

/**
 * `format(text, spec)` for a str value: `[[fill]align][width][.precision][s]`. Other specs (sign, `#`,
 * `0`, `=`, grouping, another type) raise or behave differently in CPython: null.
 */
export function formatStrSpec(options: { text: string; spec: string }): string | null {
  const { text, spec } = options;
  if (spec === "") return text;
  const match = STR_SPEC.exec(spec);
  if (!match) return null;
  const [, fill, align, width, precision] = match;
  // A bare leading "0" before the width means zero padding ('{:05}'), outside what is followed here.
  if (width?.startsWith("0") && align === undefined) return null;
  const w = width === undefined ? 0 : Number(width);
  const p = precision === undefined ? null : Number(precision);
  if (w > MAX_WIDTH || (p !== null && p > MAX_WIDTH)) return null;
  const cut = p === null ? text : firstCodePoints(text, p);
  return pad(cut, w, fill ?? " ", (align as "<" | ">" | "^" | undefined) ?? "<");
}

/**
 * One printf-style conversion (`%-10.3s`) applied to a known text (what `%s`, `%r` or `%a` made of the
 * value): flags, width and precision. Only "-" and " "-free flag sets are followed for text; `*`
 * widths and anything else answer null.
 */
export function percentStrConversion(options: {
  text: string;
  flags: string;
  width: string;
  precision: string;
}): string | null {
  const { text, flags, width, precision } = options;
  if (width === "*" || precision === "*") return null;
  if (/[^-#0 +]/.test(flags)) return null;
  const w = width === "" ? 0 : Number(width);
  const p = precision === "" ? null : Number(precision);
  if (w > MAX_WIDTH || (p !== null && p > MAX_WIDTH)) return null;
  // For %s, %r and %a CPython ignores "#", "0", " " and "+"; "-" aligns left.
  const cut = p === null ? text : firstCodePoints(text, p);
  return pad(cut, w, " ", flags.includes("-") ? "<" : ">");
}

/** `%d` / `%i` of a known integer with flags and width (no precision), or null. */
export function percentIntConversion(options: {
  value: number;
  flags: string;
  width: string;
  precision: string;
}): string | null {
  const { value, flags, width, precision } = options;
  if (!Number.isSafeInteger(value) || width === "*" || precision !== "") return null;
  if (/[^-0 +]/.test(flags)) return null;
  const w = width === "" ? 0 : Number(width);
  if (w > MAX_WIDTH) return null;
  const sign = value < 0 ? "-" : flags.includes("+") ? "+" : flags.includes(" ") ? " " : "";
  const digits = String(Math.abs(value));
  if (flags.includes("-")) return pad(sign + digits, w, " ", "<");
  if (flags.includes("0")) return sign + digits.padStart(Math.max(0, w - sign.length), "0");
  return pad(sign + digits, w, " ", ">");
}
