import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WardenError } from "../core/errors.js";
import { MODEL_PROVIDERS, parseModelSpec } from "./model-spec.js";

function configError(run: () => unknown): WardenError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WardenError);
    expect((error as WardenError).code).toBe("MODEL_CONFIG");
    return error as WardenError;
  }
  throw new Error("expected MODEL_CONFIG");
}

describe("parseModelSpec", () => {
  it("parses each provider", () => {
    expect(parseModelSpec({ spec: "openai:gpt-4o" })).toEqual({
      provider: "openai",
      modelId: "gpt-4o",
      id: "openai:gpt-4o",
    });
    expect(parseModelSpec({ spec: "anthropic:claude-sonnet-4-5" }).provider).toBe("anthropic");
    expect(parseModelSpec({ spec: "openai-compatible:qwen", baseUrl: "http://127.0.0.1:8000/v1/" })).toEqual({
      provider: "openai-compatible",
      modelId: "qwen",
      id: "openai-compatible:qwen",
      baseUrl: "http://127.0.0.1:8000/v1",
    });
    expect(parseModelSpec({ spec: "local:/models/tiny.gguf" })).toMatchObject({
      provider: "local",
      modelId: "/models/tiny.gguf",
    });
  });

  it("keeps colons after the first one (Ollama tags, Windows paths)", () => {
    expect(parseModelSpec({ spec: "ollama:llama3.1:8b" }).modelId).toBe("llama3.1:8b");
    expect(parseModelSpec({ spec: "local:C:\\models\\m.gguf" }).modelId).toBe("C:\\models\\m.gguf");
  });

  it("trims and lower-cases the provider", () => {
    expect(parseModelSpec({ spec: "  OpenAI:gpt-4o " }).id).toBe("openai:gpt-4o");
  });

  it("names the problem", () => {
    expect(configError(() => parseModelSpec({ spec: "" })).message).toMatch(/empty/);
    expect(configError(() => parseModelSpec({ spec: "gpt-4o" })).message).toMatch(/names no provider/);
    expect(configError(() => parseModelSpec({ spec: "gemini:pro" })).message).toMatch(
      /Unknown model provider "gemini"/,
    );
    expect(configError(() => parseModelSpec({ spec: "openai:" })).message).toMatch(/empty model id/);
    expect(configError(() => parseModelSpec({ spec: "openai-compatible:qwen" })).message).toMatch(
      /needs a base URL/,
    );
    expect(configError(() => parseModelSpec({ spec: "local:/models/x.bin" })).message).toMatch(/GGUF/);
    expect(
      configError(() => parseModelSpec({ spec: "openai-compatible:q", baseUrl: "localhost:8000" })).message,
    ).toMatch(/http or https|not a valid URL/);
    expect(
      configError(() => parseModelSpec({ spec: "local:/m.gguf", baseUrl: "http://x" })).details,
    ).toMatchObject({
      field: "baseUrl",
    });
  });

  it("round-trips any provider and non-empty id", () => {
    const id = fc.string({ minLength: 1 }).filter((s) => s.trim() === s && s !== "");
    fc.assert(
      fc.property(fc.constantFrom(...MODEL_PROVIDERS), id, (provider, modelId) => {
        const model = provider === "local" ? `${modelId}.gguf` : modelId;
        const spec = parseModelSpec({
          spec: `${provider}:${model}`,
          baseUrl: provider === "openai-compatible" ? "http://127.0.0.1:1/v1" : undefined,
        });
        return spec.provider === provider && spec.modelId === model && spec.id === `${provider}:${model}`;
      }),
    );
  });
});
