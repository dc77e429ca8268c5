/**
 * Builds an action-based safety policy model (ASPM) from policy documents with a model (ShieldAgent
 * §3.2): chunk the documents; extract policies per chunk (clauses) and rules per clause; then alternate
 * Verifiability Refinement and Redundancy Pruning until no rule is left to review and nothing merges,
 * or the budget of model calls (provider requests, re-asks included) is spent, or `maxRounds` pass; finally build the circuits and give every rule
 * weight 1. Every change is logged (what, why, before/after); a clause the model cannot be brought to
 * answer usefully is given up with its reason, never failing the whole build. Only predicates some rule
 * uses are kept. The result is checked with verifyPolicy and the findings are in the report.
 */
import { z } from "zod";
import { WardenError } from "../../../core/errors.js";
import { type Policy, PolicySchema } from "../../../core/policy.js";
import { parseWith } from "../../../core/validate.js";
import type { ModelClient } from "../../../llm/model.js";
import { type Finding, verifyPolicy } from "../../../policies/verify-policy.js";
import { buildCircuits } from "../circuits/build-circuits.js";
import { ruleAtoms } from "../circuits/rule-atoms.js";
import { createDetectorRegistry, type DetectorRegistry } from "../detectors/registry.js";
import { atoms, parseLtl } from "../ltl/index.js";
import type { AspmLogEntry } from "./aspm-draft.js";
import { createDraft } from "./aspm-draft.js";
import { budgetLeft, type ModelBudget } from "./budgeted-model.js";
import { chunkDocuments, type PolicyDocument, PolicyDocumentSchema } from "./chunk-documents.js";
import { extractClauses } from "./extract-clauses.js";
import { extractRules } from "./extract-rules.js";
import { type EmbeddingCache, predicateSimilarity, predicateVagueness } from "./predicate-similarity.js";
import { pruneRedundancy } from "./prune-redundancy.js";
import { type RefinementMemory, refineVerifiability } from "./refine-verifiability.js";

export interface AspmReport {
  documents: number;
  chunks: number;
  clauses: number;
  rules: number;
  predicates: number;
  circuits: number;
  /** Refinement rounds run (a round = Verifiability Refinement then Redundancy Pruning). */
  rounds: number;
  /** Why refinement stopped: "converged", "budget" or "max-rounds". */
  stopped: "converged" | "budget" | "max-rounds";
  budget: { limit: number; used: number };
  similarity: "embeddings" | "lexical";
  /** Clauses or chunks given up, with the reason. */
  gaveUp: Array<{ target: string; reason: string }>;
  changes: { verifiability: number; redundancy: number };
  verification: { ok: boolean; findings: Finding[] };
}

export interface BuildAspmResult {
  policy: Policy;
  log: AspmLogEntry[];
  report: AspmReport;
}

const OptionsSchema = z.object({
  documents: z.array(PolicyDocumentSchema).min(1, "give at least one policy document"),
  name: z.string().min(1),
  budget: z.number().int().positive().optional(),
  embeddings: z.enum(["auto", "off"]).optional(),
  specification: z.string().optional(),
  maxChunkChars: z.number().int().min(200).optional(),
  maxRounds: z.number().int().min(0).optional(),
  refinePerRound: z.number().int().min(0).optional(),
  mergeThreshold: z.number().min(0).max(1).optional(),
  seed: z.number().int().optional(),
});

