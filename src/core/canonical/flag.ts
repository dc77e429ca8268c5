/**
 * The truth values a value has where a condition compares it with a boolean (`eq`/`in` against true or
 * false), read the way tools read flags: JavaScript's `if` (every non-empty text, every object and list
 * is true), Python's `bool`, and the word lists of pydantic, YAML 1.1 and command-line parsers (`no`,
 * `off`, `0`, `false` are false to them). A rule that refuses `force eq true` must refuse `1`, `"yes"`,
 * `"on"`, and `"false"` too, which `if (force)` reads as true.
 *
 * Booleans, absent values and null are themselves. Any other value's readings are the value itself first
 * (so a text `"true"` still equals true, as it always did) and then each truth value some reader gives it;
 * the condition resolves them the strict way (a deny rule applies when some reading applies it).
 */

/** Texts that a word-list reader (pydantic, YAML 1.1, CLI flags) reads as false; `if` reads them as true. */
const FALSE_WORDS = new Set(["false", "0", "no", "off", "n", "f"]);

/** The readings of `value` where a boolean is compared (see the module header). */
export function flagReadings(options: { value: unknown }): unknown[] {
  const { value } = options;
  if (value === undefined || value === null || typeof value === "boolean") return [value];
  if (typeof value === "number") return [value, value !== 0 && !Number.isNaN(value)];
  if (typeof value === "string") {
    if (value === "") return [value, false];
    return FALSE_WORDS.has(value.trim().toLowerCase()) ? [value, false, true] : [value, true];
  }
  if (typeof value !== "object") return [value, true];
  // An object or a list is true to JavaScript, and to Python unless it is empty.
  const empty = Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
  return empty ? [value, false, true] : [value, true];
}
