/**
 * The content tests of web-benchmark page checks (`required_contents`): `not_empty`, `exact_match`
 * and `must_include` (every item present; an item may list alternatives as "a |OR| b"). Text is
 * compared the way WebArena-style evaluators do: trimmed, one pair of surrounding quotes dropped,
 * lower-cased. Several tests all have to pass.
 */
import { z } from "zod";

export const RequiredContentsSchema = z
  .object({
    not_empty: z.unknown().optional(),
    exact_match: z.union([z.string(), z.number(), z.boolean()]).optional(),
    must_include: z.array(z.union([z.string(), z.number()])).optional(),
  })
  .refine((r) => "not_empty" in r || r.exact_match !== undefined || r.must_include !== undefined, {
    message: "needs not_empty, exact_match or must_include",
  });
export type RequiredContents = z.output<typeof RequiredContentsSchema>;

export function cleanAnswer(options: { text: string }): string {
  let t = options.text.trim();
  if (t.length >= 2 && ((t.startsWith("'") && t.endsWith("'")) || (t.startsWith('"') && t.endsWith('"')))) {
    t = t.slice(1, -1);
  }
  return t.toLowerCase();
}

/** Alternatives of one must_include item ("a |OR| b", also spelled "|or|"). */
export function splitAlternatives(options: { text: string }): string[] {
  return options.text
    .split(/\s\|or\|\s/i)
    .map((s) => s.trim())
    .filter((s, _i, all) => s !== "" || all.length === 1);
}

export function matchesRequiredContents(options: { text: string; required: RequiredContents }): boolean {
  const { text, required } = options;
  if ("not_empty" in required && text.trim() === "") return false;
  if (required.exact_match !== undefined) {
    if (cleanAnswer({ text }) !== cleanAnswer({ text: String(required.exact_match) })) return false;
  }
  if (required.must_include !== undefined) {
    const pred = cleanAnswer({ text });
    for (const item of required.must_include) {
      const alternatives = splitAlternatives({ text: String(item) });
      if (!alternatives.some((alt) => pred.includes(cleanAnswer({ text: alt })))) return false;
    }
  }
  return true;
}
