/**
 * Rule extraction (ShieldAgent §3.2.2): each clause becomes typed predicates with bindings and LTLf
 * rules that cite the clause. The model sees the predicates already in the model so it can reuse
 * them; its answer is re-asked while a formula does not parse, uses an undeclared predicate, changes a
 * predicate's kind or binds it to something that does not exist. After the bounded re-asks the
 * clause is given up with the reason logged — the build goes on with the other clauses.
 */
import type { Clause } from "../../../core/policy.js";
import type { ModelClient } from "../../../llm/model.js";
import type { DetectorRegistry } from "../detectors/registry.js";
import { type AspmDraft, type AspmLogEntry, predicateFromModel, ruleFromModel } from "./aspm-draft.js";
import { ruleExtractionPrompt, ruleExtractionSystem } from "./aspm-prompts.js";
import { RuleExtractionSchema, ruleSetProblems } from "./aspm-schemas.js";
import { askStructured, type ModelBudget } from "./budgeted-model.js";

export async function extractRules(options: {
  model: ModelClient;
  budget: ModelBudget;
  clause: Clause;
  draft: AspmDraft & { record(entry: AspmLogEntry): void };
  detectors: DetectorRegistry;
  semanticRepairs?: number;
  signal?: AbortSignal;
}): Promise<number> {
  const { clause, draft, detectors } = options;
  const answer = await askStructured({
    model: options.model,
    budget: options.budget,
    system: ruleExtractionSystem({ detectors }),
    prompt: ruleExtractionPrompt({ clause, known: [...draft.predicates.values()] }),
    schema: RuleExtractionSchema,
    schemaName: "rules",
    purpose: "aspm-rule-extraction",
    check: (v) =>
      ruleSetProblems({ predicates: v.predicates, rules: v.rules, known: draft.predicates, detectors }),
    ...(options.semanticRepairs !== undefined ? { semanticRepairs: options.semanticRepairs } : {}),
    onRepair: ({ problems, attempt }) =>
      draft.record({
        step: "re-ask",
        target: clause.id,
        change: `rule extraction re-asked (${attempt})`,
        why: problems.join("; "),
      }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!answer.ok) {
    draft.record({
      step: "give-up",
      target: clause.id,
      change: "no rules for this clause",
      why: answer.reason,
    });
    return 0;
  }
  const source = `${clause.reference ?? clause.id}: ${clause.text}`;
  for (const p of answer.value.predicates) {
    const existing = draft.predicates.get(p.name);
    if (existing) {
      draft.record({
        step: "rule-extraction",
        target: p.name,
        change: "existing predicate reused",
        why: `clause ${clause.id} uses the same predicate; the first definition is kept`,
      });
      continue;
    }
    draft.predicates.set(p.name, predicateFromModel({ predicate: p, source }));
  }
  answer.value.rules.forEach((r, k) => {
    const rule = ruleFromModel({ rule: r, id: `${clause.id}.r${k + 1}`, clause, source });
    draft.rules.push(rule);
    draft.record({
      step: "rule-extraction",
      target: rule.id,
      change: "rule extracted",
      why: `from clause ${clause.id}`,
      after: { formula: rule.formula, description: rule.description, type: rule.type, check: rule.check },
    });
  });
  if (answer.value.rules.length === 0) {
    draft.record({
      step: "rule-extraction",
      target: clause.id,
      change: "no rule",
      why: answer.value.note ?? "the model found nothing verifiable in the clause",
    });
  }
  return answer.value.rules.length;
}
