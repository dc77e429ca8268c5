/**
 * GuardAgent's demonstration retrieval (paper §4.2, App. K), exhaustive reference version. The distance of
 * a stored demonstration D to a query is L(D.input, input) + L(D.output, output), L the Levenshtein
 * distance (fastest-levenshtein, over UTF-16 code units). "most" returns the k nearest (the paper's
 * retrieval), "least" the k farthest (its Table 7 ablation). Ties are broken by seq ascending, then id, so
 * that every backend and every instance retrieves the same demonstrations in the same order.
 *
 * This scan computes every distance and is the definition the fast index (retrieval-index.ts) must match.
 */
import { distance } from "fastest-levenshtein";
import { z } from "zod";
import { parseWith } from "../core/validate.js";

/** What retrieval needs of a demonstration; callers keep their own richer type. */
export interface RetrievalItem {
  id: string;
  seq: number;
  input: string;
  output: string;
}

export type RetrievalOrder = "most" | "least";

export interface RetrievalHit<T extends RetrievalItem = RetrievalItem> {
  item: T;
  distance: number;
}

export interface RetrievalQuery {
  input: string;
  output: string;
  k: number;
  order: RetrievalOrder;
}

export const RetrievalQuerySchema = z.object({
  input: z.string(),
  output: z.string(),
  k: z.number().int().min(0),
  order: z.enum(["most", "least"]),
});

/** Validates a query at the boundary (WardenError INVALID_INPUT naming the field). */
export function parseRetrievalQuery(options: { query: unknown; what?: string }): RetrievalQuery {
  return parseWith({
    schema: RetrievalQuerySchema,
    value: options.query,
    what: options.what ?? "retrieval query",
  });
}

/** The retrieval order: negative when hit a comes first. */
export function compareHits(options: {
  order: RetrievalOrder;
}): (a: RetrievalHit, b: RetrievalHit) => number {
  const sign = options.order === "most" ? 1 : -1;
  return (a, b) => {
    if (a.distance !== b.distance) return sign * (a.distance - b.distance);
    return compareTieBreak(a.item, b.item);
  };
}

/** seq ascending, then id (code-unit order): the stable tie-break of both orders. */
export function compareTieBreak(a: { seq: number; id: string }, b: { seq: number; id: string }): number {
  if (a.seq !== b.seq) return a.seq - b.seq;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The exhaustive top-k: computes every distance. */
export function topK<T extends RetrievalItem>(options: {
  items: readonly T[];
  input: string;
  output: string;
  k: number;
  order: RetrievalOrder;
}): RetrievalHit<T>[] {
  const { items } = options;
  const query = parseRetrievalQuery({
    query: { input: options.input, output: options.output, k: options.k, order: options.order },
  });
  if (query.k === 0 || items.length === 0) return [];
  const hits: RetrievalHit<T>[] = items.map((item) => ({
    item,
    distance: distance(item.input, query.input) + distance(item.output, query.output),
  }));
  hits.sort(compareHits({ order: query.order }));
  return hits.slice(0, query.k);
}
