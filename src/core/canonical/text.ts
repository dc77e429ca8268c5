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
 *   and `ADMİN` equal to `admin`;
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

/** A compatible text without accents, as an accent-insensitive collation compares it. */
function unaccented(compatibleForm: string): string {
  // Trimmed again: a compatibility form may begin or end with a space that only carried accents ("῭").
  return compatibleForm.normalize("NFD").replace(MARKS, "").normalize("NFC").trim();
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
