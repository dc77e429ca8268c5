/**
 * Finds JSON objects and arrays written inside prose (code fences, `<tool_call>` tags, inline), so tool
 * calls a model wrote as text can be read like structured ones. Bounded: long or brace-heavy text costs
 * a capped number of attempts.
 */

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

/** End index (exclusive) of the balanced bracket group opening at `start`, honouring JSON strings. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") stack.push(ch === "{" ? "}" : "]");
    else if (ch === "}" || ch === "]") {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

export function scanEmbeddedJson(options: { text: string }): EmbeddedJsonScan {
  const { text } = options;
  const values: EmbeddedJson[] = [];
  const unparsed: string[] = [];
  let attempts = 0;
  for (let i = 0; i < text.length && attempts < MAX_ATTEMPTS; i++) {
    const ch = text[i];
    if (ch !== "{" && ch !== "[") continue;
    attempts++;
    const end = balancedEnd(text, i);
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
