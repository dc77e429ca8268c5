import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { WardenError } from "../core/errors.js";
import { createAiSdkBackend, type NetworkProvider, PROVIDER_PACKAGES } from "./ai-sdk-backend.js";
import { createCountedClient } from "./counted-client.js";
import { parseModelSpec } from "./model-spec.js";
import { isApiCallError, statusOf } from "./provider-errors.js";

/** What Node throws for `import("pkg")` when pkg is not installed. */
function absent(name: string): () => Promise<never> {
  return () =>
    Promise.reject(
      Object.assign(new Error(`Cannot find package '${name}' imported from /app/dist/index.js`), {
        code: "ERR_MODULE_NOT_FOUND",
      }),
    );
}

function clientWithout(options: { provider: NetworkProvider; missing: "ai" | "provider" }) {
  const { provider, missing } = options;
  const spec = parseModelSpec({
    spec: `${provider}:m`,
    ...(provider === "openai-compatible" ? { baseUrl: "http://127.0.0.1:9/v1" } : {}),
  }) as ReturnType<typeof parseModelSpec> & { provider: NetworkProvider };
  const loaders =
    missing === "ai" ? { ai: absent("ai") } : { [provider]: absent(PROVIDER_PACKAGES[provider]) };
  const backend = createAiSdkBackend({ spec, apiKey: "k", baseUrl: spec.baseUrl, loaders });
  return createCountedClient({ id: spec.id, backend, maxRetries: 2, retryDelayMs: 0 });
}

async function failure(promise: Promise<unknown>): Promise<WardenError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WardenError);
  return error as WardenError;
}

describe("AI SDK packages are optional", () => {
  it.each(["openai", "anthropic", "openai-compatible", "ollama"] as const)(
    "%s without its provider package fails with MISSING_DEPENDENCY naming it",
    async (provider) => {
      const model = clientWithout({ provider, missing: "provider" });
      const error = await failure(model.generateText({ prompt: "hi" }));
      const pkg = PROVIDER_PACKAGES[provider];
      expect(error.code).toBe("MISSING_DEPENDENCY");
      expect(error.details).toMatchObject({ package: pkg, install: `npm install ai ${pkg}` });
      expect(error.message).toContain(`${provider}: models need the optional package ${pkg}`);
    },
  );

  it("without `ai` names `ai`, for text and embeddings alike, and is not retried", async () => {
    const model = clientWithout({ provider: "openai", missing: "ai" });
    const text = await failure(model.generateText({ prompt: "hi" }));
    expect(text).toMatchObject({ code: "MISSING_DEPENDENCY", details: { package: "ai" } });
    expect(model.stats().requests).toBe(0);
    const embed = await failure(model.embed?.({ values: ["a"] }) ?? Promise.resolve());
    expect(embed).toMatchObject({ code: "MISSING_DEPENDENCY", details: { package: "ai" } });
  });

  it("creating the client loads nothing: the packages are imported at the first request", () => {
    expect(() => clientWithout({ provider: "anthropic", missing: "ai" })).not.toThrow();
  });
});

describe("isApiCallError", () => {
  it("recognises the AI SDK's APICallError as APICallError.isInstance does, without importing it", () => {
    const error = new APICallError({
      message: "Too Many Requests",
      url: "http://x",
      requestBodyValues: {},
      statusCode: 429,
    });
    expect(isApiCallError(error)).toBe(APICallError.isInstance(error));
    expect(isApiCallError(error)).toBe(true);
    expect(statusOf(error)).toBe(429);
    for (const other of [new Error("x"), null, undefined, "APICallError", { statusCode: 500 }]) {
      expect(isApiCallError(other)).toBe(APICallError.isInstance(other));
      expect(isApiCallError(other)).toBe(false);
    }
  });
});
