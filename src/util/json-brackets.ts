/**
 * Balanced-bracket scanning for JSON written inside text (model replies, agent logs).
 *
 * Text from an agent may hold a bracket at every character (200 000 `{`), so finding each candidate's end
 * by scanning from it is quadratic. `bracketEnds` answers `matchingBracketEnd` for every opener in one
 * right-to-left pass: a scan from an opener that meets another opener outside a string jumps to that
 * one's already known end (or fails with it), so it walks only its own top level. Strings read from
 * different openers can disagree (an opener inside a string, `\"` escapes), which in contrived text can
 * still make the walks overlap; a step budget bounds that, and the answer then says it is incomplete.
 */

/**
 * Index just past the bracket that closes the `{` or `[` at `start`, honouring JSON strings and their
 * escapes; -1 when the group is unbalanced or closed by the wrong bracket.
 */
export function matchingBracketEnd(options: { text: string; start: number }): number {
  const { text } = options;
  const stack: string[] = [];
  let inString = false;
  for (let i = options.start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") stack.push("}");
    else if (ch === "[") stack.push("]");
    else if (ch === "}" || ch === "]") {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

export interface BracketEnds {
  /** For each index holding `{` or `[`: what `matchingBracketEnd` answers for it (other indices: 0). */
  ends: Int32Array;
  /** False when the step budget ran out: `ends` is then valid only for openers at or after `from`. */
  complete: boolean;
  /** The leftmost opener whose end is known. */
  from: number;
}

const OPEN = 123; // {
const OPEN_ARRAY = 91; // [
const CLOSE = 125; // }
const CLOSE_ARRAY = 93; // ]
const QUOTE = 34;
const BACKSLASH = 92;

/** The end of the group opened at `start`, given the ends of every opener after it; the steps taken. */
function endFrom(text: string, start: number, ends: Int32Array): { end: number; steps: number } {
  const closer = text.charCodeAt(start) === OPEN ? CLOSE : CLOSE_ARRAY;
  let inString = false;
  let steps = 0;
  for (let i = start + 1; i < text.length; i++) {
    steps++;
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === BACKSLASH) i++;
      else if (ch === QUOTE) inString = false;
      continue;
    }
    if (ch === QUOTE) inString = true;
    else if (ch === OPEN || ch === OPEN_ARRAY) {
      // The nested group evolves exactly as a scan from it would: skip it, or fail with it.
      const end = ends[i]!;
      if (end < 0) return { end: -1, steps };
      i = end - 1;
    } else if (ch === CLOSE || ch === CLOSE_ARRAY) return { end: ch === closer ? i + 1 : -1, steps };
  }
  return { end: -1, steps };
}

/** `matchingBracketEnd` for every opener of the text, within `maxSteps` (default: 8 per character + 100 000). */
export function bracketEnds(options: { text: string; maxSteps?: number }): BracketEnds {
  const { text } = options;
  const ends = new Int32Array(text.length);
  let budget = options.maxSteps ?? 8 * text.length + 100_000;
  let from = text.length;
  for (let i = text.length - 1; i >= 0; i--) {
    const ch = text.charCodeAt(i);
    if (ch !== OPEN && ch !== OPEN_ARRAY) continue;
    const { end, steps } = endFrom(text, i, ends);
    budget -= steps;
    if (budget < 0) return { ends, complete: false, from };
    ends[i] = end;
    from = i;
  }
  return { ends, complete: true, from };
}

/**
 * Whether brackets nest deeper than `limit` in `text[start, end)`, reading strings as JSON does. JSON.parse
 * spends about a microsecond per level and the values it returns are walked and serialised later, so
 * text nested past any real tool call's depth is refused before it is parsed.
 */
export function nestsDeeperThan(options: {
  text: string;
  limit: number;
  start?: number;
  end?: number;
}): boolean {
  const { text, limit } = options;
  const end = options.end ?? text.length;
  let depth = 0;
  let inString = false;
  for (let i = options.start ?? 0; i < end; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === BACKSLASH) i++;
      else if (ch === QUOTE) inString = false;
    } else if (ch === QUOTE) inString = true;
    else if (ch === OPEN || ch === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (ch === CLOSE || ch === CLOSE_ARRAY) depth--;
  }
  return false;
}
