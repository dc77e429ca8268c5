/**
 * Exact, fast top-k retrieval over demonstrations: returns exactly what the exhaustive scan in retrieval.ts
 * returns (same items, same order, same distances) while computing few exact distances.
 *
 * "most": every item gets a cheap lower bound (bag distance of the inputs + bag distance of the outputs,
 * see distance-bounds.ts); items are visited in increasing bound (ties in retrieval tie-break order) and
 * the exact distance is computed with a thresholded Levenshtein (bounded-levenshtein.ts) that gives up
 * beyond the current k-th best distance T. The scan stops at the first item whose bound exceeds T (or
 * equals T and loses the tie-break): no later item can enter the top k.
 *
 * "least" (the paper's ablation) is the mirror image with upper bounds (the longer input + the longer
 * output), visited in decreasing bound; exact distances there are computed in full, so it is slower, and
 * when the query is longer than most items no bound prunes and it costs about one exhaustive scan.
 *
 * Items are identified by (seq, id), assumed unique (the stores guarantee it).
 */

import { createLevenshteinPattern, type LevenshteinPattern } from "./bounded-levenshtein.js";
import { charProfile } from "./distance-bounds.js";
import {
  compareHits,
  compareTieBreak,
  parseRetrievalQuery,
  type RetrievalHit,
  type RetrievalItem,
  type RetrievalOrder,
} from "./retrieval.js";

export interface RetrievalQueryStats {
  /** Items in the index when the query ran. */
  items: number;
  /** Items whose exact distance was (at least partly) computed. */
  exactComputations: number;
}

export interface RetrievalIndex<T extends RetrievalItem> {
  readonly size: number;
  add(options: { items: readonly T[] }): void;
  query(options: { input: string; output: string; k: number; order: RetrievalOrder }): RetrievalHit<T>[];
  /** Work done by the last query (for benchmarks and tests). */
  lastQueryStats(): RetrievalQueryStats;
}

