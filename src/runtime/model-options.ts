/**
 * Model configuration shared by the CLI, the server and the benchmark: "provider:model-id", base URL,
 * time limit, cassette — validated once, turned into a ModelClient by the model layer. The model layer
 * (and the AI SDK behind it) is imported only when a model is configured, so commands and services
 * that run without one never load it.
 */
import { z } from "zod";
import { CASSETTE_MODES } from "../llm/cassette-modes.js";
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
export async function modelFromOptions(options: ModelOptions): Promise<ModelClient | undefined> {
  if (!options.model) return undefined;
  const { createModelClient } = await import("../llm/create-model-client.js");
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
