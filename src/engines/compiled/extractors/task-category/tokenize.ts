/**
 * Splits a task into word tokens with what the classifier needs to read them in context: the sentence
 * and clause they sit in, capitalisation (names), quotes (titles) and whether a clause boundary comes
 * right before them (where an imperative verb can start).
 */

export interface Token {
  /** As written, possessive "'s" removed. */
  raw: string;
  /** Lower-case form of `raw`. */
  lower: string;
  /** Position among the word tokens. */
  index: number;
  start: number;
  end: number;
  /** Sentence number: . ! ? ; end a sentence. */
  sentence: number;
  /** A comma, colon, dash or parenthesis comes right before this token (or it starts a sentence). */
  afterBreak: boolean;
  /** Starts with a capital letter. */
  capitalized: boolean;
  /** Inside a quoted span ("..." or '...' or “...”). */
  quoted: boolean;
  /** Written with a possessive "'s" ("my car's brakes"): it qualifies the next noun. */
  possessive: boolean;
}

// Words keep inner apostrophes, ampersands and dots ("don't", "b&b", "u.s", "50.00"); hyphens split.
const PIECE =
  /[A-Za-z0-9]+(?:[&'’.][A-Za-z0-9]+)*|[.!?;]|[,:()\u2013\u2014]|["“”]|(?<![A-Za-z0-9])['‘’]|['‘’](?![A-Za-z0-9])/g;

export function tokenize(options: { text: string }): Token[] {
  const tokens: Token[] = [];
  let sentence = 0;
  let afterBreak = true;
  let quoted = false;
  let openedAt = 0;
  for (const m of options.text.matchAll(PIECE)) {
    const piece = m[0];
    if (/^[.!?;]$/.test(piece)) {
      if (tokens.length > 0 && tokens.at(-1)!.sentence === sentence) sentence++;
      afterBreak = true;
      continue;
    }
    if (/^[,:()\u2013\u2014]$/.test(piece)) {
      afterBreak = true;
      continue;
    }
    if (/^["“”'‘’]$/.test(piece)) {
      quoted = !quoted;
      if (quoted) openedAt = tokens.length;
      continue;
    }
    const raw = piece.replace(/['’]s$/i, "");
    tokens.push({
      raw,
      lower: raw.toLowerCase().replace(/’/g, "'"),
      index: tokens.length,
      start: m.index,
      end: m.index + piece.length,
      sentence,
      afterBreak,
      capitalized: /^[A-Z]/.test(raw),
      quoted,
      possessive: raw !== piece,
    });
    afterBreak = false;
  }
  // A quote that never closes (an apostrophe used as one, say) is not a quotation.
  if (quoted) for (const t of tokens.slice(openedAt)) t.quoted = false;
  return tokens;
}
