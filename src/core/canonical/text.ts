/**
 * The spellings under which a tool may read a plain text argument (a name, a role, a branch: a value that
 * is not a path, URL, address or command, which have canonical forms of their own), for the comparisons
 * of texts (`eq`, `in`, `contains`, `startsWith`, `matches`…). A rule that refuses `role eq "admin"` must
 * refuse the same name as the tool reads it:
 * - trimmed: form handling, pydantic's strip option and MySQL's PAD SPACE collations drop the spaces
 *   around it (`"admin "`, `"\tadmin"`, a no-break space);
 * - in compatibility form without invisible characters (NFKC, Default_Ignorable_Code_Point removed, as
 *   NFKC_Casefold does): `ａｄｍｉｎ` is `admin` to Django's user names, and a zero-width space, soft hyphen,
 *   bidi mark or BOM inside a name is dropped by such normalisers and unseen by a human who approves;
 * - without accents: MySQL's default collations (`utf8mb4_0900_ai_ci`, `_general_ci`) compare `ádmin`
 *   and `ADMİN` equal to `admin`, and `utf8mb4_0900_ai_ci` (like Python's `casefold`) reads `jeß` as `jess`;
 * - up to a NUL, where a C string ends (`"admin\0x"`).
 * The text itself is always the first reading, and the condition resolves the readings the strict way (a
 * deny rule applies when some reading applies it; an allow rule needs every reading).
 */

/** Printable ASCII with no space at either end: every reader reads it as it is. */
const PLAIN = /^(?:[\x21-\x7e]|[\x21-\x7e][\x20-\x7e]*[\x21-\x7e])$/;

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

const MARKS = /\p{M}/gu;

/** Whether every reader reads `text` as it is (empty, or plain ASCII without spaces at its ends). */
function isPlain(text: string): boolean {
  return text === "" || PLAIN.test(text);
}

/** The text as a compatibility normaliser reads it: NFKC, without invisible characters, trimmed. */
function compatible(text: string): string {
  return text.normalize("NFKC").replace(IGNORABLE, "").trim();
}

/** The sharp s, small and capital: `ss` to Python's casefold and MySQL's `utf8mb4_0900_ai_ci`. */
const SHARP_S = /[\u00df\u1e9e]/g;

/** A compatible text without accents, as an accent-insensitive collation (or `casefold`) compares it. */
function unaccented(compatibleForm: string): string {
  // Trimmed again: a compatibility form may begin or end with a space that only carried accents ("῭").
  return compatibleForm.normalize("NFD").replace(MARKS, "").normalize("NFC").replace(SHARP_S, "ss").trim();
}

/**
 * The text in compatibility form (NFKC, without invisible characters, trimmed): what a person or a tool
 * reads in it. Detectors of what must not leak (personal data, credentials) read it beside the text, so
 * `４１１１…` or a card number broken by zero-width spaces is still a card number.
 */
export function compatibleText(options: { text: string }): string {
  const { text } = options;
  return isPlain(text) ? text : compatible(text);
}

/** One reading per reader, in the order of the module header's list. */
type ReadersReadings = readonly [trimmed: string, compatible: string, unaccented: string, beforeNul: string];
const READERS: ReadersReadings["length"] = 4;

/**
 * Each kind of tool's reading of a text that is not plain (see the module header), in one order:
 * trimmed, compatible, without accents, and up to a NUL (compatible and without accents). The
 * compatibility form is worked out once and the readings without accents derived from it.
 */
function readersReadings(text: string): ReadersReadings {
  const form = compatible(text);
  const bare = unaccented(form);
  const nul = text.indexOf("\u0000");
  return [text.trim(), form, bare, nul === -1 ? bare : unaccented(compatible(text.slice(0, nul)))];
}

/** Each reader's reading of a text, the text itself first, without repeats. */
export function textReadings(options: { text: string }): string[] {
  const { text } = options;
  if (isPlain(text)) return [text];
  const readings = [text];
  for (const reading of readersReadings(text)) {
    if (!readings.includes(reading)) readings.push(reading);
  }
  return readings;
}

/**
 * A list's readings for `contains`: the list itself, then the list with each of its texts as one reader
 * reads it; the list alone when every text in it is plain.
 */
export function listReadings(options: { list: readonly unknown[] }): unknown[] {
  const { list } = options;
  if (list.every((item) => typeof item !== "string" || isPlain(item))) return [list];
  const perItem = list.map((item) => (typeof item === "string" ? readersReadings(item) : undefined));
  const readings: unknown[] = [list];
  for (let reader = 0; reader < READERS; reader++) {
    readings.push(list.map((item, i) => perItem[i]?.[reader] ?? item));
  }
  return readings;
}

/** Texts joined as a tool joins the items of a list it reads as one text: lines, words, or run together. */
const JOINERS = ["\n", " ", ""] as const;

/**
 * The texts a tool may make of a list or an object it reads as one text, for `containsAny` /
 * `containsAll`: its JSON text (as it was searched before), and its leaves (keys, and strings, numbers
 * and truth values, in document order) joined as lines, as words and run together. In the JSON text a
 * quote, a backslash or a newline inside an item is escaped, so `["DROP TABLE \"users\""]` did not
 * contain `DROP TABLE "users"`; and words split over items (`["shutdown", "now"]`) are whole only once
 * the items are joined, as a shell joins its arguments. A value JSON cannot write (a cycle, a BigInt,
 * nesting deeper than the JSON writer goes) has no such texts: why is said instead.
 */
export function joinedTexts(options: {
  value: object;
}): { ok: true; texts: string[] } | { ok: false; reason: string } {
  let json: string;
  try {
    json = JSON.stringify(options.value);
  } catch (error) {
    return { ok: false, reason: `a value that cannot be read as text (${(error as Error).message})` };
  }
  const leaves: string[] = [];
  // Without recursion, though JSON could write it: the walk goes as deep as the value does.
  const pending: unknown[] = [options.value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string") leaves.push(item);
    else if (typeof item === "number" || typeof item === "boolean") leaves.push(String(item));
    else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push(item[i]);
    } else if (typeof item === "object" && item !== null) {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, value] = entries[i] as [string, unknown];
        pending.push(value, key);
      }
    }
  }
  const texts = [json];
  for (const joiner of JOINERS) {
    const text = leaves.join(joiner);
    if (!texts.includes(text)) texts.push(text);
  }
  return { ok: true, texts };
}
