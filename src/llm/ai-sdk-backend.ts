/**
 * The network transports, all through the AI SDK: OpenAI (chat completions, so any OpenAI-compatible
 * endpoint behaves the same), Anthropic, generic OpenAI-compatible servers and native Ollama. Each
 * request is made once (AI SDK retries off); the counted client owns retries and accounting.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { type EmbeddingModel, embedMany, generateText, type LanguageModel } from "ai";
import { createOllama } from "ollama-ai-provider-v2";
import type { ModelBackend } from "./backend.js";
import type { ModelSpec } from "./model-spec.js";

export const DEFAULT_BASE_URLS = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
  ollama: "http://127.0.0.1:11434/api",
} as const;

/** OpenAI's embedding model when the chat model id cannot embed; other providers embed with the same id. */
export const DEFAULT_OPENAI_EMBEDDING_MODEL = "text-embedding-3-small";

export const DEFAULT_ANTHROPIC_MAX_OUTPUT_TOKENS = 4096;

export type NetworkProvider = "openai" | "anthropic" | "openai-compatible" | "ollama";

export interface AiSdkBackendOptions {
  spec: ModelSpec & { provider: NetworkProvider };
  /** Resolved base URL (required for openai-compatible). */
  baseUrl?: string;
  /** Empty for ollama unless a proxy in front of it wants one. */
  apiKey: string;
  /** Model id for `embed`; ignored for anthropic (no embeddings). */
  embeddingModel?: string;
}

/** Ollama's native API lives under /api; accept the bare host users usually give. */
function ollamaBaseUrl(baseUrl: string | undefined): string {
  if (baseUrl === undefined) return DEFAULT_BASE_URLS.ollama;
  return /\/api$/.test(baseUrl) ? baseUrl : `${baseUrl}/api`;
}

export function createAiSdkBackend(options: AiSdkBackendOptions): ModelBackend {
  const { spec, apiKey } = options;
  let endpoint: string;
  let model: LanguageModel;
  let embedder: EmbeddingModel | undefined;
  let embeddingModelId: string | undefined;
  let maxEmbeddingBatch: number | undefined;
  switch (spec.provider) {
    case "openai": {
      endpoint = options.baseUrl ?? DEFAULT_BASE_URLS.openai;
      const provider = createOpenAI({ apiKey, baseURL: endpoint });
      model = provider.chat(spec.modelId);
      embeddingModelId = options.embeddingModel ?? DEFAULT_OPENAI_EMBEDDING_MODEL;
      embedder = provider.embedding(embeddingModelId);
      maxEmbeddingBatch = 256;
      break;
    }
    case "anthropic": {
      endpoint = options.baseUrl ?? DEFAULT_BASE_URLS.anthropic;
      model = createAnthropic({ apiKey, baseURL: endpoint })(spec.modelId);
      break;
    }
    case "openai-compatible": {
      endpoint = options.baseUrl ?? "";
      const provider = createOpenAICompatible({
        name: "openai-compatible",
        baseURL: endpoint,
        apiKey,
        includeUsage: true,
      });
      model = provider.chatModel(spec.modelId);
      embeddingModelId = options.embeddingModel ?? spec.modelId;
      embedder = provider.embeddingModel(embeddingModelId);
      maxEmbeddingBatch = 256;
      break;
    }
    case "ollama": {
      endpoint = ollamaBaseUrl(options.baseUrl);
      // Native Ollama has no keys; a key given is sent as a bearer token for Ollama behind a proxy.
      const provider = createOllama({
        baseURL: endpoint,
        ...(apiKey ? { headers: { Authorization: `Bearer ${apiKey}` } } : {}),
      });
      model = provider(spec.modelId);
      embeddingModelId = options.embeddingModel ?? spec.modelId;
      embedder = provider.embeddingModel(embeddingModelId);
      maxEmbeddingBatch = 256;
      break;
    }
  }

  // Anthropic requires max_tokens and the SDK would otherwise ask for the model's maximum (64k+).
  const defaultMaxOutputTokens =
    spec.provider === "anthropic" ? DEFAULT_ANTHROPIC_MAX_OUTPUT_TOKENS : undefined;
  const complete: ModelBackend["complete"] = async (request) => {
    const result = await generateText({
      model,
      system: request.system,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      maxOutputTokens: request.maxOutputTokens ?? defaultMaxOutputTokens,
      temperature: request.temperature,
      abortSignal: request.signal,
      maxRetries: 0,
      allowSystemInMessages: true,
    });
    return {
      text: result.text,
      usage: { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 },
    };
  };
  if (!embedder) return { endpoint, complete };
  const embeddingModel = embedder;
  return {
    endpoint,
    complete,
    embeddingModelId: `${spec.provider}:${embeddingModelId}`,
    maxEmbeddingBatch,
    async embed(request) {
      const result = await embedMany({
        model: embeddingModel,
        values: request.values,
        maxRetries: 0,
        abortSignal: request.signal,
      });
      return {
        embeddings: result.embeddings,
        usage: { inputTokens: result.usage.tokens ?? 0, outputTokens: 0 },
      };
    },
  };
}
