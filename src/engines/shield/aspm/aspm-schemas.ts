/**
 * What the model must answer at each ASPM building step (zod; the model layer re-asks on schema
 * errors), and the semantic checks zod cannot express, whose messages are sent back to the model:
 * formulas must parse, every atom must be a declared predicate, a predicate may not change kind,
 * condition fields must be step facts, detectors must exist and accept their parameters.
 */
import { z } from "zod";
import { conditionFields } from "../../../core/condition.js";
import { BindingSchema, type Predicate } from "../../../core/policy.js";
import { buildStepFacts } from "../assign/step-facts.js";
import type { DetectorRegistry } from "../detectors/registry.js";
import { atoms, parseLtl } from "../ltl/index.js";

export const ModelPredicateSchema = z.object({
  name: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, "predicate names are lower-case identifiers like deletes_file"),
  kind: z.enum(["action", "state"]),
  description: z.string().min(1),
  binding: BindingSchema,
});
export type ModelPredicate = z.output<typeof ModelPredicateSchema>;

export const ModelRuleSchema = z.object({
  description: z.string().min(1),
  formula: z.string().min(1),
  type: z.enum(["action", "physical"]),
  effect: z.enum(["deny", "ask"]).default("deny"),
  countermeasure: z.string().min(1),
});
export type ModelRule = z.output<typeof ModelRuleSchema>;

export const PolicyExtractionSchema = z.object({
  policies: z.array(
    z.object({
      definitions: z.array(z.object({ term: z.string().min(1), definition: z.string().min(1) })).default([]),
      scope: z.string().default(""),
      description: z.string().min(1),
      reference: z.string().default(""),
    }),
  ),
});
export type PolicyExtraction = z.output<typeof PolicyExtractionSchema>;

export const RuleExtractionSchema = z.object({
  predicates: z.array(ModelPredicateSchema),
  rules: z.array(ModelRuleSchema),
  /** Why no rule, when the clause holds nothing verifiable. */
  note: z.string().optional(),
});
export type RuleExtraction = z.output<typeof RuleExtractionSchema>;

export const RefinementSchema = z.object({
  changed: z.boolean(),
  reason: z.string().min(1),
  predicates: z.array(ModelPredicateSchema).default([]),
  rules: z.array(ModelRuleSchema).default([]),
});
export type Refinement = z.output<typeof RefinementSchema>;

export const MergeSchema = z.object({
  merge: z.boolean(),
  reason: z.string().min(1),
  keep: ModelPredicateSchema.omit({ kind: true }).optional(),
});
export type Merge = z.output<typeof MergeSchema>;

/** Fields of the step facts a condition may read (src/engines/shield/assign/step-facts.ts). */
export const STEP_FACT_FIELDS: Readonly<Record<string, string>> = {
  actionType:
    "canonical action: click, fill, select_option, press, goto, send_msg_to_user, answer, ... or the tool name",
  action: "the action as logged",
  args: "tool-call arguments or action parameters (args.<name>)",
  elementText: "visible text of the element acted on",
  selector: "CSS selector of the element",
  typed: "the value typed or selected (input actions)",
  message: "text of a message to the user or a final answer",
  targetUrl: "where a goto navigates",
  url: "page URL",
  page: "page URL parts: page.host, page.base (host+path+fragment)",
  target: "navigation target parts: target.host, target.base",
  isInput: "true for fill/select_option/press",
  isOutput: "true for send_msg_to_user/goto/answer",
  argsText: "every argument value, newline-joined",
  text: "element text + arguments: what the step touched",
  observation: "what the agent saw (page text, tool result)",
  thought: "the agent's own reasoning",
  input: "the task given to the agent",
  context: "structured facts of the caller (context.<name>)",
  value: "value as logged",
  element: "element as logged",
  bid: "element id",
  selectors: "every selector of the element",
  index: "0-based step number",
  meta: "extra logged facts (meta.<name>)",
};

const probe = buildStepFacts({
  step: {
    action: "click",
    args: {},
    element: "Save",
    url: "https://example.test/a",
    observation: "<p>ok</p>",
  },
  index: 0,
  input: "",
});

/** Problems of one predicate's binding (empty when fine). */
export function bindingProblems(options: {
  predicate: ModelPredicate;
  detectors: DetectorRegistry;
}): string[] {
  const { predicate: p, detectors } = options;
  const out: string[] = [];
  const b = p.binding;
  if (b.kind === "condition" || b.kind === "history") {
    for (const field of conditionFields(b.when)) {
      const root = field.split(".")[0]!;
      if (!(root in STEP_FACT_FIELDS)) {
        out.push(
          `predicate ${p.name}: condition field "${field}" is not a step fact (use one of: ${Object.keys(STEP_FACT_FIELDS).join(", ")})`,
        );
      }
    }
  } else if (b.kind === "detector") {
    const d = detectors.get({ name: b.detector });
    if (!d)
      out.push(
        `predicate ${p.name}: there is no detector "${b.detector}" (available: ${detectors.names().join(", ")})`,
      );
    else {
      try {
        d.detect({ facts: probe, params: b.params ?? {}, field: b.field });
      } catch (error) {
        out.push(
          `predicate ${p.name}: detector "${b.detector}" rejects its params: ${(error as Error).message}`,
        );
      }
    }
  }
  return out;
}

/**
 * Problems of a set of rules with the predicates they introduce, against the predicates already in the
 * model (`known`): the messages the model is re-asked with.
 */
export function ruleSetProblems(options: {
  predicates: readonly ModelPredicate[];
  rules: ReadonlyArray<Pick<ModelRule, "formula">>;
  known: ReadonlyMap<string, Predicate>;
  detectors: DetectorRegistry;
}): string[] {
  const problems: string[] = [];
  const declared = new Map<string, ModelPredicate>();
  for (const p of options.predicates) {
    const before = options.known.get(p.name);
    if (before && before.kind !== p.kind) {
      problems.push(
        `predicate ${p.name} already exists as a ${before.kind} predicate ("${before.description}"): reuse it as such or choose another name`,
      );
    }
    if (declared.has(p.name)) problems.push(`predicate ${p.name} is declared twice`);
    declared.set(p.name, p);
    problems.push(...bindingProblems({ predicate: p, detectors: options.detectors }));
  }
  options.rules.forEach((r, i) => {
    let names: string[];
    try {
      names = atoms({ ast: parseLtl({ formula: r.formula }) });
    } catch (error) {
      problems.push(`rules[${i}].formula "${r.formula}" does not parse: ${(error as Error).message}`);
      return;
    }
    const missing = names.filter((n) => !declared.has(n) && !options.known.has(n));
    if (missing.length > 0) {
      problems.push(
        `rules[${i}].formula uses ${missing.map((m) => `"${m}"`).join(", ")}, which ${missing.length === 1 ? "is" : "are"} not declared: declare ${missing.length === 1 ? "it" : "them"} in "predicates"`,
      );
    }
  });
  return problems;
}
