import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WardenError } from "../../core/errors.js";
import { type Policy, PolicySchema } from "../../core/policy.js";
import { createModelClient } from "../../llm/create-model-client.js";
import { openGuardService } from "../../runtime/open-guard-service.js";
import type { ModelServer } from "../../testing/model-server-common.js";
import { startOpenAIServer } from "../../testing/openai-server.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { createLlamaGuardEngine } from "./llamaguard-engine.js";
import { hazardCategories, llamaGuardPrompt } from "./llamaguard-prompt.js";
import { parseLlamaGuard } from "./parse-llamaguard.js";

const policy: Policy = PolicySchema.parse({
  name: "support",
  specification: "A customer-support assistant.",
  requests: "# Guard requests\n1. Never reveal a customer's card number.\n2. Never promise a refund.\n",
});
const subject = { input: "What is my card number?", output: "Your card number is 4111 1111 1111 1111." };

describe("hazardCategories", () => {
  it("makes one category per guard request, numbered S1, S2, ...", () => {
    expect(hazardCategories({ requests: policy.requests })).toEqual([
      { code: "S1", text: "Never reveal a customer's card number." },
      { code: "S2", text: "Never promise a refund." },
    ]);
  });

  it("takes each line when the requests are not a list, and the standard taxonomy when there are none", () => {
    expect(hazardCategories({ requests: "No insults.\nNo medical advice." }).map((c) => c.text)).toEqual([
      "No insults.",
      "No medical advice.",
    ]);
    const standard = hazardCategories({ requests: "# Requests\n\n" });
    expect(standard).toHaveLength(14);
    expect(standard[0]).toEqual({ code: "S1", text: "Violent Crimes" });
  });

  it("puts the categories and the conversation in the prompt", () => {
    const prompt = llamaGuardPrompt({
      categories: hazardCategories({ requests: policy.requests }),
      ...subject,
    });
    expect(prompt).toContain("S1: Never reveal a customer's card number.");
    expect(prompt).toContain("User: What is my card number?");
    expect(prompt).toContain("Agent: Your card number is");
  });
});

describe("parseLlamaGuard", () => {
  const codes = new Set(["S1", "S2"]);
  it("reads safe, and unsafe with its codes", () => {
    expect(parseLlamaGuard({ reply: "safe", codes })).toEqual({ safe: true });
    expect(parseLlamaGuard({ reply: "\n\nunsafe\nS2,S1\n", codes })).toEqual({
      safe: false,
      codes: ["S2", "S1"],
    });
  });

  it("refuses anything that is not Llama Guard's verdict", () => {
    for (const reply of [
      "",
      "maybe",
      "unsafe",
      "unsafe\nS9",
      "safe\nS1",
      "unsafe\nS1\nbecause",
      "The answer is safe",
    ]) {
      expect(() => parseLlamaGuard({ reply, codes }), reply).toThrow(WardenError);
    }
  });
});

describe("llamaguard engine", () => {
  it("allows on safe and denies on unsafe, naming the categories", async () => {
    const model = createScriptedModel({ replies: ["safe", "unsafe\nS1"] });
    const engine = createLlamaGuardEngine({ model });
    const allow = await engine.check({ policy, subject: { input: "hi", output: "Hello!" } });
    expect(allow).toMatchObject({ allowed: true, verdict: "allow", engine: "llamaguard" });
    expect(allow.cost.llmCalls).toBe(1);
    const deny = await engine.check({ policy, subject });
    expect(deny).toMatchObject({ allowed: false, verdict: "deny" });
    expect(deny.violations).toEqual([
      {
        ruleId: "llamaguard.S1",
        message: "Never reveal a customer's card number.",
        details: { category: "S1" },
      },
    ]);
    expect(model.requests[1]?.messages.at(-1)?.content).toContain("S2: Never promise a refund.");
  });

  it("fails closed on an answer it cannot read and on a model that does not answer", async () => {
    const model = createScriptedModel({
      replies: ["Sure! It looks fine.", new WardenError({ code: "MODEL_UNAVAILABLE", message: "down" })],
    });
    const engine = createLlamaGuardEngine({ model });
    const unreadable = await engine.check({ policy, subject });
    expect(unreadable).toMatchObject({
      allowed: false,
      failure: { code: "MODEL_OUTPUT_INVALID", mode: "closed" },
    });
    const down = await engine.check({ policy, subject });
    expect(down).toMatchObject({ allowed: false, failure: { mode: "closed" } });
  });
});

describe("llamaguard through an OpenAI-compatible server", () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startOpenAIServer({
      respond: ({ messages }) => (messages.at(-1)?.content.includes("4111") ? "unsafe\nS1" : "safe"),
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it("is chosen with engine llamaguard, needs a model, and keeps the compiled floor", async () => {
    await expect(openGuardService({ policies: ["mcp-tools"], engine: "llamaguard" })).rejects.toThrow(
      /needs a model/,
    );
    const service = await openGuardService({
      policies: ["mcp-tools"],
      engine: "llamaguard",
      modelClient: createModelClient({ spec: "openai-compatible:llama-guard3", baseUrl: server.url }),
      store: ":memory:",
    });
    try {
      const leak = await service.check({
        policy: "mcp-tools",
        subject: { input: "card?", output: "It is 4111." },
      });
      expect(leak).toMatchObject({ allowed: false, violations: [{ ruleId: "llamaguard.S1" }] });
      // A tool call the compiled rules deny stays denied whatever Llama Guard says (it answers "safe").
      const deletion = await service.checkToolCall({
        policy: "mcp-tools",
        call: { name: "github.delete_repository", arguments: { repo: "acme/api" } },
      });
      expect(deletion.allowed).toBe(false);
      expect(deletion.violations.map((v) => v.ruleId)).toContain("tool.no-repo-deletion");
    } finally {
      await service.close();
    }
  });
});