export function createRetrievalIndex<T extends RetrievalItem>(options: {
  items?: readonly T[];
}): RetrievalIndex<T> {
  const items: T[] = [];
  const inLength = new GrowableInt32();
  const outLength = new GrowableInt32();
  // Character profiles of all inputs / outputs, flattened: item i owns [start[i], start[i + 1]).
  const inCodes = new GrowableUint16();
  const inCounts = new GrowableInt32();
  const inStart = new GrowableInt32([0]);
  const outCodes = new GrowableUint16();
  const outCounts = new GrowableInt32();
  const outStart = new GrowableInt32([0]);
  // Code units seen in any item, numbered densely, so a query's counts fit a small array (in cache).
  const alphabet = new Map<number, number>();
  // Item indices in tie-break order (seq, then id); appends in increasing seq keep it sorted for free.
  let tieOrder: number[] = [];
  let tieOrderSorted = true;
  let stats: RetrievalQueryStats = { items: 0, exactComputations: 0 };

  const add = (batch: readonly T[]): void => {
    for (const item of batch) {
      const index = items.length;
      const last = items[index - 1];
      if (last !== undefined && compareTieBreak(last, item) > 0) tieOrderSorted = false;
      items.push(item);
      tieOrder.push(index);
      inLength.push(item.input.length);
      outLength.push(item.output.length);
      const pin = charProfile({ text: item.input });
      inCodes.pushAll(toSymbols(pin.codes, alphabet));
      inCounts.pushAll(pin.counts);
      inStart.push(inCodes.length);
      const pout = charProfile({ text: item.output });
      outCodes.pushAll(toSymbols(pout.codes, alphabet));
      outCounts.pushAll(pout.counts);
      outStart.push(outCodes.length);
    }
  };

  const orderedByTie = (): number[] => {
    if (!tieOrderSorted) {
      tieOrder = items.map((_, i) => i);
      tieOrder.sort((a, b) => compareTieBreak(items[a] as T, items[b] as T) || a - b);
      tieOrderSorted = true;
    }
    return tieOrder;
  };

  if (options.items) add(options.items);

  const query = (raw: {
    input: string;
    output: string;
    k: number;
    order: RetrievalOrder;
  }): RetrievalHit<T>[] => {
    const q = parseRetrievalQuery({ query: raw });
    const n = items.length;
    stats = { items: n, exactComputations: 0 };
    if (q.k === 0 || n === 0) return [];
    const patIn = createLevenshteinPattern({ text: q.input });
    const patOut = createLevenshteinPattern({ text: q.output });

    if (q.k >= n) {
      // Everything is returned: nothing to prune.
      stats.exactComputations = n;
      const all = items.map((item) => ({
        item,
        distance:
          patIn.distance({ text: item.input, max: Number.POSITIVE_INFINITY }) +
          patOut.distance({ text: item.output, max: Number.POSITIVE_INFINITY }),
      }));
      return all.sort(compareHits({ order: q.order }));
    }
    return q.order === "most"
      ? queryMost(q.input, q.output, q.k, patIn, patOut)
      : queryLeast(q.input.length, q.output.length, q.k, patIn, patOut);
  };

  const queryMost = (
    input: string,
    output: string,
    k: number,
    patIn: LevenshteinPattern,
    patOut: LevenshteinPattern,
  ): RetrievalHit<T>[] => {
    const n = items.length;
    // Bag distance (distance-bounds.ts) of every item's input and output to the query's: one pass over
    // each item's distinct symbols sums the item-side excess; the query-side excess follows from lengths.
    const denseIn = symbolCounts(input, alphabet);
    const denseOut = symbolCounts(output, alphabet);
    const lbIn = new Int32Array(n);
    const lbOut = new Int32Array(n);
    const lb = new Int32Array(n);
    let maxBound = 0;
    const inS = inStart.view();
    const outS = outStart.view();
    const inC = inCodes.view();
    const inN = inCounts.view();
    const outC = outCodes.view();
    const outN = outCounts.view();
    const inL = inLength.view();
    const outL = outLength.view();
    const qIn = input.length;
    const qOut = output.length;
    for (let i = 0; i < n; i++) {
      let excess = 0;
      for (let x = inS[i] as number, end = inS[i + 1] as number; x < end; x++) {
        const e = (inN[x] as number) - (denseIn[inC[x] as number] as number);
        excess += e & ~(e >> 31); // max(e, 0) without a hard-to-predict branch
      }
      let other = excess + qIn - (inL[i] as number);
      const a = Math.max(other, excess);
      excess = 0;
      for (let x = outS[i] as number, end = outS[i + 1] as number; x < end; x++) {
        const e = (outN[x] as number) - (denseOut[outC[x] as number] as number);
        excess += e & ~(e >> 31);
      }
      other = excess + qOut - (outL[i] as number);
      const b = Math.max(other, excess);
      lbIn[i] = a;
      lbOut[i] = b;
      lb[i] = a + b;
      if (a + b > maxBound) maxBound = a + b;
    }
    const order = countingSort(orderedByTie(), lb, maxBound, false);

    const top = new TopK<T>(k, "most");
    let exact = 0;
    for (const i of order) {
      const item = items[i] as T;
      const bound = lb[i] as number;
      if (top.full) {
        const worst = top.worst();
        if (bound > worst.distance) break;
        if (bound === worst.distance && compareTieBreak(item, worst.item) > 0) break;
        const threshold = worst.distance;
        exact++;
        const maxIn = threshold - (lbOut[i] as number);
        const dIn = patIn.distance({ text: item.input, max: maxIn });
        if (dIn > maxIn) continue;
        const maxOut = threshold - dIn;
        const dOut = patOut.distance({ text: item.output, max: maxOut });
        if (dOut > maxOut) continue;
        top.offer(item, dIn + dOut);
      } else {
        // Filling the first k: grow the allowed distance geometrically from the bound, so a near item costs
        // a narrow band and a far one at most a constant factor over one full computation.
        exact++;
        top.offer(
          item,
          exactByDoubling(patIn, item.input, lbIn[i] as number) +
            exactByDoubling(patOut, item.output, lbOut[i] as number),
        );
      }
    }
    stats.exactComputations = exact;
    return top.hits();
  };

  const queryLeast = (
    inputLength: number,
    outputLength: number,
    k: number,
    patIn: LevenshteinPattern,
    patOut: LevenshteinPattern,
  ): RetrievalHit<T>[] => {
    const n = items.length;
    const ubIn = new Int32Array(n);
    const ub = new Int32Array(n);
    let maxBound = 0;
    const inL = inLength.view();
    const outL = outLength.view();
    for (let i = 0; i < n; i++) {
      const a = Math.max(inL[i] as number, inputLength);
      const b = Math.max(outL[i] as number, outputLength);
      ubIn[i] = a;
      ub[i] = a + b;
      if (a + b > maxBound) maxBound = a + b;
    }
    const order = countingSort(orderedByTie(), ub, maxBound, true);

    const top = new TopK<T>(k, "least");
    let exact = 0;
    for (const i of order) {
      const item = items[i] as T;
      const bound = ub[i] as number;
      if (top.full) {
        const worst = top.worst();
        if (bound < worst.distance) break;
        if (bound === worst.distance && compareTieBreak(item, worst.item) > 0) break;
      }
      exact++;
      const dOut = patOut.distance({ text: item.output, max: Number.POSITIVE_INFINITY });
      if (top.full && dOut + (ubIn[i] as number) < top.worst().distance) continue;
      const dIn = patIn.distance({ text: item.input, max: Number.POSITIVE_INFINITY });
      top.offer(item, dIn + dOut);
    }
    stats.exactComputations = exact;
    return top.hits();
  };

  return {
    get size() {
      return items.length;
    },
    add: ({ items: batch }) => add(batch),
    query,
    lastQueryStats: () => ({ ...stats }),
  };
}

