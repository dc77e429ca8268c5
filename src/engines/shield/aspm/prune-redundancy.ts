/**
 * Redundancy Pruning (ShieldAgent §3.2.3): predicates of the same kind that look alike (similarity at
 * or above the threshold, or the very same binding) are grouped, and the model decides per group
 * whether they mean the same; a merge keeps one predicate (one of the group's names), rewrites every
 * formula that used the others, and drops them. Rules that have become identical (same formula, effect
 * and check) are then merged without a model call, keeping the first and citing every source. A group
 * the model judged distinct is not asked again.
 */
import type { Predicate } from "../../../core/policy.js";
import type { ModelClient } from "../../../llm/model.js";
import { ruleAtoms } from "../circuits/rule-atoms.js";
import type { DetectorRegistry } from "../detectors/registry.js";
import { type AspmDraft, type AspmLogEntry, renameInFormula } from "./aspm-draft.js";
import { MERGE_SYSTEM, mergePrompt } from "./aspm-prompts.js";
import { bindingProblems, MergeSchema } from "./aspm-schemas.js";
import { askStructured, budgetLeft, type ModelBudget } from "./budgeted-model.js";
import type { SimilarityIndex } from "./predicate-similarity.js";

/** Groups of look-alike predicates (same kind), each sorted by policy order. */
export function similarGroups(options: {
  predicates: readonly Predicate[];
  similarity: SimilarityIndex;
  threshold: number;
}): Predicate[][] {
  const { predicates, similarity } = options;
  const index = new Map(similarity.names.map((n, i) => [n, i] as const));
  const parent = predicates.map((_, i) => i);
  const find = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r]!;
    return r;
  };
  for (let i = 0; i < predicates.length; i += 1)
    for (let j = i + 1; j < predicates.length; j += 1) {
      const a = predicates[i]!;
      const b = predicates[j]!;
      if (a.kind !== b.kind) continue;
      const sim = similarity.matrix[index.get(a.name)!]![index.get(b.name)!] as number;
      const sameBinding = a.binding !== undefined && JSON.stringify(a.binding) === JSON.stringify(b.binding);
      if (sim >= options.threshold || sameBinding) parent[find(j)] = find(i);
    }
  const groups = new Map<number, Predicate[]>();
  predicates.forEach((p, i) => {
    groups.set(find(i), [...(groups.get(find(i)) ?? []), p]);
  });
  return [...groups.values()].filter((g) => g.length > 1);
}

export async function pruneRedundancy(options: {
  model: ModelClient;
  budget: ModelBudget;
  draft: AspmDraft & { record(entry: AspmLogEntry): void };
  detectors: DetectorRegistry;
  similarity: SimilarityIndex;
  threshold: number;
  /** Group keys the model already judged distinct. */
  judged: Set<string>;
  signal?: AbortSignal;
}): Promise<number> {
  const { draft } = options;
  let changes = 0;
  const groups = similarGroups({
    predicates: [...draft.predicates.values()],
    similarity: options.similarity,
    threshold: options.threshold,
  });
  for (const group of groups) {
    const key = group
      .map((p) => p.name)
      .sort()
      .join("+");
    if (options.judged.has(key)) continue;
    if (budgetLeft({ budget: options.budget }) < 1) break;
    if (group.some((p) => !draft.predicates.has(p.name))) continue;
    const uses: Record<string, string[]> = {};
    for (const r of draft.rules)
      for (const a of ruleAtoms({ rule: r })) uses[a] = [...(uses[a] ?? []), `${r.id}: ${r.formula}`];
    const names = new Set(group.map((p) => p.name));
    const kind = group[0]!.kind;
    const answer = await askStructured({
      model: options.model,
      budget: options.budget,
      system: MERGE_SYSTEM,
      prompt: mergePrompt({ predicates: group, uses }),
      schema: MergeSchema,
      schemaName: "merge",
      purpose: "aspm-redundancy-pruning",
      check: (a) => {
        if (!a.merge) return [];
        if (!a.keep) return ['"merge" is true: give the predicate to keep in "keep"'];
        const problems: string[] = [];
        if (!names.has(a.keep.name)) problems.push(`keep.name must be one of ${[...names].join(", ")}`);
        problems.push(...bindingProblems({ predicate: { ...a.keep, kind }, detectors: options.detectors }));
        return problems;
      },
      onRepair: ({ problems, attempt }) =>
        draft.record({
          step: "re-ask",
          target: key,
          change: `merge re-asked (${attempt})`,
          why: problems.join("; "),
        }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!answer.ok) {
      options.judged.add(key);
      draft.record({
        step: "give-up",
        target: key,
        change: "merge abandoned; predicates kept",
        why: answer.reason,
      });
      continue;
    }
    const a = answer.value;
    if (!a.merge || !a.keep) {
      options.judged.add(key);
      draft.record({ step: "redundancy-pruning", target: key, change: "kept apart", why: a.reason });
      continue;
    }
    const keep = a.keep;
    const before = group.map((p) => ({ ...p }));
    const kept: Predicate = {
      ...draft.predicates.get(keep.name)!,
      description: keep.description,
      binding: keep.binding,
    };
    draft.predicates.set(keep.name, kept);
    const renames = new Map<string, string>();
    for (const p of group) if (p.name !== keep.name) renames.set(p.name, keep.name);
    for (const old of renames.keys()) draft.predicates.delete(old);
    for (const r of draft.rules) {
      if (!ruleAtoms({ rule: r }).some((x) => renames.has(x))) continue;
      const formula = renameInFormula({ formula: r.formula, names: renames });
      draft.record({
        step: "redundancy-pruning",
        target: r.id,
        change: "formula rewritten",
        why: `merged ${[...renames.keys()].join(", ")} into ${keep.name}`,
        before: r.formula,
        after: formula,
      });
      r.formula = formula;
    }
    changes += 1;
    draft.record({
      step: "redundancy-pruning",
      target: keep.name,
      change: `merged ${group.length} predicates`,
      why: a.reason,
      before,
      after: kept,
    });
  }
  // Rules that now say the same thing.
  const seen = new Map<string, number>();
  for (let i = 0; i < draft.rules.length; i += 1) {
    const r = draft.rules[i]!;
    const key = JSON.stringify([r.formula, r.effect, r.check, r.scope ?? null]);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, i);
      continue;
    }
    const keep = draft.rules[first]!;
    if (r.source && r.source !== keep.source)
      keep.source = `${keep.source ?? ""}; also ${r.source}`.replace(/^; /, "");
    draft.rules.splice(i, 1);
    i -= 1;
    changes += 1;
    draft.record({
      step: "redundancy-pruning",
      target: r.id,
      change: `duplicate of ${keep.id} removed`,
      why: "same formula, effect and check",
      before: { id: r.id, formula: r.formula, description: r.description },
      after: { id: keep.id },
    });
  }
  return changes;
}
