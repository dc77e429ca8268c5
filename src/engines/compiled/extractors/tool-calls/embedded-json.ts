/**
 * Finds JSON objects and arrays written inside prose (code fences, `<tool_call>` tags, inline), so tool
 * calls a model wrote as text can be read like structured ones. Bounded: long or brace-heavy text costs
 * a capped number of attempts.
 */
import { matchingBracketEnd } from "../../../../util/json-brackets.js";

export interface EmbeddedJson {
  value: unknown;
  start: number;
  end: number;
}

export interface EmbeddedJsonScan {
  values: EmbeddedJson[];
  /** Balanced `{...}` spans that did not parse as JSON (truncated or hand-written calls, for instance). */
  unparsed: string[];
}

const MAX_ATTEMPTS = 2_000;

export function scanEmbeddedJson(options: { text: string }): EmbeddedJsonScan {
  const { text } = options;
  const values: EmbeddedJson[] = [];
  const unparsed: string[] = [];
  let attempts = 0;
  for (let i = 0; i < text.length && attempts < MAX_ATTEMPTS; i++) {
    const ch = text[i];
    if (ch !== "{" && ch !== "[") continue;
    attempts++;
    const end = matchingBracketEnd({ text, start: i });
    if (end === -1) {
      if (ch === "{" && unparsed.length < 20) unparsed.push(text.slice(i, Math.min(text.length, i + 200)));
      continue;
    }
    const slice = text.slice(i, end);
    try {
      values.push({ value: JSON.parse(slice), start: i, end });
      i = end - 1;
    } catch {
      // An outer group that is not JSON may still hold JSON inside: keep scanning from the next char.
      if (ch === "{" && unparsed.length < 20) unparsed.push(slice.slice(0, 200));
    }
  }
  return { values, unparsed };
}
