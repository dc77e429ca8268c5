/**
 * Long-term memory of the shield: successful shielding workflows (which operation assigned which
 * predicate of a circuit, the model's answers, and whether each answer mattered), stored as Workflow
 * records and retrieved by Levenshtein distance between step texts (src/memory's exhaustive top-k).
 *
 * What is reused, and nothing more:
 * - answers: a stored workflow whose step text is IDENTICAL to the current one answered the same
 *   Binary-Check question — its answer is reused instead of asking the model again (same question,
 *   same text; the model is asked at temperature 0, so this is a cache, not a guess);
 * - useless checks: a Binary-Check that a close workflow (normalised distance <= 0.25) recorded as
 *   useless — the verdict was the same with the predicate left open — is not asked up front. The
 *   engine then checks locally that the verdict is the same whichever value the predicate takes, and
 *   asks the model after all when it is not, so skipping never changes a decision.
 */

import { topK } from "../../../memory/retrieval.js";
import type { Store, Workflow } from "../../../store/store.js";
import type { StepFacts } from "../assign/step-facts.js";

export type ShieldOperation = "search" | "binary-check" | "detect" | "formal-verify" | "unassigned";

export interface WorkflowPlanEntry {
  operation: ShieldOperation;
  /** The Binary-Check question, for ask-bound predicates. */
  question?: string;
  value?: boolean;
  /** For model answers: whether the verdict depended on the answer. */
  useful?: boolean;
}

export interface ShieldWorkflowPlan {
  kind: "warden.shield-workflow";
  version: 1;
  predicates: Record<string, WorkflowPlanEntry>;
  rules: string[];
}

export interface RetrievedWorkflow {
  id: string;
  action: string;
  distance: number;
  /** distance / length of the longer text, in [0, 1]. */
  normalised: number;
  plan: ShieldWorkflowPlan;
}

export interface WorkflowReuse {
  answers: Record<string, { value: boolean; workflow: string }>;
  skip: Record<string, { workflow: string }>;
}

/** The text retrieval compares: what the step did, in a compact, logging-style-independent form. */
export function stepQuery(options: { facts: StepFacts }): string {
  const f = options.facts;
  const parts = [f.actionType];
  if (f.elementText) parts.push(`element=${f.elementText}`);
  // Arguments, typed value, message and navigation target (argsText joins them without repeats).
  if (f.argsText) parts.push(`args=${f.argsText.replace(/\s+/g, " ")}`);
  if (f.page.base) parts.push(`page=${f.page.base}`);
  return parts.join(" | ").slice(0, 2000);
}

function isPlan(value: unknown): value is ShieldWorkflowPlan {
  const v = value as ShieldWorkflowPlan | null;
  return (
    typeof v === "object" &&
    v !== null &&
    v.kind === "warden.shield-workflow" &&
    typeof v.predicates === "object" &&
    v.predicates !== null
  );
}

/** The k stored workflows of these circuits closest to the query (only shield workflow plans). */
export async function retrieveWorkflows(options: {
  store: Store;
  policy: string;
  actions: readonly string[];
  query: string;
  k?: number;
}): Promise<RetrievedWorkflow[]> {
  const records: Workflow[] = [];
  for (const action of options.actions)
    records.push(...(await options.store.listWorkflows({ policy: options.policy, action })));
  const usable = records.filter((w) => isPlan(w.plan));
  const hits = topK({
    items: usable.map((w) => ({ id: w.id, seq: w.seq, input: w.query, output: "", workflow: w })),
    input: options.query,
    output: "",
    k: options.k ?? 3,
    order: "most",
  });
  return hits.map((h) => ({
    id: h.item.id,
    action: h.item.workflow.action,
    distance: h.distance,
    normalised: h.distance / Math.max(1, options.query.length, h.item.input.length),
    plan: h.item.workflow.plan as ShieldWorkflowPlan,
  }));
}

/** What the retrieved workflows let this step reuse (see the module comment). */
export function planReuse(options: {
  hits: readonly RetrievedWorkflow[];
  questions: ReadonlyArray<{ predicate: string; question: string }>;
}): WorkflowReuse {
  const reuse: WorkflowReuse = { answers: {}, skip: {} };
  for (const q of options.questions) {
    const same = options.hits.find((h) => {
      const e = h.plan.predicates[q.predicate];
      return h.distance === 0 && e?.question === q.question && typeof e.value === "boolean";
    });
    if (same) {
      reuse.answers[q.predicate] = { value: same.plan.predicates[q.predicate]!.value!, workflow: same.id };
      continue;
    }
    const close = options.hits.find(
      (h) => h.normalised <= 0.25 && h.plan.predicates[q.predicate] !== undefined,
    );
    if (close && close.plan.predicates[q.predicate]!.useful === false)
      reuse.skip[q.predicate] = { workflow: close.id };
  }
  return reuse;
}

/** Stores one workflow per circuit action shielded; a store failure is reported, not thrown. */
export async function saveWorkflow(options: {
  store: Store;
  policy: string;
  actions: readonly string[];
  query: string;
  plan: ShieldWorkflowPlan;
  verdict: "allow" | "deny" | "ask";
}): Promise<{ ids: string[]; error?: string }> {
  const ids: string[] = [];
  try {
    for (const action of options.actions) {
      const w = await options.store.addWorkflow({
        workflow: {
          policy: options.policy,
          action,
          query: options.query,
          plan: options.plan,
          verdict: options.verdict,
        },
      });
      ids.push(w.id);
    }
    return { ids };
  } catch (error) {
    return { ids, error: (error as Error).message };
  }
}
