/**
 * Stage 3 of deciding a step when the shield plans (`planning: "plan"`, with a model): the open state
 * predicates the selected circuits need — and those rules that look back in time must record every
 * step — are assigned by a shielding plan the model writes (shielding-plan.ts) with the most similar
 * successful workflows of these circuits from long-term memory as exemplars, and Warden runs it
 * (shielding-plan-run.ts). With nothing open the stage costs no call. A plan that cannot be written,
 * parsed or checked marks every predicate it was to assign as failed: the verifier then fails closed
 * whenever the verdict depends on one of them (as for a failed Binary-Check).
 */
import type { Cost } from "../../../core/decision.js";
import { addCost } from "../../../core/decision.js";
import type { Predicate } from "../../../core/policy.js";
import type { Store } from "../../../store/store.js";
import type { ShieldRule } from "./compiled-shield-policy.js";
import { checkPlan, type PlanExemplar, renderPlanPrompt, writeShieldingPlan } from "./shielding-plan.js";
import { type PlanSite, runShieldingPlan } from "./shielding-plan-run.js";
import { type AnswerSource, type StepValues, withAnswers } from "./step-decision-assign.js";
import type { MemoryTrace, Resolution } from "./step-decision-resolve.js";
import { type RetrievedWorkflow, retrieveWorkflows, type ShieldOperation } from "./workflow-memory.js";

/** The open, declared state predicates the step needs: relevant ones, and those rules need every step. */
export function predicatesToPlan(options: {
  predicates: readonly Predicate[];
  rules: readonly ShieldRule[];
  open: readonly string[];
  relevant: ReadonlySet<string>;
}): string[] {
  const needed = new Set(options.relevant);
  for (const r of options.rules) if (r.needsHistory) for (const a of r.atoms) needed.add(a);
  const open = new Set(options.open);
  return options.predicates
    .filter((p) => p.kind === "state" && open.has(p.name) && needed.has(p.name))
    .map((p) => p.name);
}

/** A retrieved workflow as an exemplar, when it holds a shielding plan. */
export function exemplarOf(options: { hit: RetrievedWorkflow }): PlanExemplar | undefined {
  const { hit } = options;
  const steps = hit.plan.shieldingPlan;
  if (!Array.isArray(steps) || steps.length === 0) return undefined;
  const values: Record<string, boolean> = {};
  for (const s of steps) {
    const v = hit.plan.predicates[s.predicate]?.value;
    if (typeof v === "boolean") values[s.predicate] = v;
  }
  return { query: hit.query, steps, values, outcome: "allow" };
}

/** The rules shown with the plan prompt: the circuits' rules, and the look-back rules of the predicates. */
function promptRules(options: {
  selected: readonly ShieldRule[];
  rules: readonly ShieldRule[];
  toAssign: readonly string[];
}): ShieldRule[] {
  const out = [...options.selected];
  for (const r of options.rules)
    if (r.needsHistory && !out.includes(r) && r.atoms.some((a) => options.toAssign.includes(a))) out.push(r);
  return out;
}

async function exemplarsFor(options: {
  store: Store | undefined;
  policy: string;
  actions: readonly string[];
  query: string;
  k: number;
  memory: MemoryTrace | undefined;
}): Promise<Array<{ id: string; exemplar: PlanExemplar }>> {
  const { store, memory } = options;
  if (!store || options.actions.length === 0 || options.k === 0) return [];
  let hits: RetrievedWorkflow[] = [];
  try {
    // More than k are read so that k of them can hold a plan (older workflows hold none).
    hits = await retrieveWorkflows({ ...options, store, k: options.k * 3 });
  } catch (error) {
    if (memory) memory.error = `retrieval failed: ${(error as Error).message}`;
  }
  const out: Array<{ id: string; exemplar: PlanExemplar }> = [];
  for (const h of hits) {
    const exemplar = exemplarOf({ hit: h });
    if (!exemplar || out.length >= options.k) continue;
    out.push({ id: h.id, exemplar });
    memory?.retrieved.push({ id: h.id, action: h.action, distance: h.distance });
  }
  return out;
}

function failedResolution(
  base: Resolution,
  names: readonly string[],
  error: Resolution["failure"],
): Resolution {
  return {
    ...base,
    failed: [...names],
    ...(error ? { failure: error } : {}),
    notes: [...base.notes, `no usable shielding plan (${error?.code}): ${error?.message}`],
  };
}

/** Resolves the open predicates by a shielding plan (see the module comment). */
export async function planOpenPredicates(options: {
  site: Omit<PlanSite, "values">;
  store: Store | undefined;
  memoryK: number;
  policy: string;
  predicates: readonly Predicate[];
  /** All predicates of the policy, by name (descriptions for the prompt). */
  byName: ReadonlyMap<string, Predicate>;
  rules: readonly ShieldRule[];
  selection: {
    relevant: ReadonlySet<string>;
    circuitActions: readonly string[];
    rules: readonly ShieldRule[];
  };
  values: StepValues;
  query: string;
}): Promise<Resolution> {
  const { site, selection, values } = options;
  const toAssign = predicatesToPlan({
    predicates: options.predicates,
    rules: options.rules,
    open: values.open,
    relevant: selection.relevant,
  });
  const cost: Cost = { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 };
  const base: Resolution = {
    values,
    questions: [],
    keys: {},
    skipped: [],
    failed: [],
    asked: 0,
    notes: [],
    cost,
  };
  if (toAssign.length === 0) return base;
  const memory: MemoryTrace | undefined = options.store
    ? { retrieved: [], reusedAnswers: {}, skipped: {}, askedAfterAll: [], stored: [] }
    : undefined;
  const exemplars = await exemplarsFor({
    store: options.store,
    policy: options.policy,
    actions: selection.circuitActions,
    query: options.query,
    k: options.memoryK,
    memory,
  });
  const prompt = renderPlanPrompt({
    input: site.input,
    steps: site.steps,
    index: site.index,
    rules: promptRules({ selected: selection.rules, rules: options.rules, toAssign }),
    predicates: options.byName,
    values: values.values,
    toAssign,
    detectors: site.detectors.names(),
    exemplars: exemplars.map((e) => e.exemplar),
  });
  const written = await writeShieldingPlan({
    model: site.model,
    prompt,
    ...(site.signal ? { signal: site.signal } : {}),
  });
  const planned: Resolution = {
    ...base,
    asked: toAssign.length,
    cost: addCost(cost, written.usage),
    ...(memory ? { memory } : {}),
  };
  if (!written.plan) return failedResolution(planned, toAssign, written.error);
  const detectors = site.detectors.names();
  const checked = checkPlan({ plan: written.plan, toAssign, detectors });
  if ("error" in checked) return failedResolution(planned, toAssign, checked.error);
  const run = await runShieldingPlan({ site: { ...site, values: values.values }, steps: checked.steps });
  const answers: Record<string, { value: boolean; by: AnswerSource }> = {};
  for (const [name, value] of Object.entries(run.answers)) answers[name] = { value, by: "model" };
  const operations: Record<string, ShieldOperation> = {};
  for (const [name, s] of checked.steps) operations[name] = s.operation;
  return {
    ...planned,
    values: withAnswers({ values, answers }),
    cost: addCost(planned.cost, run.usage),
    failed: run.failed,
    ...(run.failure ? { failure: run.failure } : {}),
    notes: [
      ...run.notes,
      ...(run.unknown.length > 0 ? [`the plan could not tell: ${run.unknown.join(", ")}`] : []),
    ],
    planned: { steps: [...checked.steps.values()], operations, exemplars: exemplars.map((e) => e.id) },
  };
}
