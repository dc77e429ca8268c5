/**
 * Verifiability Refinement (ShieldAgent §3.2.3): the vaguest rules first (predicate-similarity proxy,
 * predicate-similarity.ts), the model makes each accurate, observable and atomic — or says it already
 * is. A replacement may split the rule (ids <id>.a, <id>.b, ...) and may redefine predicates of the same
 * kind; it is validated like an extraction (parsing formulas, declared predicates) and re-asked within
 * bounds. Each rule is refined at most `maxPerRule` times and a rule the model kept is not asked again,
 * so the stage converges: it has converged when a round finds no rule left to review.
 */
import type { TemporalRule } from "../../../core/policy.js";
import type { ModelClient } from "../../../llm/model.js";
import { ruleAtoms } from "../circuits/rule-atoms.js";
import type { DetectorRegistry } from "../detectors/registry.js";
import {
  type AspmDraft,
  type AspmLogEntry,
  clauseOf,
  predicateFromModel,
  ruleFromModel,
} from "./aspm-draft.js";
import { refinementPrompt, refinementSystem } from "./aspm-prompts.js";
import { RefinementSchema, ruleSetProblems } from "./aspm-schemas.js";
import { askStructured, budgetLeft, type ModelBudget } from "./budgeted-model.js";
import { ruleVagueness } from "./predicate-similarity.js";

export interface RefinementMemory {
  /** Rules the model kept as they are. */
  settled: Set<string>;
  /** How many times each rule (or its ancestor) was rewritten. */
  rewrites: Map<string, number>;
}

export async function refineVerifiability(options: {
  model: ModelClient;
  budget: ModelBudget;
  draft: AspmDraft & { record(entry: AspmLogEntry): void };
  detectors: DetectorRegistry;
  vagueness: ReadonlyMap<string, number>;
  memory: RefinementMemory;
  perRound?: number;
  maxPerRule?: number;
  signal?: AbortSignal;
}): Promise<{ changes: number; reviewed: number }> {
  const { draft, memory, detectors } = options;
  const perRound = options.perRound ?? 3;
  const maxPerRule = options.maxPerRule ?? 2;
  const scored = draft.rules
    .filter((r) => !memory.settled.has(r.id) && (memory.rewrites.get(r.id) ?? 0) < maxPerRule)
    .map((r, order) => ({
      r,
      order,
      v: ruleVagueness({ atoms: ruleAtoms({ rule: r }), vagueness: options.vagueness }),
    }))
    .sort((a, b) => b.v - a.v || a.order - b.order)
    .slice(0, perRound);
  let changes = 0;
  let reviewed = 0;
  for (const { r, v } of scored) {
    if (budgetLeft({ budget: options.budget }) < 1) break;
    const index = draft.rules.findIndex((x) => x.id === r.id);
    if (index < 0) continue;
    const predicates = ruleAtoms({ rule: r })
      .map((a) => draft.predicates.get(a))
      .filter((p) => p !== undefined);
    const clause = clauseOf({ draft, rule: r });
    reviewed += 1;
    const answer = await askStructured({
      model: options.model,
      budget: options.budget,
      system: refinementSystem({ detectors }),
      prompt: refinementPrompt({ rule: r, clause, predicates, vagueness: v }),
      schema: RefinementSchema,
      schemaName: "refinement",
      purpose: "aspm-verifiability-refinement",
      check: (a) =>
        a.changed
          ? [
              ...(a.rules.length === 0
                ? ['"changed" is true but "rules" is empty: give the replacement rules']
                : []),
              ...ruleSetProblems({
                predicates: a.predicates,
                rules: a.rules,
                known: draft.predicates,
                detectors,
              }),
            ]
          : [],
      onRepair: ({ problems, attempt }) =>
        draft.record({
          step: "re-ask",
          target: r.id,
          change: `refinement re-asked (${attempt})`,
          why: problems.join("; "),
        }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!answer.ok) {
      memory.settled.add(r.id);
      draft.record({
        step: "give-up",
        target: r.id,
        change: "refinement abandoned; rule kept",
        why: answer.reason,
      });
      continue;
    }
    const a = answer.value;
    if (!a.changed) {
      memory.settled.add(r.id);
      draft.record({ step: "verifiability-refinement", target: r.id, change: "kept", why: a.reason });
      continue;
    }
    for (const p of a.predicates) {
      const before = draft.predicates.get(p.name);
      const after = predicateFromModel({ predicate: p, source: before?.source ?? r.source ?? "" });
      if (
        before &&
        JSON.stringify([before.description, before.binding]) ===
          JSON.stringify([after.description, after.binding])
      )
        continue;
      draft.predicates.set(p.name, after);
      draft.record({
        step: "verifiability-refinement",
        target: p.name,
        change: before ? "predicate redefined" : "predicate added",
        why: a.reason,
        ...(before ? { before } : {}),
        after,
      });
    }
    const generation = (memory.rewrites.get(r.id) ?? 0) + 1;
    const replacements: TemporalRule[] = a.rules.map((m, k) => {
      const id =
        a.rules.length === 1 ? r.id : `${r.id}.${String.fromCharCode(97 + (k % 26))}${k >= 26 ? k : ""}`;
      const next = ruleFromModel({
        rule: m,
        id,
        clause,
        ...(r.source !== undefined ? { source: r.source } : {}),
      });
      memory.rewrites.set(id, generation);
      return next;
    });
    draft.rules.splice(index, 1, ...replacements);
    changes += 1;
    draft.record({
      step: "verifiability-refinement",
      target: r.id,
      change: replacements.length === 1 ? "rule rewritten" : `rule split into ${replacements.length}`,
      why: a.reason,
      before: { formula: r.formula, description: r.description },
      after: replacements.map((x) => ({ id: x.id, formula: x.formula, description: x.description })),
    });
  }
  return { changes, reviewed };
}
