/**
 * Cheap bounds on the Levenshtein distance, used by the retrieval index to skip most exact computations.
 *
 * Lower bound — bag distance: with A(c), B(c) the counts of code unit c in a and b, every edit changes the
 * multiset difference by at most one on each side (a substitution removes one unit and adds one, an
 * insertion or deletion touches one side), so max(sum_c (A-B)+, sum_c (B-A)+) <= lev(a, b). It is never
 * below the length difference (the two sums differ by exactly |a| - |b|).
 *
 * Upper bounds — lev(a, b) = lev(a', b') where a', b' drop the common prefix and suffix, and a', b' can be
 * aligned position by position with the rest inserted or deleted, so
 * lev(a, b) <= max(|a'|, |b'|) <= max(|a|, |b|).
 */

/** Distinct code units of a text with their counts, for bag distances against a dense query count. */
export interface CharProfile {
  codes: Uint16Array;
  counts: Int32Array;
  length: number;
}

export function charProfile(options: { text: string }): CharProfile {
  const { text } = options;
  const counts = new Map<number, number>();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  const codes = new Uint16Array(counts.size);
  const values = new Int32Array(counts.size);
  let i = 0;
  for (const [code, count] of counts) {
    codes[i] = code;
    values[i] = count;
    i++;
  }
  return { codes, counts: values, length: text.length };
}

/** Bag distance of two texts: a lower bound of their Levenshtein distance. */
export function bagDistance(options: { a: string; b: string }): number {
  const { a, b } = options;
  const balance = new Map<number, number>();
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i);
    balance.set(c, (balance.get(c) ?? 0) + 1);
  }
  for (let i = 0; i < b.length; i++) {
    const c = b.charCodeAt(i);
    balance.set(c, (balance.get(c) ?? 0) - 1);
  }
  let aOnly = 0;
  let bOnly = 0;
  for (const v of balance.values()) {
    if (v > 0) aOnly += v;
    else bOnly -= v;
  }
  return Math.max(aOnly, bOnly);
}

/** max(|a'|, |b'|) after removing the common prefix and suffix: an upper bound of the distance. */
export function affixUpperBound(options: { a: string; b: string }): number {
  const { a, b } = options;
  let start = 0;
  const shorter = Math.min(a.length, b.length);
  while (start < shorter && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let end = 0;
  while (end < shorter - start && a.charCodeAt(a.length - 1 - end) === b.charCodeAt(b.length - 1 - end))
    end++;
  return Math.max(a.length, b.length) - start - end;
}
