/**
 * Micro-benchmark of GuardAgent's demonstration retrieval: the exact top-k index (src/memory/
 * retrieval-index.ts) against the exhaustive Levenshtein scan (src/memory/retrieval.ts) over synthetic
 * EHRAgent-like demonstrations of about 2,000 characters. Queries are half perturbed variants of corpus
 * items (a new check resembling a stored case) and half freshly generated cases; every timed index query
 * is compared with the exhaustive answer (same items, order and distances).
 * Run standalone: `npx tsx bench/micro/retrieval.ts [n] [k] [queries] [order]` prints JSON.
 */
import { pathToFileURL } from "node:url";
import { type RetrievalHit, type RetrievalOrder, topK } from "../../src/memory/retrieval.js";
import { createRetrievalIndex } from "../../src/memory/retrieval-index.js";
import {
  createSeededRandom,
  generateSyntheticDemonstrations,
  perturbDemonstration,
  type SyntheticDemonstration,
} from "../../test/support/synthetic-demonstrations.js";

export interface BenchRetrievalOptions {
  /** Demonstrations in memory (default 10,000). */
  n?: number;
  /** Demonstrations retrieved per query (default 5, the hardest of the k = 1..5 range). */
  k?: number;
  /** Timed queries (default 50), half perturbed corpus items, half fresh cases. */
  queries?: number;
  /** "most" (default, the paper's retrieval) or "least" (its ablation). */
  order?: RetrievalOrder;
  seed?: number;
}

export interface BenchRetrievalResult {
  name: string;
  n: number;
  k: number;
  queries: number;
  order: RetrievalOrder;
  /** Index query latency over all timed queries, in milliseconds. */
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** The same split by query kind. */
  perturbed: { p50Ms: number; p95Ms: number };
  fresh: { p50Ms: number; p95Ms: number };
  /** Median exhaustive scan time per query, in milliseconds. */
  exhaustiveMs: number;
  /** Mean number of items whose exact distance the index computed (of n). */
  meanExactComputations: number;
  buildMs: number;
  identicalToExhaustive: boolean;
  mismatches: number;
  /** Mean characters (input + output) per demonstration. */
  meanChars: number;
}

export async function benchRetrieval(options: BenchRetrievalOptions = {}): Promise<BenchRetrievalResult> {
  const n = options.n ?? 10_000;
  const k = options.k ?? 5;
  const count = options.queries ?? 50;
  const order = options.order ?? "most";
  const seed = options.seed ?? 1;

  const corpus = generateSyntheticDemonstrations({ count: n, seed });
  const built = performance.now();
  const index = createRetrievalIndex<SyntheticDemonstration>({ items: corpus });
  const buildMs = performance.now() - built;

  const random = createSeededRandom({ seed: seed + 1000 });
  const fresh = generateSyntheticDemonstrations({ count: Math.ceil(count / 2) + 3, seed: seed + 2000 });
  const queries: { kind: "perturbed" | "fresh"; input: string; output: string }[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 2 === 0) {
      const base = corpus[random.int(corpus.length)] as SyntheticDemonstration;
      queries.push({ kind: "perturbed", ...perturbDemonstration({ demonstration: base, random }) });
    } else {
      const f = fresh[(i - 1) / 2] as SyntheticDemonstration;
      queries.push({ kind: "fresh", input: f.input, output: f.output });
    }
  }

  // Warm the JIT on queries that are not timed.
  for (const f of fresh.slice(-3)) index.query({ input: f.input, output: f.output, k, order });

  const times: number[] = [];
  const byKind = { perturbed: [] as number[], fresh: [] as number[] };
  const exhaustiveTimes: number[] = [];
  let exact = 0;
  let mismatches = 0;
  for (const query of queries) {
    const started = performance.now();
    const hits = index.query({ input: query.input, output: query.output, k, order });
    const ms = performance.now() - started;
    times.push(ms);
    byKind[query.kind].push(ms);
    exact += index.lastQueryStats().exactComputations;

    const scanStarted = performance.now();
    const reference = topK({ items: corpus, input: query.input, output: query.output, k, order });
    exhaustiveTimes.push(performance.now() - scanStarted);
    if (!sameHits(hits, reference)) mismatches++;
  }

  return {
    name: "retrieval",
    n,
    k,
    queries: count,
    order,
    p50Ms: round(percentile(times, 0.5)),
    p95Ms: round(percentile(times, 0.95)),
    maxMs: round(Math.max(...times)),
    perturbed: {
      p50Ms: round(percentile(byKind.perturbed, 0.5)),
      p95Ms: round(percentile(byKind.perturbed, 0.95)),
    },
    fresh: { p50Ms: round(percentile(byKind.fresh, 0.5)), p95Ms: round(percentile(byKind.fresh, 0.95)) },
    exhaustiveMs: round(percentile(exhaustiveTimes, 0.5)),
    meanExactComputations: round(exact / count),
    buildMs: round(buildMs),
    identicalToExhaustive: mismatches === 0,
    mismatches,
    meanChars: round(corpus.reduce((sum, d) => sum + d.input.length + d.output.length, 0) / n),
  };
}

function sameHits(
  a: RetrievalHit<SyntheticDemonstration>[],
  b: RetrievalHit<SyntheticDemonstration>[],
): boolean {
  return (
    a.length === b.length &&
    a.every((hit, i) => hit.item.id === b[i]?.item.id && hit.distance === b[i]?.distance)
  );
}

/** Nearest-rank percentile. */
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (i: number): number | undefined =>
    process.argv[i] === undefined ? undefined : Number(process.argv[i]);
  const orderArg = process.argv[5];
  const result = await benchRetrieval({
    n: arg(2),
    k: arg(3),
    queries: arg(4),
    ...(orderArg === "least" || orderArg === "most" ? { order: orderArg } : {}),
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
