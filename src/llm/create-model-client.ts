/**
 * The one way to get a ModelClient from configuration: a "provider:model-id" spec plus optional base
 * URL, key, limits and cassette. Keys come from the environment when not given; keyless local servers
 * get a placeholder key. Nothing touches the network or loads a model until the first call.
 */
import { z } from "zod";
import { WardenError } from "../core/errors.js";
import { parseWith } from "../core/validate.js";
import { createAiSdkBackend, type NetworkProvider } from "./ai-sdk-backend.js";
import type { ModelBackend } from "./backend.js";
import { CASSETTE_MODES, type CassetteOptions, openCassette } from "./cassette.js";
import { createCountedClient } from "./counted-client.js";
import { createLocalLlamaBackend, type LocalModelOptions } from "./local-llama.js";
import type { ModelClient } from "./model.js";
import { type ModelSpec, parseModelSpec } from "./model-spec.js";

export interface CreateModelClientOptions {
  /** "provider:model-id": openai, anthropic, openai-compatible, ollama or local (a .gguf path). */
  spec: string;
  /** Server address; required for openai-compatible (or WARDEN_BASE_URL in the environment). */
  baseUrl?: string;
  /** Defaults to OPENAI_API_KEY / ANTHROPIC_API_KEY / WARDEN_API_KEY from `env`. */
  apiKey?: string;
  /** Time limit of each provider request, ms (default 60000). */
  timeoutMs?: number;
  /** Retries on network errors, 429 and 5xx (default 2; local models never retry). */
  maxRetries?: number;
  /** First retry delay, doubled each retry (default 500 ms). */
  retryDelayMs?: number;
  cassette?: CassetteOptions;
  /** Where keys and base URLs are read from; defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Embedding model for `embed` (default: text-embedding-3-small for openai, the chat model otherwise). */
  embeddingModel?: string;
  /** Settings of local GGUF models. */
  local?: LocalModelOptions;
}

const OptionsSchema = z.object({
  spec: z.string({ error: "spec must be a string like openai:gpt-4o" }),
  baseUrl: z.string().optional(),
  apiKey: z.string().optional(),
  timeoutMs: z.number().int().positive().max(3_600_000).optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  retryDelayMs: z.number().int().min(0).max(60_000).optional(),
  cassette: z
    .object({
      path: z.string().min(1),
      mode: z.enum(CASSETTE_MODES),
    })
    .optional(),
  env: z.record(z.string(), z.string().optional()).optional(),
  embeddingModel: z.string().min(1).optional(),
  local: z
    .object({
      contextSize: z.number().int().min(256).max(1_048_576).optional(),
      threads: z.number().int().min(1).max(1024).optional(),
      defaultMaxOutputTokens: z.number().int().positive().optional(),
    })
    .optional(),
});

/** Sent to servers that want no key: the AI SDK clients refuse to run without one. */
const PLACEHOLDER_KEY = "not-needed";

const KEY_VARIABLES: Record<NetworkProvider, string> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  "openai-compatible": "WARDEN_API_KEY",
  ollama: "WARDEN_API_KEY",
};

const BASE_URL_VARIABLES: Record<NetworkProvider, string | undefined> = {
  openai: "OPENAI_BASE_URL",
  anthropic: "ANTHROPIC_BASE_URL",
  "openai-compatible": "WARDEN_BASE_URL",
  ollama: undefined,
};

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

export function createModelClient(options: CreateModelClientOptions): ModelClient {
  const parsed = parseWith({
    schema: OptionsSchema,
    value: options,
    what: "model options",
    code: "MODEL_CONFIG",
  });
  const env = parsed.env ?? process.env;
  // Which variable holds the base URL depends on the provider; parseModelSpec validates it all after.
  const providerText = parsed.spec.trim().split(":")[0]?.toLowerCase() ?? "";
  const urlVariable = BASE_URL_VARIABLES[providerText as NetworkProvider] as string | undefined;
  const envBaseUrl = urlVariable === undefined ? undefined : nonEmpty(env[urlVariable]);
  const spec: ModelSpec = parseModelSpec({
    spec: parsed.spec,
    baseUrl: nonEmpty(parsed.baseUrl) ?? envBaseUrl,
  });
  const cassette = parsed.cassette ? openCassette(parsed.cassette) : undefined;

  let backend: ModelBackend;
  if (spec.provider === "local") {
    backend = createLocalLlamaBackend({ modelPath: spec.modelId, ...parsed.local });
  } else {
    const networkSpec = spec as ModelSpec & { provider: NetworkProvider };
    const variable = KEY_VARIABLES[networkSpec.provider];
    let apiKey = nonEmpty(parsed.apiKey) ?? nonEmpty(env[variable]);
    if (apiKey === undefined) {
      // The hosted APIs need a key; a self-hosted endpoint or a pure replay does not.
      const hosted = networkSpec.provider === "openai" || networkSpec.provider === "anthropic";
      if (hosted && spec.baseUrl === undefined && cassette?.mode !== "replay") {
        throw new WardenError({
          code: "MODEL_CONFIG",
          message: `No API key for ${spec.id}: set ${variable} or pass apiKey`,
          details: { field: "apiKey", variable },
        });
      }
      apiKey = networkSpec.provider === "ollama" ? "" : PLACEHOLDER_KEY;
    }
    backend = createAiSdkBackend({
      spec: networkSpec,
      baseUrl: spec.baseUrl,
      apiKey,
      embeddingModel: parsed.embeddingModel,
    });
  }

  return createCountedClient({
    id: spec.id,
    backend,
    timeoutMs: parsed.timeoutMs,
    maxRetries: spec.provider === "local" ? 0 : parsed.maxRetries,
    retryDelayMs: parsed.retryDelayMs,
    cassette,
  });
}
