/**
 * Thresholded Levenshtein distance for the retrieval index: Myers' bit-parallel algorithm (Hyyrö's block
 * formulation) restricted to the diagonal band that can still hold a path of cost <= max, giving up as soon
 * as no such path is left. The pattern (the query text) is preprocessed once and compared against many
 * candidate texts, which is exactly the shape of a top-k query.
 *
 * Distances are over UTF-16 code units with unit costs, the same definition fastest-levenshtein uses, so
 * every exact answer equals `distance(pattern, text)` from that library (the exhaustive reference).
 */

const WORD = 32;

export interface LevenshteinPattern {
  readonly text: string;
  readonly length: number;
  /**
   * Exact distance to `text` when it is <= `max`; otherwise some value > `max` (max + 1). `max` may be
   * Infinity for an unbounded, exact answer; a negative max counts as 0.
   */
  distance(options: { text: string; max: number }): number;
}

/** Preprocesses `text` as the pattern side of many distance computations. */
export function createLevenshteinPattern(options: { text: string }): LevenshteinPattern {
  const pattern = buildPattern(options.text);
  return {
    text: options.text,
    length: options.text.length,
    distance: ({ text, max }) => boundedDistance(pattern, text, max),
  };
}

/** Convenience for one-off comparisons (tests, callers with a single pair). */
export function boundedLevenshtein(options: { a: string; b: string; max: number }): number {
  return boundedDistance(buildPattern(options.a), options.b, options.max);
}

interface Pattern {
  m: number;
  blocks: number;
  /** code unit -> row index into peq (0 = the all-zero row of characters absent from the pattern). */
  charRow: Map<number, number>;
  /** For code units < 256 the same lookup without hashing (the common case for agent logs). */
  asciiRow: Int32Array;
  /** peq[row * blocks + b]: bit r set when pattern[32b + r] equals the row's character. */
  peq: Int32Array;
  /** Rows in the last block (1..32) and the bit of its bottom row. */
  lastHeight: number;
  lastHigh: number;
  /** Scratch state reused across calls (the pattern is not re-entrant, which a synchronous scan never needs). */
  pv: Int32Array;
  mv: Int32Array;
  score: Int32Array;
}

function buildPattern(text: string): Pattern {
  const m = text.length;
  const blocks = Math.max(1, Math.ceil(m / WORD));
  const charRow = new Map<number, number>();
  const asciiRow = new Int32Array(256);
  for (let i = 0; i < m; i++) {
    const c = text.charCodeAt(i);
    if (!charRow.has(c)) {
      const row = charRow.size + 1;
      charRow.set(c, row);
      if (c < 256) asciiRow[c] = row;
    }
  }
  const peq = new Int32Array((charRow.size + 1) * blocks);
  for (let i = 0; i < m; i++) {
    const row = charRow.get(text.charCodeAt(i)) as number;
    const b = (i / WORD) | 0;
    peq[row * blocks + b] = (peq[row * blocks + b] as number) | (1 << (i % WORD));
  }
  const lastHeight = m - (blocks - 1) * WORD;
  return {
    m,
    blocks,
    charRow,
    asciiRow,
    peq,
    lastHeight,
    lastHigh: lastHeight > 0 ? 1 << (lastHeight - 1) : 0,
    pv: new Int32Array(blocks),
    mv: new Int32Array(blocks),
    score: new Int32Array(blocks),
  };
}

/**
 * Rows are pattern positions 1..m, columns text positions 1..n; D[i][j] is the distance between the
 * first i pattern and first j text units. A cell lies on a path of total cost <= max only if
 * D[i][j] + rem(i, j) <= max, where rem = |(n - j) - (m - i)| bounds the rest of the path; a cell failing
 * that is "dead". In particular a live cell needs |j - i| + |(j - i) - (n - m)| <= max, which confines
 * the work to a band of diagonals [dLo, dHi].
 *
 * Only a contiguous run of 32-row blocks is kept live per column:
 * - at the top, blocks leave for good once all their cells are dead or above the band (a path never
 *   returns to smaller rows, and row 0 — D = j, not a block — is checked before block 0 leaves);
 * - at the bottom, dead blocks leave, and a block (re-)enters when a path could step into its first row
 *   from the last live row (diagonally from the previous column, or down in this one) with a total that
 *   can still be <= max. An entering block starts one column back as "every vertical step +1" below
 *   the exact value above it, so a path entering from above is computed exactly.
 * Cells outside the live run are modelled by overestimates (the row above the first live block grows by
 * +1 per column), so every computed value is the cost of some real path (>= the true value), and, by
 * induction along an optimal path of cost <= max — whose cells are never dead, hence always live — the
 * final value is exact whenever the distance is <= max.
 */
