/**
 * What a model transport must do: answer one request, once. Retries, time limits, cassettes,
 * structured-output repair and accounting live in the counted client on top, so every transport (AI SDK
 * providers, the local GGUF runtime, the scripted test model) behaves and counts the same way.
 */
import type { ModelMessage, ModelUsage } from "./model.js";
import type { JsonSchemaObject } from "./structured-output.js";

export interface BackendRequest {
  system?: string;
  /** Never starts with a system message: leading system turns are folded into `system`. */
  messages: ModelMessage[];
  maxOutputTokens?: number;
  temperature: number;
  /** Fires on the caller's abort and on the per-request time limit. */
  signal: AbortSignal;
  purpose?: string;
  /** Set for structured calls; a backend with `constrainedJson` decodes under this schema. */
  jsonSchema?: JsonSchemaObject;
}

export interface BackendReply {
  text: string;
  usage: ModelUsage;
}

export interface BackendEmbedRequest {
  values: string[];
  signal: AbortSignal;
}

export interface BackendEmbedReply {
  embeddings: number[][];
  usage: ModelUsage;
}

export interface ModelBackend {
  /** Where requests go, for error messages: a base URL, a file path, "scripted". */
  readonly endpoint: string;
  /** True when `complete` enforces `jsonSchema` during decoding (grammar-constrained local models). */
  readonly constrainedJson?: boolean;
  /** Model id used for embeddings (cassette keys); defaults to the chat model's id. */
  readonly embeddingModelId?: string;
  /** Most values one embedding request may carry; the client splits larger calls into batches. */
  readonly maxEmbeddingBatch?: number;
  /** Loads what requests need (a local model file) before the first one, outside the per-request time limit. */
  prepare?(): Promise<void>;
  complete(request: BackendRequest): Promise<BackendReply>;
  /** One provider request for one batch of values. */
  embed?(request: BackendEmbedRequest): Promise<BackendEmbedReply>;
  close?(): Promise<void>;
}