function toSymbols(codes: Uint16Array, alphabet: Map<number, number>): Uint16Array {
  const out = new Uint16Array(codes.length);
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] as number;
    let symbol = alphabet.get(code);
    if (symbol === undefined) {
      symbol = alphabet.size;
      alphabet.set(code, symbol);
    }
    out[i] = symbol;
  }
  return out;
}

/** Counts of the query's code units by symbol; units no item contains cannot affect the item-side sum. */
function symbolCounts(text: string, alphabet: Map<number, number>): Int32Array {
  const counts = new Int32Array(alphabet.size);
  for (let i = 0; i < text.length; i++) {
    const symbol = alphabet.get(text.charCodeAt(i));
    if (symbol !== undefined) counts[symbol] = (counts[symbol] as number) + 1;
  }
  return counts;
}

function exactByDoubling(pattern: LevenshteinPattern, text: string, lowerBound: number): number {
  let max = Math.max(64, 2 * lowerBound);
  for (;;) {
    const d = pattern.distance({ text, max });
    if (d <= max) return d;
    max *= 4;
  }
}

/**
 * Stable counting sort of `indices` by `keys` (small non-negative integers): ascending, or descending when
 * `descending`. Stability keeps the tie-break order the indices arrive in.
 */
function countingSort(
  indices: readonly number[],
  keys: Int32Array,
  maxKey: number,
  descending: boolean,
): Int32Array {
  const buckets = new Int32Array(maxKey + 2);
  for (const i of indices) {
    const key = keys[i] as number;
    const slot = descending ? maxKey - key : key;
    buckets[slot + 1] = (buckets[slot + 1] as number) + 1;
  }
  for (let s = 1; s < buckets.length; s++) buckets[s] = (buckets[s] as number) + (buckets[s - 1] as number);
  const out = new Int32Array(indices.length);
  for (const i of indices) {
    const key = keys[i] as number;
    const slot = descending ? maxKey - key : key;
    const at = buckets[slot] as number;
    out[at] = i;
    buckets[slot] = at + 1;
  }
  return out;
}

/** The best k hits so far, kept sorted in retrieval order (k is small; insertion is a binary search). */
class TopK<T extends RetrievalItem> {
  private readonly list: RetrievalHit<T>[] = [];
  private readonly compare: (a: RetrievalHit, b: RetrievalHit) => number;

  constructor(
    private readonly k: number,
    order: RetrievalOrder,
  ) {
    this.compare = compareHits({ order });
  }

  get full(): boolean {
    return this.list.length >= this.k;
  }

  worst(): RetrievalHit<T> {
    return this.list[this.list.length - 1] as RetrievalHit<T>;
  }

  offer(item: T, distance: number): void {
    const hit = { item, distance };
    if (this.full && this.compare(hit, this.worst()) >= 0) return;
    let lo = 0;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(this.list[mid] as RetrievalHit<T>, hit) <= 0) lo = mid + 1;
      else hi = mid;
    }
    this.list.splice(lo, 0, hit);
    if (this.list.length > this.k) this.list.pop();
  }

  hits(): RetrievalHit<T>[] {
    return this.list.slice();
  }
}

/** Append-only typed arrays (doubling), so profiles of 10,000+ items stay in a few flat buffers. */
class GrowableInt32 {
  private data: Int32Array;
  length = 0;
  constructor(initial: number[] = []) {
    this.data = new Int32Array(Math.max(16, initial.length));
    for (const v of initial) this.push(v);
  }
  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }
  pushAll(values: Int32Array): void {
    if (this.length + values.length > this.data.length) this.grow(this.length + values.length);
    this.data.set(values, this.length);
    this.length += values.length;
  }
  view(): Int32Array {
    return this.data;
  }
  private grow(min: number): void {
    const next = new Int32Array(Math.max(min, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}

class GrowableUint16 {
  private data = new Uint16Array(16);
  length = 0;
  pushAll(values: Uint16Array): void {
    if (this.length + values.length > this.data.length) {
      const next = new Uint16Array(Math.max(this.length + values.length, this.data.length * 2));
      next.set(this.data.subarray(0, this.length));
      this.data = next;
    }
    this.data.set(values, this.length);
    this.length += values.length;
  }
  view(): Uint16Array {
    return this.data;
  }
}
