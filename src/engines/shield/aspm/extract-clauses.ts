/**
 * Policy extraction (ShieldAgent §3.2.2): each chunk of a document becomes structured policies —
 * definitions, application scope, description and a reference to the source clause — stored as
 * Clauses. The clause reference is the chunk's own ("it-policy.md §2.3"), followed by the item the
 * model pointed at within it, so a reviewer can always find the text.
 */
import type { Clause } from "../../../core/policy.js";
import type { ModelClient } from "../../../llm/model.js";
import type { AspmDraft, AspmLogEntry } from "./aspm-draft.js";
import { slugId } from "./aspm-draft.js";
import { POLICY_EXTRACTION_SYSTEM, policyExtractionPrompt } from "./aspm-prompts.js";
import { PolicyExtractionSchema } from "./aspm-schemas.js";
import { askStructured, type ModelBudget } from "./budgeted-model.js";
import type { DocumentChunk } from "./chunk-documents.js";

export async function extractClauses(options: {
  model: ModelClient;
  budget: ModelBudget;
  chunk: DocumentChunk;
  draft: AspmDraft & { record(entry: AspmLogEntry): void };
  signal?: AbortSignal;
}): Promise<Clause[]> {
  const { chunk, draft } = options;
  const answer = await askStructured({
    model: options.model,
    budget: options.budget,
    system: POLICY_EXTRACTION_SYSTEM,
    prompt: policyExtractionPrompt({ reference: chunk.reference, text: chunk.text }),
    schema: PolicyExtractionSchema,
    schemaName: "policies",
    purpose: "aspm-policy-extraction",
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!answer.ok) {
    draft.record({
      step: "give-up",
      target: chunk.reference,
      change: "no policies extracted",
      why: answer.reason,
    });
    return [];
  }
  const base = slugId({ text: chunk.document });
  const clauses: Clause[] = [];
  for (const p of answer.value.policies) {
    const n = draft.clauses.filter((c) => c.document === chunk.document).length + clauses.length + 1;
    const inner = p.reference.trim();
    const clause: Clause = {
      id: `${base}.c${n}`,
      text: p.description.trim(),
      definitions: Object.fromEntries(p.definitions.map((d) => [d.term, d.definition])),
      ...(p.scope.trim() !== "" ? { scope: p.scope.trim() } : {}),
      document: chunk.document,
      reference:
        inner !== "" && !chunk.reference.includes(inner) ? `${chunk.reference} (${inner})` : chunk.reference,
    };
    clauses.push(clause);
    draft.record({
      step: "policy-extraction",
      target: clause.id,
      change: "clause extracted",
      why: `stated in ${clause.reference}`,
      after: clause,
    });
  }
  if (clauses.length === 0) {
    draft.record({
      step: "policy-extraction",
      target: chunk.reference,
      change: "no policy",
      why: "the excerpt states no requirement",
    });
  }
  draft.clauses.push(...clauses);
  return clauses;
}
