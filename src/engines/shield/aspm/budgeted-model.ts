/**
 * Model calls of the ASPM builder under a budget counted in provider requests (schema re-asks by the
 * model layer included), with bounded semantic re-asks: an answer that validates but fails a check
 * the schema cannot express (a formula that does not parse, an undeclared predicate) is sent back with
 * the problems, at most `semanticRepairs` times. Nothing here throws for a model problem: the caller
 * gets a reason and decides (the builder gives up on that clause and logs why).
 */
import type { z } from "zod";
import { toWardenError } from "../../../core/errors.js";
import type { ModelClient, ModelMessage } from "../../../llm/model.js";
import { semanticRepairMessage } from "./aspm-prompts.js";

export interface ModelBudget {
  readonly limit: number;
  used: number;
}

export type AskResult<T> =
  | { ok: true; value: T; requests: number }
  | { ok: false; reason: string; requests: number };

export function budgetLeft(options: { budget: ModelBudget }): number {
  return Math.max(0, options.budget.limit - options.budget.used);
}

export async function askStructured<T>(options: {
  model: ModelClient;
  budget: ModelBudget;
  system: string;
  prompt: string;
  schema: z.ZodType<T>;
  schemaName: string;
  purpose: string;
  /** Semantic problems of a schema-valid answer (empty = usable). */
  check?: (value: T) => string[];
  semanticRepairs?: number;
  /** Called before each semantic re-ask. */
  onRepair?: (options: { problems: string[]; attempt: number }) => void;
  signal?: AbortSignal;
}): Promise<AskResult<T>> {
  const { model, budget } = options;
  const repairs = options.semanticRepairs ?? 2;
  const messages: ModelMessage[] = [{ role: "user", content: options.prompt }];
  let requests = 0;
  let lastProblems: string[] = [];
  for (let attempt = 0; attempt <= repairs; attempt += 1) {
    const left = budgetLeft({ budget });
    if (left < 1) return { ok: false, reason: "the model-call budget is spent", requests };
    const before = model.stats().requests;
    try {
      const r = await model.generateObject({
        system: options.system,
        messages: [...messages],
        schema: options.schema,
        schemaName: options.schemaName,
        purpose: options.purpose,
        temperature: 0,
        maxRepairs: Math.max(0, Math.min(2, left - 1)),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const spent = Math.max(r.requests, model.stats().requests - before);
      budget.used += spent;
      requests += spent;
      lastProblems = options.check?.(r.object) ?? [];
      if (lastProblems.length === 0) return { ok: true, value: r.object, requests };
      if (attempt === repairs) break;
      options.onRepair?.({ problems: lastProblems, attempt: attempt + 1 });
      messages.push({ role: "assistant", content: r.text });
      messages.push({ role: "user", content: semanticRepairMessage({ problems: lastProblems }) });
    } catch (error) {
      const spent = Math.max(1, model.stats().requests - before);
      budget.used += spent;
      requests += spent;
      const e = toWardenError({ error });
      return { ok: false, reason: `${e.code}: ${e.message}`, requests };
    }
  }
  return {
    ok: false,
    reason: `still unusable after ${repairs} re-asks: ${lastProblems.join("; ")}`,
    requests,
  };
}
