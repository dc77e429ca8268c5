/**
 * Parses the "provider:model-id" strings users write on the command line and in config files into a
 * typed spec, so every mistake (unknown provider, empty id, a compatible server without a base URL) is
 * caught once, with a message that says what to write instead.
 */
import { WardenError } from "../core/errors.js";

export const MODEL_PROVIDERS = ["openai", "anthropic", "openai-compatible", "ollama", "local"] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export interface ModelSpec {
  provider: ModelProvider;
  /** The provider's model id; for `local` the path of the GGUF file. */
  modelId: string;
  /** "provider:model-id", the form accounting, cassettes and messages use. */
  id: string;
  /** The server's base URL when one was given (required for openai-compatible). */
  baseUrl?: string;
}

const EXAMPLES =
  'e.g. "openai:gpt-4o", "anthropic:claude-sonnet-4-5", "openai-compatible:qwen2.5-7b-instruct" (with a base URL), "ollama:llama3.1:8b" or "local:/models/model.gguf"';

function configError(message: string, details: Record<string, unknown>): WardenError {
  return new WardenError({ code: "MODEL_CONFIG", message, details });
}

/** Checks a base URL is an absolute http(s) URL and drops trailing slashes so paths join cleanly. */
export function normalizeBaseUrl(options: { baseUrl: string; field?: string }): string {
  const field = options.field ?? "baseUrl";
  const raw = options.baseUrl.trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw configError(
      `${field} "${options.baseUrl}" is not a valid URL (expected e.g. http://127.0.0.1:8000/v1)`,
      {
        field,
      },
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw configError(`${field} "${options.baseUrl}" must use http or https`, { field });
  }
  return raw.replace(/\/+$/, "");
}

/**
 * Splits on the first colon only: Ollama tags ("llama3.1:8b") and Windows paths ("local:C:\\m.gguf")
 * keep their own colons.
 */
export function parseModelSpec(options: { spec: string; baseUrl?: string }): ModelSpec {
  const spec = typeof options.spec === "string" ? options.spec.trim() : "";
  if (spec === "") {
    throw configError(`The model spec is empty: write "provider:model-id", ${EXAMPLES}`, { field: "spec" });
  }
  const colon = spec.indexOf(":");
  if (colon < 0) {
    throw configError(`The model spec "${spec}" names no provider: write "provider:model-id", ${EXAMPLES}`, {
      field: "spec",
      spec,
    });
  }
  const providerText = spec.slice(0, colon).trim().toLowerCase();
  const modelId = spec.slice(colon + 1).trim();
  if (!(MODEL_PROVIDERS as readonly string[]).includes(providerText)) {
    throw configError(
      `Unknown model provider "${providerText}" in "${spec}": use one of ${MODEL_PROVIDERS.join(", ")} (${EXAMPLES})`,
      { field: "spec", spec, provider: providerText },
    );
  }
  const provider = providerText as ModelProvider;
  if (modelId === "") {
    throw configError(`The model spec "${spec}" has an empty model id after "${provider}:"`, {
      field: "spec",
      spec,
    });
  }
  if (provider === "local" && !modelId.toLowerCase().endsWith(".gguf")) {
    throw configError(
      `A local model must be a GGUF file path ("local:/path/to/model.gguf"), got "${modelId}"`,
      {
        field: "spec",
        spec,
      },
    );
  }
  const baseUrl =
    options.baseUrl === undefined || options.baseUrl.trim() === ""
      ? undefined
      : normalizeBaseUrl({ baseUrl: options.baseUrl });
  if (provider === "openai-compatible" && baseUrl === undefined) {
    throw configError(
      `The model "${spec}" needs a base URL: an OpenAI-compatible server has no default address (e.g. http://127.0.0.1:8000/v1 for vLLM, http://127.0.0.1:11434/v1 for Ollama, http://127.0.0.1:8080/v1 for llama.cpp)`,
      { field: "baseUrl", spec },
    );
  }
  if (provider === "local" && baseUrl !== undefined) {
    throw configError(`A local model ("${spec}") runs in-process and takes no base URL`, {
      field: "baseUrl",
      spec,
    });
  }
  const result: ModelSpec = { provider, modelId, id: `${provider}:${modelId}` };
  if (baseUrl !== undefined) result.baseUrl = baseUrl;
  return result;
}
