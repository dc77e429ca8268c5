/**
 * Deterministic case order: dataset order without a seed, a seeded shuffle (mulberry32 + Fisher-Yates)
 * with one, so a run with the same seed visits cases in the same order on every machine.
 */

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seededOrder<T>(options: { items: readonly T[]; seed?: number }): T[] {
  const items = [...options.items];
  if (options.seed === undefined) return items;
  const random = mulberry32(options.seed);
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