function boundedDistance(p: Pattern, text: string, maxIn: number): number {
  const m = p.m;
  const n = text.length;
  // The distance never exceeds m + n, so a larger max (Infinity) is the same as m + n; NaN or < 0 is 0.
  const max = !(maxIn > 0) ? 0 : maxIn >= m + n ? m + n : Math.floor(maxIn);
  const delta = n - m;
  const absDelta = delta < 0 ? -delta : delta;
  if (absDelta > max) return max + 1;
  if (m === 0) return n;
  if (n === 0) return m;

  const slack = (max - absDelta) >> 1;
  const dLo = Math.min(0, delta) - slack;
  const dHi = Math.max(0, delta) + slack;
  const blocks = p.blocks;
  const lastBlockIndex = blocks - 1;
  const { pv, mv, score, peq, asciiRow, charRow, lastHigh, lastHeight } = p;

  // Column 0: D[i][0] = i, every vertical delta is +1. Rows beyond max can never be live.
  let firstBlock = 0;
  let lastBlock = blockOfRow(Math.min(m, -dLo, max));
  for (let b = 0; b <= lastBlock; b++) {
    pv[b] = -1;
    mv[b] = 0;
    score[b] = Math.min((b + 1) * WORD, m);
  }
  // Once top blocks have left, the row above the first live block is modelled as growing by +1 per
  // column from its last computed value: an overestimate, as a real value grows by at most 1.
  let boundaryValue = 0;
  let boundaryColumn = 0;

  for (let j = 1; j <= n; j++) {
    const c = text.charCodeAt(j - 1);
    const row = c < 256 ? (asciiRow[c] as number) : (charRow.get(c) ?? 0);
    const base = row * blocks;

    // Value of the row just above the first non-live block below the run, one column back.
    let abovePrev: number;
    if (lastBlock >= firstBlock) abovePrev = score[lastBlock] as number;
    else if (firstBlock === 0) abovePrev = j - 1;
    else abovePrev = boundaryValue + (j - 1 - boundaryColumn);

    // Advance every live block (advanceBlock inlined for full 32-row blocks: this is the index's hot
    // path); hin is the horizontal delta entering a block's top: the real +1 of row 0 above block 0, the
    // modelled +1 above a block whose upper neighbours have left.
    let hin = 1;
    const fullEnd = lastBlock === lastBlockIndex ? lastBlock - 1 : lastBlock;
    for (let b = firstBlock; b <= fullEnd; b++) {
      const pvb = pv[b] as number;
      const mvb = mv[b] as number;
      const eqIn = peq[base + b] as number;
      const hinNeg = hin < 0 ? 1 : 0;
      const xv = eqIn | mvb;
      const eq = eqIn | hinNeg;
      const xh = (((eq & pvb) + pvb) ^ pvb) | eq;
      let ph = mvb | ~(xh | pvb);
      let mh = pvb & xh;
      const hout = ph < 0 ? 1 : mh < 0 ? -1 : 0;
      ph = (ph << 1) | (hin > 0 ? 1 : 0);
      mh = (mh << 1) | hinNeg;
      pv[b] = mh | ~(xv | ph);
      mv[b] = ph & xv;
      score[b] = (score[b] as number) + hout;
      hin = hout;
    }
    if (fullEnd !== lastBlock && lastBlock >= firstBlock) {
      hin = advanceBlock(pv, mv, lastBlock, peq[base + lastBlock] as number, hin, lastHigh);
      score[lastBlock] = (score[lastBlock] as number) + hin;
    }
    let aboveNow = lastBlock >= firstBlock ? (score[lastBlock] as number) : abovePrev + 1;

    // Let blocks enter at the bottom while a path can step into their first row usefully.
    const bandLast = blockOfRow(Math.min(m, j - dLo));
    while (lastBlock < bandLast) {
      const b = lastBlock + 1;
      const entryRow = b * WORD + 1;
      const entry = abovePrev < aboveNow + 1 ? abovePrev : aboveNow + 1;
      const rem = Math.abs(entryRow - (m - n + j));
      if (entry + rem > max) break;
      pv[b] = -1;
      mv[b] = 0;
      const before = abovePrev + (b === lastBlockIndex ? lastHeight : WORD);
      hin = advanceBlock(
        pv,
        mv,
        b,
        peq[base + b] as number,
        hin,
        b === lastBlockIndex ? lastHigh : -2147483648,
      );
      score[b] = before + hin;
      if (lastBlock < firstBlock) firstBlock = b;
      lastBlock = b;
      abovePrev = before;
      aboveNow = score[b] as number;
    }

    // Nothing live and nothing could enter: every row is dead, above the band, or unreachable within max
    // — unless the path can still run along row 0 (block 0 may enter later). (Entry values only grow.)
    if (firstBlock > lastBlock && (firstBlock > 0 || j + Math.abs(j - delta) > max)) return max + 1;
    if (j === n) break;
    // Dropping later is always safe (live blocks are only ever extra work), so check every 8th column.
    if ((j & 7) !== 0) continue;
    // Drop dead blocks (and, at the top, blocks above the band) from both ends of the live run.
    const equalRow = m - n + j; // the row whose remaining pattern is as long as the remaining text
    while (firstBlock <= lastBlock) {
      const topRow = firstBlock * WORD + 1;
      const bottomRow = Math.min(topRow + WORD - 1, m);
      if (bottomRow >= j - dHi) {
        if (!isDead(p, firstBlock, topRow, bottomRow, equalRow, max)) break;
        // Row 0 (D = j) sits above block 0 and is not a block: a path may still run along it.
        if (firstBlock === 0 && j + Math.abs(j - delta) <= max) break;
      }
      boundaryValue = score[firstBlock] as number;
      boundaryColumn = j;
      firstBlock++;
    }
    while (lastBlock >= firstBlock) {
      const topRow = lastBlock * WORD + 1;
      if (!isDead(p, lastBlock, topRow, Math.min(topRow + WORD - 1, m), equalRow, max)) break;
      lastBlock--;
    }
  }

  if (lastBlock !== lastBlockIndex || firstBlock > lastBlock) return max + 1;
  const result = score[lastBlockIndex] as number;
  return result > max ? max + 1 : result;
}

