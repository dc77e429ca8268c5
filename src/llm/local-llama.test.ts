import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { WardenError } from "../core/errors.js";
import { createModelClient } from "./create-model-client.js";
import { createLocalLlamaBackend } from "./local-llama.js";
import type { ModelClient } from "./model.js";

// Random-weights plumbing model (see /work/shared/models/PROVENANCE.md): its text means nothing.
const MODEL = join(process.cwd(), "..", "shared", "models", "llama-2-tiny-random.gguf");
const hasPackage = await import("node-llama-cpp").then(
  () => true,
  () => false,
);
const missing = !hasPackage
  ? "node-llama-cpp is not installed"
  : !existsSync(MODEL)
    ? `${MODEL} is absent`
    : "";
if (missing) console.warn(`Skipping local GGUF tests: ${missing}`);

async function failure(promise: Promise<unknown>): Promise<WardenError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WardenError);
    return error as WardenError;
  }
  throw new Error("expected the call to fail");
}

describe.skipIf(missing !== "")("local GGUF model", () => {
  let model: ModelClient;
  beforeAll(() => {
    model = createModelClient({ spec: `local:${MODEL}`, local: { contextSize: 2048 } });
  });
  afterAll(async () => {
    await model?.close?.();
  });

  it("loads and answers text, with token counts from the model's tokenizer", async () => {
    const result = await model.generateText({
      system: "You are terse.",
      prompt: "Say hello.",
      maxOutputTokens: 12,
    });
    expect(typeof result.text).toBe("string");
    expect(result.usage.inputTokens).toBeGreaterThan(4);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeLessThanOrEqual(12);
    expect(result.requests).toBe(1);
    expect(model.stats()).toMatchObject({ calls: 1, requests: 1, failures: 0 });
  });

  it("decodes structured calls under the schema's grammar; a bad answer is MODEL_OUTPUT_INVALID", async () => {
    const Verdict = z.object({ allowed: z.boolean(), reason: z.string().max(10) });
    const before = model.stats();
    let text: string;
    try {
      const result = await model.generateObject({
        prompt: "Decide.",
        schema: Verdict,
        maxOutputTokens: 24,
        maxRepairs: 1,
      });
      expect(Verdict.safeParse(result.object).success).toBe(true);
      text = result.text;
    } catch (error) {
      // Random weights: the reason string runs on until maxOutputTokens cuts the JSON off.
      expect(error).toBeInstanceOf(WardenError);
      expect((error as WardenError).code).toBe("MODEL_OUTPUT_INVALID");
      text = String((error as WardenError).details?.lastText);
    }
    // The grammar forces the reply to start as the schema's object.
    expect(text).toMatch(/^\{\s*"allowed"\s*:\s*(true|false)/);
    expect(model.stats().requests - before.requests).toBeGreaterThanOrEqual(1);
  });

  it("stops a long generation at the time limit with MODEL_TIMEOUT", { timeout: 30_000 }, async () => {
    const slow = createModelClient({ spec: `local:${MODEL}`, timeoutMs: 200, local: { contextSize: 4096 } });
    await slow.generateText({ prompt: "Load.", maxOutputTokens: 1 });
    const error = await failure(
      slow.generateText({ prompt: "Write a very long story.", maxOutputTokens: 4000 }),
    );
    expect(error.code).toBe("MODEL_TIMEOUT");
    expect(error.message).toContain("200 ms");
    // close() waits for the generation in flight, so once it returns the prompt has really stopped;
    // the model then serves the next call normally.
    await slow.close?.();
    const next = await model.generateText({ prompt: "Again.", maxOutputTokens: 4 });
    expect(next.usage.outputTokens).toBeLessThanOrEqual(4);
  });

  it("embeds text", async () => {
    const result = await model.embed!({ values: ["alpha", "beta gamma"] });
    expect(result.embeddings).toHaveLength(2);
    expect(result.embeddings[0]?.length).toBeGreaterThan(0);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });

  it("reports a missing model file as MODEL_CONFIG on first use", async () => {
    const absent = createModelClient({ spec: "local:/nonexistent/model.gguf" });
    const error = await failure(absent.generateText({ prompt: "hi" }));
    expect(error.code).toBe("MODEL_CONFIG");
    expect(error.message).toContain("/nonexistent/model.gguf does not exist");
  });
});

describe("local models without node-llama-cpp", () => {
  it("fail with MISSING_DEPENDENCY naming the package and its install command", async () => {
    const backend = createLocalLlamaBackend({
      // Any file that exists: the package is loaded before the model file is read.
      modelPath: join(process.cwd(), "package.json"),
      load: () =>
        Promise.reject(
          Object.assign(new Error("Cannot find package 'node-llama-cpp' imported from /app/dist/x.js"), {
            code: "ERR_MODULE_NOT_FOUND",
          }),
        ),
    });
    const error = await failure(backend.prepare?.() ?? Promise.resolve());
    expect(error).toMatchObject({
      code: "MISSING_DEPENDENCY",
      details: { package: "node-llama-cpp", install: "npm install node-llama-cpp" },
    });
    expect(error.message).toContain("local: models need the optional package node-llama-cpp");
  });
});
