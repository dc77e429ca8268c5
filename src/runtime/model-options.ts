/**
 * Model configuration shared by the CLI, the server and the benchmark: "provider:model-id", base URL,
 * time limit, cassette — validated once, turned into a ModelClient by the model layer.
 */
import { z } from "zod";
import { CASSETTE_MODES } from "../llm/cassette.js";
import { createModelClient } from "../llm/create-model-client.js";
import type { ModelClient } from "../llm/model.js";

export const ModelOptionsSchema = z.object({
  model: z.string().min(1).optional(),
  baseUrl: z.string().min(1).optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  cassette: z.string().min(1).optional(),
  cassetteMode: z.enum(CASSETTE_MODES).optional(),
});
export type ModelOptions = z.output<typeof ModelOptionsSchema>;

/** A client when a model is configured, undefined otherwise. */
export function modelFromOptions(options: ModelOptions): ModelClient | undefined {
  if (!options.model) return undefined;
  return createModelClient({
    spec: options.model,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.cassette
      ? { cassette: { path: options.cassette, mode: options.cassetteMode ?? "auto" } }
      : {}),
  });
}
