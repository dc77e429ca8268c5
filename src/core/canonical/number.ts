/**
 * The numbers a value names where a condition compares numbers (`lt`, `le`, `gt`, `ge`, or `eq`/`in`
 * against a number), read the way the tool may read them rather than the way Number() does.
 *
 * A JSON number is itself. A text is a number only when it is a plain decimal numeral (`42`, `-3.5`,
 * `1e3`, spaces around it), which JSON, Number(), parseFloat, Python's float and their kin all read alike.
 * Its readings are the text and, where it differs, the integer prefix that parseInt, atoi, Ruby's `to_i`
 * and PHP's `(int)` take (`1e3` is 1 to them, `0.5` is 0); the condition resolves them the strict way.
 *
 * A text that some parser would still read as a number, but not as Number() does, is undetermined: a
 * numeric prefix (`5000abc`, `5000 USD`: parseFloat, parseInt, atoi, `to_i`), digit separators (`5_000`:
 * Python, Ruby), digits of another script (`５０００`, `٥٠٠٠`: Python), a base prefix (`0x1388`), `inf`.
 * Number() reads each as NaN or as something else, and NaN is neither over nor equal to anything, so
 * a cap or a named number would never apply to them. So is a list or an object where one number is
 * compared (`[1, 5000]`, `{"$numberLong": "5000"}`). A text with no number in it at all (`savings`,
 * `acct-42`) is no number to any parser and is left as it is; so are absent values, null and booleans.
 */
import type { Canonical } from "./types.js";

/** What every common number parser reads the same way (after trimming). */
const PLAIN_NUMERAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The start of a number to some parser: a digit of any script, after a sign (ASCII, U+2212, full-width) or point. */
const NUMERIC_START = /^[+\-\u2212\uFF0B\uFF0D]?\.?\p{Nd}/u;

/** Infinity and NaN by name: parseFloat's prefix, and Python's float() of the whole text. */
const NAMED_NUMBER = /^[+-]?Infinity|^[+-]?(?:inf|infinity|nan)$/i;

/** The numeric readings of `value` (see the module header), or undetermined with the reason. */
export function numberReadings(options: { value: unknown }): Canonical<unknown> {
  const { value } = options;
  if (typeof value === "string") return numeralReadings(value);
  if (typeof value === "object" && value !== null) {
    return {
      ok: false,
      reason: `${Array.isArray(value) ? "a list" : "an object"} where a number is compared`,
    };
  }
  return { ok: true, forms: [value] };
}

/** A text's numeric readings: a plain numeral's, undetermined for one parsers read differently. */
function numeralReadings(text: string): Canonical<unknown> {
  const trimmed = text.trim();
  if (PLAIN_NUMERAL.test(trimmed)) {
    const whole = Number(trimmed);
    const integer = Number.parseInt(trimmed, 10);
    return { ok: true, forms: Number.isNaN(integer) || integer === whole ? [text] : [text, integer] };
  }
  if (NUMERIC_START.test(trimmed) || NAMED_NUMBER.test(trimmed)) {
    return {
      ok: false,
      reason: `${JSON.stringify(text.slice(0, 40))} is not a plain number, and parsers read it differently`,
    };
  }
  return { ok: true, forms: [text] };
}
