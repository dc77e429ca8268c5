/**
 * Task text -> rule categories by asking a model, for when the lexicon classifier is not confident
 * (or a policy's categories are outside its vocabulary). One structured call; the answer is checked
 * against the rules (unknown rule ids are dropped and lower the confidence) and reported in the same
 * shape as the lexicon classifier, with what the call cost. Model failures surface as the model
 * layer's WardenErrors, which engines turn into fail-closed decisions.
 */
import { z } from "zod";
import type { Cost } from "../../../../core/decision.js";
import { toWardenError } from "../../../../core/errors.js";
import { type AttributeRule, AttributeRuleSchema } from "../../../../core/policy.js";
import { parseWith } from "../../../../core/validate.js";
import type { ModelClient } from "../../../../llm/model.js";
import type { CategoryMatch, ClassifyResult, Confidence } from "./types.js";

const LEVEL = z.enum(["high", "medium", "low"]);

export const ModelClassificationSchema = z.object({
  categories: z
    .array(
      z.object({
        ruleId: z.string().describe("id of a rule whose action the task performs"),
        confidence: LEVEL,
        evidence: z.string().describe("the words of the task that show it"),
      }),
    )
    .describe("every rule whose action the task performs; empty when none does (Other)"),
  confidence: LEVEL.describe("how sure you are of the whole answer"),
  reason: z.string(),
});
export type ModelClassification = z.output<typeof ModelClassificationSchema>;

const SYSTEM = [
  "You decide which safety rules apply to a task a user gave to a web agent.",
  "Each rule covers one kind of action, described in its own words. A rule applies when carrying out the",
  "task means performing that action (searching, browsing or comparing counts when the rule's action",
  "says so). A word that only looks related does not make a rule apply: a car seat is not a car, a book",
  "about flights is not booking a flight, a restaurant near a hotel is not a hotel stay.",
  "A task can fall under several rules, or under none (answer an empty list).",
  "Answer only with rule ids from the list.",
].join("\n");

function renderRule(rule: AttributeRule): string {
  const parts = [`- id: ${rule.id}`, `  category: ${rule.category}`, `  action: ${rule.description}`];
  if (rule.keywords.length > 0) parts.push(`  also signalled by: ${rule.keywords.join(", ")}`);
  if (rule.exclude.length > 0) parts.push(`  does not cover: ${rule.exclude.join(", ")}`);
  return parts.join("\n");
}

const SCORE: Record<z.output<typeof LEVEL>, number> = { high: 1, medium: 0.6, low: 0.3 };

export interface ModelClassifyResult extends ClassifyResult {
  model: string;
  cost: Cost;
}

export async function classifyWithModel(options: {
  model: ModelClient;
  rules: readonly z.input<typeof AttributeRuleSchema>[];
  text: string;
  signal?: AbortSignal;
}): Promise<ModelClassifyResult> {
  const rules = parseWith({
    schema: z.array(AttributeRuleSchema).min(1),
    value: options.rules,
    what: "attribute rules",
    path: "rules",
  });
  const text = parseWith({ schema: z.string(), value: options.text, what: "task text", path: "text" });
  const zero: Cost = { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 };
  if (text.trim() === "") {
    return {
      categories: [],
      nearMisses: [],
      confidence: "none",
      reason: "no task text to classify",
      model: options.model.id,
      cost: zero,
    };
  }

  const prompt = `Rules:\n${rules.map(renderRule).join("\n")}\n\nTask: ${text}`;
  let answer: Awaited<ReturnType<ModelClient["generateObject"]>> & { object: ModelClassification };
  try {
    answer = await options.model.generateObject({
      system: SYSTEM,
      prompt,
      schema: ModelClassificationSchema,
      schemaName: "task_categories",
      temperature: 0,
      purpose: "classify",
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    throw toWardenError({
      error,
      code: "MODEL_UNAVAILABLE",
      message: "task classification by the model failed",
    });
  }

  const byId = new Map(rules.map((r) => [r.id, r]));
  const categories: CategoryMatch[] = [];
  const unknown: string[] = [];
  for (const c of answer.object.categories) {
    const rule = byId.get(c.ruleId);
    if (!rule) {
      unknown.push(c.ruleId);
      continue;
    }
    if (categories.some((m) => m.ruleId === rule.id)) continue;
    categories.push({
      ruleId: rule.id,
      category: rule.category,
      score: SCORE[c.confidence],
      strength: c.confidence === "high" ? "strong" : "medium",
      evidence: [`model: ${c.evidence}`],
    });
  }
  categories.sort((a, b) => b.score - a.score);
  let confidence: Confidence = answer.object.confidence;
  const reasons = [answer.object.reason];
  if (unknown.length > 0) {
    confidence = "low";
    reasons.push(`the model named rules that do not exist: ${unknown.join(", ")}`);
  }
  return {
    categories,
    nearMisses: [],
    confidence,
    reason: reasons.join("; "),
    model: options.model.id,
    cost: {
      llmCalls: 1,
      inputTokens: answer.usage.inputTokens,
      outputTokens: answer.usage.outputTokens,
      ms: answer.ms,
    },
  };
}
