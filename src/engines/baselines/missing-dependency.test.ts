/**
 * A check that needs a model whose provider package is not installed fails closed, exactly as one with no
 * model configured: a deny carrying the failure, never an allow.
 */
import { describe, expect, it } from "vitest";
import { SubjectSchema } from "../../core/subject.js";
import { createAiSdkBackend } from "../../llm/ai-sdk-backend.js";
import { createCountedClient } from "../../llm/counted-client.js";
import type { ModelSpec } from "../../llm/model-spec.js";
import { loadPolicy } from "../../policies/load-policy.js";
import { createModelGuardEngine } from "./model-guard-engine.js";

const spec: ModelSpec & { provider: "openai" } = {
  provider: "openai",
  modelId: "gpt-4o",
  id: "openai:gpt-4o",
};

describe("a model check without the AI SDK installed", () => {
  it("is a fail-closed deny that names the missing package", async () => {
    const backend = createAiSdkBackend({
      spec,
      apiKey: "k",
      loaders: {
        ai: () =>
          Promise.reject(
            Object.assign(new Error("Cannot find package 'ai' imported from /app/dist/index.js"), {
              code: "ERR_MODULE_NOT_FOUND",
            }),
          ),
      },
    });
    const model = createCountedClient({ id: spec.id, backend, maxRetries: 0 });
    const engine = createModelGuardEngine({ model, shots: 0 });
    const decision = await engine.check({
      policy: loadPolicy({ ref: "eicu-ac" }).policy,
      subject: SubjectSchema.parse({ input: "Identity: nursing\nQuestion: q", output: "Answer:\nx" }),
    });
    expect(decision).toMatchObject({
      allowed: false,
      verdict: "deny",
      failure: { code: "MISSING_DEPENDENCY", mode: "closed" },
    });
    expect(decision.failure?.message).toContain("npm install @ai-sdk/openai ai");
  });
});
