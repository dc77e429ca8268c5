/**
 * The one deterministic PRNG (mulberry32) and string hash (FNV-1a) of Warden: seeded sampling in the
 * shield, seeded benchmark order, generated suites and synthetic data all draw from here, so a seed means
 * the same thing everywhere.
 */

export function createRandom(options: { seed: number }): () => number {
  let a = options.seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a over the text, mixed with a numeric seed. */
export function hashSeed(options: { text: string; seed?: number }): number {
  let h = (2166136261 ^ (options.seed ?? 0)) >>> 0;
  for (let i = 0; i < options.text.length; i += 1) {
    h ^= options.text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}
