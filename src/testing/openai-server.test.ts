import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { streamText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelServer, RespondArgs } from "./model-server-common.js";
import { startOpenAIServer } from "./openai-server.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("startOpenAIServer", () => {
  it("streams a reply over SSE with usage, as the AI SDK reads it", async () => {
    const seen: RespondArgs[] = [];
    server = await startOpenAIServer({
      respond: (args) => {
        seen.push(args);
        return "one two three four";
      },
    });
    const provider = createOpenAI({ apiKey: "k", baseURL: server.url });
    const result = streamText({
      model: provider.chat("gpt-test"),
      system: "sys prompt",
      prompt: "hello",
      maxRetries: 0,
    });
    expect(await result.text).toBe("one two three four");
    const usage = await result.usage;
    expect(usage.inputTokens).toBe(3);
    expect(usage.outputTokens).toBe(4);
    expect(seen[0]).toMatchObject({
      model: "gpt-test",
      index: 0,
      messages: [
        { role: "system", content: "sys prompt" },
        { role: "user", content: "hello" },
      ],
    });
    expect(server.requests[0]?.stream).toBe(true);
  });

  it("streams through the OpenAI-compatible client too", async () => {
    server = await startOpenAIServer({ respond: () => "fine" });
    const provider = createOpenAICompatible({ name: "x", baseURL: server.url, includeUsage: true });
    const result = streamText({ model: provider.chatModel("m"), prompt: "hi", maxRetries: 0 });
    expect(await result.text).toBe("fine");
    expect((await result.usage).outputTokens).toBe(1);
  });

  it("lists models and answers unknown routes with an OpenAI-shaped 404", async () => {
    server = await startOpenAIServer({ respond: () => "", models: ["a", "b"] });
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(["a", "b"]);
    const missing = await fetch(`${server.url}/nothing`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain("/v1/nothing");
    expect(server.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /v1/models",
      "POST /v1/nothing",
    ]);
  });

  it("closes promptly while a delayed reply is pending", { timeout: 10_000 }, async () => {
    server = await startOpenAIServer({ respond: () => ({ delayMs: 60_000, text: "late" }) });
    const pending = fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }),
    }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close();
    server = undefined;
    expect(await pending).toBeInstanceOf(Error);
  });
});