export async function buildAspm(options: {
  model: ModelClient;
  documents: readonly PolicyDocument[];
  name: string;
  /** Most model calls (provider requests) the whole build may make (default 200). */
  budget?: number;
  /** Similarity for vagueness and redundancy: the model's embeddings when it has them ("auto"), or lexical ("off"). */
  embeddings?: "auto" | "off";
  onLog?: (entry: AspmLogEntry) => void;
  /** The guarded agent's specification (I_s); default: a sentence naming the documents. */
  specification?: string;
  maxChunkChars?: number;
  /** Refinement rounds at most (default 10). */
  maxRounds?: number;
  /** Rules refined per round, vaguest first (default 3). */
  refinePerRound?: number;
  /** Similarity at which predicates count as possible duplicates (default 0.9 with embeddings, 0.7 lexical). */
  mergeThreshold?: number;
  seed?: number;
  detectors?: DetectorRegistry;
  signal?: AbortSignal;
}): Promise<BuildAspmResult> {
  const o = parseWith({
    schema: OptionsSchema,
    value: { ...options, model: undefined, onLog: undefined, detectors: undefined, signal: undefined },
    what: "ASPM build options",
  });
  const { model } = options;
  if (!model || typeof model.generateObject !== "function") {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "model: a ModelClient is required",
      details: { field: "model" },
    });
  }
  const detectors = options.detectors ?? createDetectorRegistry();
  const budget: ModelBudget = { limit: o.budget ?? 200, used: 0 };
  const draft = createDraft({ ...(options.onLog ? { onLog: options.onLog } : {}) });
  const signal = options.signal ? { signal: options.signal } : {};
  const gaveUp = () =>
    draft.log.filter((e) => e.step === "give-up").map((e) => ({ target: e.target, reason: e.why }));

  // 1. Chunks and clauses.
  const chunks = chunkDocuments({
    documents: o.documents,
    ...(o.maxChunkChars ? { maxChars: o.maxChunkChars } : {}),
  });
  draft.record({
    step: "chunking",
    target: o.documents.map((d) => d.name).join(", "),
    change: `${chunks.length} chunks`,
    why: "sections by heading, bounded in size",
    after: chunks.map((c) => c.reference),
  });
  for (const chunk of chunks) {
    if (budgetLeft({ budget }) < 1) {
      draft.record({
        step: "budget",
        target: chunk.reference,
        change: "skipped",
        why: "the model-call budget is spent",
      });
      continue;
    }
    await extractClauses({ model, budget, chunk, draft, ...signal });
  }
  // 2. Rules per clause.
  for (const clause of [...draft.clauses]) {
    if (budgetLeft({ budget }) < 1) {
      draft.record({
        step: "budget",
        target: clause.id,
        change: "no rules extracted",
        why: "the model-call budget is spent",
      });
      continue;
    }
    await extractRules({ model, budget, clause, draft, detectors, ...signal });
  }

  // 3. Alternating refinement.
  const cache: EmbeddingCache = { vectors: new Map() };
  const memory: RefinementMemory = { settled: new Set(), rewrites: new Map() };
  const judged = new Set<string>();
  const maxRounds = o.maxRounds ?? 10;
  const changes = { verifiability: 0, redundancy: 0 };
  let rounds = 0;
  let stopped: AspmReport["stopped"] = "converged";
  let method: AspmReport["similarity"] = "lexical";
  while (draft.rules.length > 0) {
    if (rounds >= maxRounds) {
      stopped = "max-rounds";
      break;
    }
    if (budgetLeft({ budget }) < 1) {
      stopped = "budget";
      break;
    }
    rounds += 1;
    const similarityOf = async () => {
      const s = await predicateSimilarity({
        predicates: [...draft.predicates.values()],
        model,
        embeddings: o.embeddings ?? "auto",
        cache,
        budget,
        ...signal,
      });
      if (s.note)
        draft.record({ step: "similarity", target: "predicates", change: "lexical similarity", why: s.note });
      method = s.method;
      return s;
    };
    const s1 = await similarityOf();
    const vagueness = predicateVagueness({ predicates: [...draft.predicates.values()], similarity: s1 });
    const vr = await refineVerifiability({
      model,
      budget,
      draft,
      detectors,
      vagueness,
      memory,
      ...(o.refinePerRound !== undefined ? { perRound: o.refinePerRound } : {}),
      ...signal,
    });
    const s2 = await similarityOf();
    const rp = await pruneRedundancy({
      model,
      budget,
      draft,
      detectors,
      similarity: s2,
      threshold: o.mergeThreshold ?? (s2.method === "embeddings" ? 0.9 : 0.7),
      judged,
      ...signal,
    });
    changes.verifiability += vr.changes;
    changes.redundancy += rp;
    // Converged: no rule left to review and nothing merged. A round that reviewed rules without
    // changing them goes on to the next vaguest ones.
    if (vr.reviewed === 0 && vr.changes + rp === 0) {
      stopped = "converged";
      break;
    }
    if (budgetLeft({ budget }) < 1) {
      stopped = "budget";
      break;
    }
  }

  // 4. Assemble: used predicates only, circuits, weights.
  const used = new Set(draft.rules.flatMap((r) => ruleAtoms({ rule: r })));
  const predicates = [...draft.predicates.values()].filter((p) => used.has(p.name));
  for (const p of draft.predicates.values()) {
    if (!used.has(p.name)) {
      draft.record({
        step: "redundancy-pruning",
        target: p.name,
        change: "predicate dropped",
        why: "no rule uses it",
      });
    }
  }
  const names = o.documents.map((d) => d.name);
  const candidate = parseWith({
    schema: PolicySchema,
    value: {
      name: o.name,
      version: "1",
      description: `Action-based safety policy model built from ${names.join(", ")}: ${draft.rules.length} rules over ${predicates.length} predicates.`,
      specification:
        o.specification ?? `An autonomous agent governed by the policy documents ${names.join(", ")}.`,
      requests: draft.clauses.map((c) => c.text).join("\n"),
      rules: {
        predicates,
        temporalRules: draft.rules,
        clauses: draft.clauses,
      },
    },
    what: "built ASPM",
    code: "INTERNAL",
  });
  const circuits = buildCircuits({ policy: candidate, ...(o.seed !== undefined ? { seed: o.seed } : {}) });
  draft.record({
    step: "circuits",
    target: o.name,
    change: `${circuits.length} circuits`,
    why: "one per action predicate, with the clusters of the state predicates its rules read",
  });
  draft.record({
    step: "weights",
    target: o.name,
    change: "every rule weighs 1",
    why: "default weights before training",
  });
  const policy: Policy = { ...candidate, rules: { ...candidate.rules, circuits } };
  const verification = verifyPolicy({
    policy,
    parseFormula: (formula) => atoms({ ast: parseLtl({ formula }) }),
  });
  return {
    policy,
    log: draft.log,
    report: {
      documents: o.documents.length,
      chunks: chunks.length,
      clauses: draft.clauses.length,
      rules: draft.rules.length,
      predicates: predicates.length,
      circuits: circuits.length,
      rounds,
      stopped,
      budget: { limit: budget.limit, used: budget.used },
      similarity: method,
      gaveUp: gaveUp(),
      changes,
      verification,
    },
  };
}

/** One line per log step kind with counts, for CLI summaries. */
export function summarizeAspmLog(options: { log: readonly AspmLogEntry[] }): string {
  const counts = new Map<string, number>();
  for (const e of options.log) {
    const key = `${e.step}: ${e.change
      .replace(/\(\d+\)$/, "")
      .replace(/^\d+ /, "N ")
      .trim()}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].map(([k, n]) => `  ${String(n).padStart(4)} × ${k}`).join("\n");
}
