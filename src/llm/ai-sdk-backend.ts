/**
 * The network transports, all through the AI SDK: OpenAI (chat completions, so any OpenAI-compatible
 * endpoint behaves the same), Anthropic, generic OpenAI-compatible servers and native Ollama. Each
 * request is made once (AI SDK retries off); the counted client owns retries and accounting.
 *
 * The AI SDK and its providers are optional peer dependencies: a compiled check never needs them, so they
 * are imported on the first request (the backend's `prepare`), and a missing one is a MISSING_DEPENDENCY
 * error naming the package to install. Only types are imported statically (erased at build time).
 */
import type { EmbeddingModel, LanguageModel } from "ai";
import { importOptional } from "../core/optional-import.js";
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

/** Loads one package of the AI SDK; tests pass one that fails to stand for a package not installed. */
export interface AiSdkLoaders {
  ai: () => Promise<typeof import("ai")>;
  openai: () => Promise<typeof import("@ai-sdk/openai")>;
  anthropic: () => Promise<typeof import("@ai-sdk/anthropic")>;
  "openai-compatible": () => Promise<typeof import("@ai-sdk/openai-compatible")>;
  ollama: () => Promise<typeof import("ollama-ai-provider-v2")>;
}

/** Literal import() calls, so a bundler sees each package name and keeps it external. */
export const AI_SDK_LOADERS: AiSdkLoaders = {
  ai: () => import("ai"),
  openai: () => import("@ai-sdk/openai"),
  anthropic: () => import("@ai-sdk/anthropic"),
  "openai-compatible": () => import("@ai-sdk/openai-compatible"),
  ollama: () => import("ollama-ai-provider-v2"),
};

/** The provider package each network provider needs beside `ai`. */
export const PROVIDER_PACKAGES: Readonly<Record<NetworkProvider, string>> = {
  openai: "@ai-sdk/openai",
  anthropic: "@ai-sdk/anthropic",
  "openai-compatible": "@ai-sdk/openai-compatible",
  ollama: "ollama-ai-provider-v2",
};

export interface AiSdkBackendOptions {
  spec: ModelSpec & { provider: NetworkProvider };
  /** Resolved base URL (required for openai-compatible). */
  baseUrl?: string;
  /** Empty for ollama unless a proxy in front of it wants one. */
  apiKey: string;
  /** Model id for `embed`; ignored for anthropic (no embeddings). */
  embeddingModel?: string;
  /** How the AI SDK packages are loaded (default AI_SDK_LOADERS). */
  loaders?: Partial<AiSdkLoaders>;
}

/** Ollama's native API lives under /api; accept the bare host users usually give. */
function ollamaBaseUrl(baseUrl: string | undefined): string {
  if (baseUrl === undefined) return DEFAULT_BASE_URLS.ollama;
  return /\/api$/.test(baseUrl) ? baseUrl : `${baseUrl}/api`;
}

/** What a request needs, built once the packages are loaded. */
interface Loaded {
  generateText: typeof import("ai")["generateText"];
  embedMany: typeof import("ai")["embedMany"];
  model: LanguageModel;
  embedder?: EmbeddingModel;
}

/** Where requests go and which model embeds: known from the spec alone, before anything is loaded. */
interface Plan {
  endpoint: string;
  embeddingModelId?: string;
}

function planFor(options: AiSdkBackendOptions): Plan {
  const { spec } = options;
  switch (spec.provider) {
    case "openai":
      return {
        endpoint: options.baseUrl ?? DEFAULT_BASE_URLS.openai,
        embeddingModelId: options.embeddingModel ?? DEFAULT_OPENAI_EMBEDDING_MODEL,
      };
    case "anthropic":
      return { endpoint: options.baseUrl ?? DEFAULT_BASE_URLS.anthropic };
    case "openai-compatible":
      return { endpoint: options.baseUrl ?? "", embeddingModelId: options.embeddingModel ?? spec.modelId };
    case "ollama":
      return {
        endpoint: ollamaBaseUrl(options.baseUrl),
        embeddingModelId: options.embeddingModel ?? spec.modelId,
      };
  }
}

