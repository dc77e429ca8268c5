/**
 * Finds JSON objects and arrays written inside prose (code fences, `<tool_call>` tags, inline), so tool
 * calls a model wrote as text can be read like structured ones. Bounded: the candidates' ends are found
 * in one pass (util/json-brackets.ts), and the number of candidates and the text handed to JSON.parse are
 * capped; a scan that hits a cap says so (`truncated`), so a caller does not take a partial read as whole.
 */
import { bracketEnds, nestsDeeperThan } from "../../../../util/json-brackets.js";

export interface EmbeddedJson {
  value: unknown;
  start: number;
  end: number;
}

export interface EmbeddedJsonScan {
  values: EmbeddedJson[];
  /** True when a bound stopped the scan before the end of the text: calls may have been missed. */
  truncated?: boolean;
}

const MAX_ATTEMPTS = 2_000;
/** Deeper JSON is no tool call a model wrote; it is skipped and the scan reported as truncated. */
export const MAX_EMBEDDED_DEPTH = 128;

export function scanEmbeddedJson(options: { text: string }): EmbeddedJsonScan {
  const { text } = options;
  const values: EmbeddedJson[] = [];
  const { ends, complete, from } = bracketEnds({ text });
  // Nested candidates that fail to parse are parsed again from each inner bracket: cap the total text.
  let parseBudget = 4 * text.length + 1_000_000;
  let attempts = 0;
  let tooDeep = false;
  let i = complete ? 0 : from;
  for (; i < text.length && attempts < MAX_ATTEMPTS && parseBudget > 0; i++) {
    const ch = text[i];
    if (ch !== "{" && ch !== "[") continue;
    attempts++;
    const end = ends[i]!;
    if (end === -1) continue;
    parseBudget -= end - i;
    if (nestsDeeperThan({ text, start: i, end, limit: MAX_EMBEDDED_DEPTH })) {
      tooDeep = true;
      i = end - 1;
      continue;
    }
    const slice = text.slice(i, end);
    try {
      values.push({ value: JSON.parse(slice), start: i, end });
      i = end - 1;
    } catch {
      // An outer group that is not JSON may still hold JSON inside: keep scanning from the next char.
    }
  }
  const truncated = tooDeep || !complete || (i < text.length && /[[{]/.test(text.slice(i)));
  return { values, ...(truncated ? { truncated } : {}) };
}
