/**
 * Deterministic case order: dataset order without a seed, a seeded shuffle (mulberry32 + Fisher-Yates)
 * with one, so a run with the same seed visits cases in the same order on every machine.
 */
import { createRandom } from "../util/seeded-random.js";

export function seededOrder<T>(options: { items: readonly T[]; seed?: number }): T[] {
  const items = [...options.items];
  if (options.seed === undefined) return items;
  const random = createRandom({ seed: options.seed });
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
