/**
 * Lexical similarity of short texts (predicate names and descriptions) without a model: cosine of
 * character-trigram count vectors over a normalised spelling (lower case, `_` and punctuation as
 * spaces, padded so word starts and ends count). Used by the circuit builder's affinity and, when the
 * model offers no embeddings, by the ASPM vagueness score.
 */

export type TrigramVector = ReadonlyMap<string, number>;

/** Lower-cased words of a text joined by single spaces (identifiers split at `_`). */
export function normaliseText(options: { text: string }): string {
  return options.text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/** Trigram counts of the normalised text, with its (unit) Euclidean norm folded in. */
export function trigramVector(options: { text: string }): TrigramVector {
  const t = ` ${normaliseText(options)} `;
  const counts = new Map<string, number>();
  for (let i = 0; i + 3 <= t.length; i += 1) {
    const g = t.slice(i, i + 3);
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  let norm = 0;
  for (const c of counts.values()) norm += c * c;
  norm = Math.sqrt(norm);
  if (norm === 0) return counts;
  for (const [g, c] of counts) counts.set(g, c / norm);
  return counts;
}

/** Cosine of two trigram vectors from `trigramVector` (already unit length): in [0, 1]. */
export function trigramCosine(options: { a: TrigramVector; b: TrigramVector }): number {
  const [small, large] = options.a.size <= options.b.size ? [options.a, options.b] : [options.b, options.a];
  let dot = 0;
  for (const [g, v] of small) {
    const w = large.get(g);
    if (w !== undefined) dot += v * w;
  }
  return Math.min(1, Math.max(0, dot));
}

/** Cosine similarity of two dense vectors (0 when either is zero). */
export function vectorCosine(options: { a: readonly number[]; b: readonly number[] }): number {
  const { a, b } = options;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
