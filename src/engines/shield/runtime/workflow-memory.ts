/**
 * Long-term memory of the shield: successful shielding workflows (which operation assigned which
 * predicate of a circuit, the model's answers, and whether each answer mattered), stored as Workflow
 * records and retrieved by Levenshtein distance between step texts (src/memory's exhaustive top-k).
 *
 * What is reused, and nothing more:
 * - answers: a Binary-Check answer is reused only for an IDENTICAL question — the stored entry's
 *   `key` (binaryQuestionKey: a digest of the exact prompt the question was asked with — task,
 *   earlier steps shown, current step, page and observation, question text — with the policy's name
 *   and version and the model id) equals the current question's key. Similar step texts are not
 *   enough: "the user consented" learned on one task says nothing about another task's same click.
 *   Entries stored without a key (older plans) are never reused as answers. The model is asked at
 *   temperature 0, so an identical key makes this a cache, not a guess;
 * - useless checks: a Binary-Check that a close workflow (normalised distance <= 0.25) recorded as
 *   useless — the verdict was the same with the predicate left open — is not asked up front. The
 *   engine then checks locally that the verdict is the same whichever value the predicate takes, and
 *   asks the model after all when it is not, so skipping never changes a decision.
 */

import { boundedLevenshtein } from "../../../memory/bounded-levenshtein.js";
import { topK } from "../../../memory/retrieval.js";
import type { Store, Workflow } from "../../../store/store.js";
import type { StepFacts } from "../assign/step-facts.js";
import type { PlanStep } from "./shielding-plan.js";

export type ShieldOperation = "search" | "binary-check" | "detect" | "formal-verify" | "unassigned";

export interface WorkflowPlanEntry {
  operation: ShieldOperation;
  /** The Binary-Check question, for ask-bound predicates. */
  question?: string;
  /** For model answers: the question's key (binaryQuestionKey); the answer is reused only under it. */
  key?: string;
  value?: boolean;
  /** For model answers: whether the verdict depended on the answer. */
  useful?: boolean;
}

export interface ShieldWorkflowPlan {
  kind: "warden.shield-workflow";
  version: 1;
  predicates: Record<string, WorkflowPlanEntry>;
  rules: string[];
  /** The shielding plan the model wrote for the step (planning "plan"); exemplars of later plans. */
  shieldingPlan?: PlanStep[];
}

export interface RetrievedWorkflow {
  id: string;
  action: string;
  /** The retrieval text of the step the workflow shielded. */
  query: string;
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

function hasKey(plan: ShieldWorkflowPlan, keys: ReadonlySet<string>): boolean {
  return Object.values(plan.predicates).some((e) => e?.key !== undefined && keys.has(e.key));
}

/**
 * The k stored workflows of these circuits closest to the query (only shield workflow plans), plus
 * every stored workflow holding an answer under one of `keys` — an exact question is found however
 * many similar workflows other tasks left behind.
 */
export async function retrieveWorkflows(options: {
  store: Store;
  policy: string;
  actions: readonly string[];
  query: string;
  k?: number;
  keys?: readonly string[];
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
  const retrieved: RetrievedWorkflow[] = hits.map((h) => ({
    id: h.item.id,
    action: h.item.workflow.action,
    query: h.item.input,
    distance: h.distance,
    normalised: h.distance / Math.max(1, options.query.length, h.item.input.length),
    plan: h.item.workflow.plan as ShieldWorkflowPlan,
  }));
  const keys = new Set(options.keys ?? []);
  if (keys.size === 0) return retrieved;
  const seen = new Set(retrieved.map((r) => r.id));
  for (const w of usable) {
    if (seen.has(w.id) || !hasKey(w.plan as ShieldWorkflowPlan, keys)) continue;
    seen.add(w.id);
    // Found by key, not by text (the k nearest texts may all be other tasks' workflows).
    const distance = boundedLevenshtein({ a: options.query, b: w.query, max: Number.POSITIVE_INFINITY });
    retrieved.push({
      id: w.id,
      action: w.action,
      query: w.query,
      distance,
      normalised: distance / Math.max(1, options.query.length, w.query.length),
      plan: w.plan as ShieldWorkflowPlan,
    });
  }
  return retrieved;
}

/** What the retrieved workflows let this step reuse (see the module comment). */
export function planReuse(options: {
  hits: readonly RetrievedWorkflow[];
  /** `key`: the question's binaryQuestionKey; a question without one never reuses an answer. */
  questions: ReadonlyArray<{ predicate: string; question: string; key?: string }>;
}): WorkflowReuse {
  const reuse: WorkflowReuse = { answers: {}, skip: {} };
  for (const q of options.questions) {
    const same =
      q.key === undefined
        ? undefined
        : options.hits.find((h) => {
            const e = h.plan.predicates[q.predicate];
            return (
              e !== undefined &&
              e.key === q.key &&
              e.question === q.question &&
              e.operation === "binary-check" &&
              typeof e.value === "boolean"
            );
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
