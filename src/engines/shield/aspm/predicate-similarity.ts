/**
 * Similarity of predicates and ShieldAgent's vagueness proxy. A predicate's vagueness is the mean of
 * its top-k similarities to the other predicates of the same kind (action or state): a predicate that
 * resembles many others says little of its own. A rule's vagueness is the mean over its predicates.
 * Similarity is the cosine of the model's embeddings of "name: description" when the model offers
 * `embed` (and embeddings are not turned off), else the cosine of character-trigram vectors.
 * Embeddings are cached by text, so a refinement round only embeds what changed.
 */
import type { Predicate } from "../../../core/policy.js";
import type { ModelClient } from "../../../llm/model.js";
import { trigramCosine, trigramVector, vectorCosine } from "../circuits/trigram-similarity.js";
import { budgetLeft, type ModelBudget } from "./budgeted-model.js";

export type SimilarityMethod = "embeddings" | "lexical";

export interface SimilarityIndex {
  method: SimilarityMethod;
  names: string[];
  /** Symmetric similarity in [0, 1] (1 on the diagonal). */
  matrix: number[][];
}

export function predicateText(options: { predicate: Predicate }): string {
  return `${options.predicate.name.replace(/_/g, " ")}: ${options.predicate.description}`;
}

export interface EmbeddingCache {
  vectors: Map<string, number[]>;
  /** Set once embedding failed or was refused; lexical similarity is used from then on. */
  disabled?: string;
}

export async function predicateSimilarity(options: {
  predicates: readonly Predicate[];
  model?: ModelClient;
  embeddings: "auto" | "off";
  cache: EmbeddingCache;
  budget: ModelBudget;
  signal?: AbortSignal;
}): Promise<SimilarityIndex & { note?: string }> {
  const { predicates, model, cache } = options;
  const names = predicates.map((p) => p.name);
  const texts = predicates.map((p) => predicateText({ predicate: p }));
  let note: string | undefined;
  const useEmbeddings =
    options.embeddings === "auto" && model?.embed !== undefined && cache.disabled === undefined;
  if (useEmbeddings) {
    const missing = [...new Set(texts.filter((t) => !cache.vectors.has(t)))];
    if (missing.length > 0) {
      if (budgetLeft({ budget: options.budget }) < 1) {
        cache.disabled = "no model-call budget left for embeddings";
      } else {
        try {
          options.budget.used += 1;
          const r = await model!.embed!({
            values: missing,
            ...(options.signal ? { signal: options.signal } : {}),
          });
          missing.forEach((t, i) => {
            cache.vectors.set(t, r.embeddings[i] ?? []);
          });
        } catch (error) {
          cache.disabled = `embedding failed: ${(error as Error).message}`;
        }
      }
      if (cache.disabled) note = `${cache.disabled}; using lexical similarity`;
    }
  }
  if (useEmbeddings && cache.disabled === undefined) {
    const vectors = texts.map((t) => cache.vectors.get(t) ?? []);
    const matrix = vectors.map((a, i) =>
      vectors.map((b, j) => (i === j ? 1 : Math.max(0, vectorCosine({ a, b })))),
    );
    return { method: "embeddings", names, matrix };
  }
  const vectors = texts.map((text) => trigramVector({ text }));
  const matrix = vectors.map((a, i) => vectors.map((b, j) => (i === j ? 1 : trigramCosine({ a, b }))));
  return { method: "lexical", names, matrix, ...(note ? { note } : {}) };
}

/** Vagueness of every predicate: mean of its top-k similarities to others of the same kind. */
export function predicateVagueness(options: {
  predicates: readonly Predicate[];
  similarity: SimilarityIndex;
  k?: number;
}): Map<string, number> {
  const k = options.k ?? 3;
  const index = new Map(options.similarity.names.map((n, i) => [n, i] as const));
  const out = new Map<string, number>();
  for (const p of options.predicates) {
    const i = index.get(p.name)!;
    const sims = options.predicates
      .filter((q) => q.kind === p.kind && q.name !== p.name)
      .map((q) => options.similarity.matrix[i]![index.get(q.name)!] as number)
      .sort((a, b) => b - a)
      .slice(0, k);
    out.set(p.name, sims.length === 0 ? 0 : sims.reduce((s, v) => s + v, 0) / sims.length);
  }
  return out;
}

/** Mean vagueness of the predicates a rule reads (0 for none). */
export function ruleVagueness(options: {
  atoms: readonly string[];
  vagueness: ReadonlyMap<string, number>;
}): number {
  const values = options.atoms.map((a) => options.vagueness.get(a) ?? 0);
  return values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
}
