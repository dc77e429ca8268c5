/**
 * The `fuzzy-text` detector: does the field (a message to the user, an element's text...) mention any
 * of the given terms, tolerating paraphrase and typos? A term counts when it is a substring, when each
 * of its words appears as a word of the text (same stem or within the edit-distance threshold:
 * "deleting the project" mentions "Delete project"), or when a run of whole words of the text is within
 * the threshold of the whole term (never part of a word: "please" does not mention "leads"). Used for consent and error-report messages, whose wording varies.
 */
import { distance } from "fastest-levenshtein";
import { z } from "zod";
import type { Detector } from "./detector.js";
import { parseDetectorParams, readText } from "./detector-params.js";

function normalise(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

function words(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 1 : 1 - distance(a, b) / longest;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  return i;
}

function wordMatches(termWord: string, textWord: string, threshold: number): boolean {
  if (termWord === textWord) return true;
  // Digits must match exactly: "555-0198" is not "555-0199".
  if (/\d/.test(termWord) || /\d/.test(textWord)) return false;
  if (termWord.length >= 5 && textWord.length >= 5) {
    // Same stem ("deleting" / "delete"), but not a shared syllable ("reason" / "reassign").
    const stem = Math.max(5, Math.min(termWord.length, textWord.length) - 2);
    if (commonPrefix(termWord, textWord) >= stem) return true;
  }
  return termWord.length >= 4 && similarity(termWord, textWord) >= threshold;
}

/** Whether `text` mentions `term` (see the module comment); `threshold` in 0..1, default 0.8. */
export function fuzzyContains(options: { text: string; term: string; threshold?: number }): boolean {
  const threshold = options.threshold ?? 0.8;
  const text = normalise(options.text).slice(0, 4000);
  const term = normalise(options.term);
  if (term === "") return false;
  if (text.includes(term)) return true;
  const termWords = words(term);
  const textWords = words(text);
  if (termWords.length > 0 && termWords.every((w) => textWords.some((t) => wordMatches(w, t, threshold)))) {
    return true;
  }
  // Numbers must match exactly ("555-0198" is not "555-0199"); windows are for words only.
  if (term.length < 6 || threshold >= 1 || /\d/.test(term)) return false;
  // Windows of whole words whose length is close to the term's: catches "createproject" or a typo
  // spanning words, without letting part of a word ("lease" in "please") stand for another word.
  const spans = [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => [m.index, m.index + m[0].length] as const);
  for (let i = 0; i < spans.length; i += 1) {
    for (let j = i; j < spans.length; j += 1) {
      const window = text.slice(spans[i]![0], spans[j]![1]);
      if (window.length > term.length * 1.25) break;
      if (window.length >= term.length * 0.75 && similarity(term, window) >= threshold) return true;
    }
  }
  return false;
}

const FuzzyTextParamsSchema = z.looseObject({
  terms: z.array(z.string()).min(1, "list at least one term"),
  threshold: z.number().min(0).max(1).default(0.8),
  /** The field's trimmed text must be at least this long (a one-letter message is no consent). */
  minLength: z.number().int().nonnegative().default(0),
  /** "substring": plain case-insensitive substring test only. */
  mode: z.enum(["fuzzy", "substring"]).default("fuzzy"),
});

export const fuzzyTextDetector: Detector = {
  name: "fuzzy-text",
  description:
    "true when the field (default: text) mentions one of params.terms, tolerating paraphrase and typos",
  detect({ facts, params, field }) {
    const p = parseDetectorParams({ schema: FuzzyTextParamsSchema, params, detector: "fuzzy-text" });
    const text = readText({ facts, field, fallback: "text" });
    if (text === undefined) return false;
    if (text.trim().length < p.minLength) return false;
    if (p.mode === "substring") {
      const lower = text.toLowerCase();
      return p.terms.some((t) => t.trim() !== "" && lower.includes(t.trim().toLowerCase()));
    }
    return p.terms.some((term) => fuzzyContains({ text, term, threshold: p.threshold }));
  },
};
