/**
 * The model contract every engine talks to. Implementations wrap AI SDK providers, a local GGUF model
 * or a cassette; each call is counted (queries, tokens, latency), bounded in time and retried a bounded
 * number of times. Failures surface as WardenError (MODEL_UNAVAILABLE, MODEL_TIMEOUT,
 * MODEL_OUTPUT_INVALID, CASSETTE_MISS) which engines turn into fail-closed Decisions.
 */
import type { z } from "zod";

export interface ModelMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface GenerateTextOptions {
  system?: string;
  /** A single user prompt; or use `messages`. */
  prompt?: string;
  messages?: ModelMessage[];
  maxOutputTokens?: number;
  /** Defaults to 0: guard decisions should be reproducible. */
  temperature?: number;
  signal?: AbortSignal;
  /** What the call is for ("plan", "code", "debug", "baseline", "compile"...): accounting and cassettes. */
  purpose?: string;
}

export interface GenerateObjectOptions<T> extends GenerateTextOptions {
  schema: z.ZodType<T>;
  schemaName?: string;
  schemaDescription?: string;
  /** How many times to re-ask with the validation errors when the answer does not fit (default 2). */
  maxRepairs?: number;
}

export interface ModelCallResult {
  text: string;
  usage: ModelUsage;
  /** Latency of the call (all retries and repairs included). */
  ms: number;
  /** Number of provider requests this call made (retries and repairs included). */
  requests: number;
  /** True when the answer came from a cassette rather than the provider. */
  replayed?: boolean;
}

export interface ModelStats {
  calls: number;
  requests: number;
  failures: number;
  inputTokens: number;
  outputTokens: number;
  totalMs: number;
}

export interface ModelClient {
  /** "provider:model-id", e.g. "openai:gpt-4o" or "local:/models/x.gguf". */
  readonly id: string;
  generateText(options: GenerateTextOptions): Promise<ModelCallResult>;
  generateObject<T>(options: GenerateObjectOptions<T>): Promise<ModelCallResult & { object: T }>;
  /** Embeddings, when the provider offers them (used for vagueness scores); undefined otherwise. */
  embed?(options: {
    values: string[];
    signal?: AbortSignal;
  }): Promise<{ embeddings: number[][]; usage: ModelUsage }>;
  /** Cumulative counters since the client was made. */
  stats(): ModelStats;
  close?(): Promise<void>;
}