/** Whether every cell of a block has value + rem > max (value >= bottom - popcount(pv)). */
function isDead(
  p: Pattern,
  b: number,
  topRow: number,
  bottomRow: number,
  equalRow: number,
  max: number,
): boolean {
  const minValue = (p.score[b] as number) - popcount((p.pv[b] as number) & rowMask(bottomRow - topRow + 1));
  const rem = equalRow < topRow ? topRow - equalRow : equalRow > bottomRow ? equalRow - bottomRow : 0;
  return minValue + rem > max;
}

/** Within a block, going up from the bottom a +1 vertical delta lowers the value by one. */
function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}

function rowMask(height: number): number {
  return height >= WORD ? -1 : (1 << height) - 1;
}

function blockOfRow(row: number): number {
  return row <= 0 ? -1 : ((row - 1) / WORD) | 0;
}

/** One column step of one 32-row block; returns the horizontal delta leaving its bottom row. */
function advanceBlock(
  pv: Int32Array,
  mv: Int32Array,
  b: number,
  eqIn: number,
  hin: number,
  high: number,
): number {
  const pvb = pv[b] as number;
  const mvb = mv[b] as number;
  const hinNeg = hin < 0 ? 1 : 0;
  const xv = eqIn | mvb;
  const eq = eqIn | hinNeg;
  const xh = (((eq & pvb) + pvb) ^ pvb) | eq;
  let ph = mvb | ~(xh | pvb);
  let mh = pvb & xh;
  const hout = (ph & high) !== 0 ? 1 : (mh & high) !== 0 ? -1 : 0;
  ph = (ph << 1) | (hin > 0 ? 1 : 0);
  mh = (mh << 1) | hinNeg;
  pv[b] = mh | ~(xv | ph);
  mv[b] = ph & xv;
  return hout;
}
