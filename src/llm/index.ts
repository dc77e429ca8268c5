/**
 * The model layer: parse a "provider:model-id" spec, build a counted, time-limited, retrying client for
 * it (OpenAI, Anthropic, OpenAI-compatible servers, Ollama, local GGUF), optionally recorded to or
 * replayed from a cassette.
 */
export type { BackendReply, BackendRequest, ModelBackend } from "./backend.js";
export {
  CASSETTE_MODES,
  type Cassette,
  type CassetteEntry,
  type CassetteMode,
  type CassetteOptions,
  openCassette,
} from "./cassette.js";
export { type CountedClientOptions, createCountedClient } from "./counted-client.js";
export { type CreateModelClientOptions, createModelClient } from "./create-model-client.js";
export { extractJson, type JsonExtraction } from "./json-extract.js";
export type { LocalModelOptions } from "./local-llama.js";
export type {
  GenerateObjectOptions,
  GenerateTextOptions,
  ModelCallResult,
  ModelClient,
  ModelMessage,
  ModelStats,
  ModelUsage,
} from "./model.js";
export { MODEL_PROVIDERS, type ModelProvider, type ModelSpec, parseModelSpec } from "./model-spec.js";