/** The chat and embedding models of the provider package, configured for this endpoint and key. */
function modelsFor(options: {
  spec: AiSdkBackendOptions["spec"];
  apiKey: string;
  plan: Plan;
  provider: unknown;
}): Pick<Loaded, "model" | "embedder"> {
  const { spec, apiKey, plan } = options;
  const embeddingId = plan.embeddingModelId ?? spec.modelId;
  switch (spec.provider) {
    case "openai": {
      const { createOpenAI } = options.provider as typeof import("@ai-sdk/openai");
      const provider = createOpenAI({ apiKey, baseURL: plan.endpoint });
      return { model: provider.chat(spec.modelId), embedder: provider.embedding(embeddingId) };
    }
    case "anthropic": {
      const { createAnthropic } = options.provider as typeof import("@ai-sdk/anthropic");
      return { model: createAnthropic({ apiKey, baseURL: plan.endpoint })(spec.modelId) };
    }
    case "openai-compatible": {
      const { createOpenAICompatible } = options.provider as typeof import("@ai-sdk/openai-compatible");
      const provider = createOpenAICompatible({
        name: "openai-compatible",
        baseURL: plan.endpoint,
        apiKey,
        includeUsage: true,
      });
      return { model: provider.chatModel(spec.modelId), embedder: provider.embeddingModel(embeddingId) };
    }
    case "ollama": {
      const { createOllama } = options.provider as typeof import("ollama-ai-provider-v2");
      // Native Ollama has no keys; a key given is sent as a bearer token for Ollama behind a proxy.
      const provider = createOllama({
        baseURL: plan.endpoint,
        ...(apiKey ? { headers: { Authorization: `Bearer ${apiKey}` } } : {}),
      });
      return { model: provider(spec.modelId), embedder: provider.embeddingModel(embeddingId) };
    }
  }
}

/** Imports `ai` and the provider package, or fails with MISSING_DEPENDENCY naming the one absent. */
async function loadAiSdk(options: { backend: AiSdkBackendOptions; plan: Plan }): Promise<Loaded> {
  const { spec, apiKey } = options.backend;
  const loaders = { ...AI_SDK_LOADERS, ...options.backend.loaders };
  const providerPackage = PROVIDER_PACKAGES[spec.provider];
  const feature = `${spec.provider}: models`;
  const ai = await importOptional({
    packageName: "ai",
    feature,
    companions: [providerPackage],
    load: loaders.ai,
  });
  const provider = await importOptional<unknown>({
    packageName: providerPackage,
    feature,
    companions: ["ai"],
    load: loaders[spec.provider],
  });
  const models = modelsFor({ spec, apiKey, plan: options.plan, provider });
  return { generateText: ai.generateText, embedMany: ai.embedMany, ...models };
}

export function createAiSdkBackend(options: AiSdkBackendOptions): ModelBackend {
  const { spec } = options;
  const plan = planFor(options);
  const { endpoint } = plan;
  let loading: Promise<Loaded> | undefined;
  const load = (): Promise<Loaded> => {
    loading ??= loadAiSdk({ backend: options, plan });
    // A package installed while the process runs is picked up by the next request.
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };

  // Anthropic requires max_tokens and the SDK would otherwise ask for the model's maximum (64k+).
  const defaultMaxOutputTokens =
    spec.provider === "anthropic" ? DEFAULT_ANTHROPIC_MAX_OUTPUT_TOKENS : undefined;
  const complete: ModelBackend["complete"] = async (request) => {
    const { generateText, model } = await load();
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
  const prepare = async () => {
    await load();
  };
  if (plan.embeddingModelId === undefined) return { endpoint, prepare, complete };
  return {
    endpoint,
    prepare,
    complete,
    embeddingModelId: `${spec.provider}:${plan.embeddingModelId}`,
    maxEmbeddingBatch: 256,
    async embed(request) {
      const { embedMany, embedder } = await load();
      if (!embedder) throw new Error(`${spec.provider} has no embedding model`);
      const result = await embedMany({
        model: embedder,
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
