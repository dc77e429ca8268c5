import { streamText } from "ai";
import { createOllama } from "ollama-ai-provider-v2";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelServer } from "./model-server-common.js";
import { startOllamaServer } from "./ollama-server.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("startOllamaServer", () => {
  it("streams /api/chat as NDJSON with Ollama's counts", async () => {
    server = await startOllamaServer({ respond: ({ messages }) => `echo: ${messages.at(-1)?.content}` });
    const result = streamText({
      model: createOllama({ baseURL: server.url })("llama3"),
      prompt: "a b",
      maxRetries: 0,
    });
    expect(await result.text).toBe("echo: a b");
    const usage = await result.usage;
    expect(usage.inputTokens).toBe(2);
    expect(usage.outputTokens).toBe(3);
  });

  it("lists models at /api/tags", async () => {
    server = await startOllamaServer({ respond: () => "", models: ["llama3:8b"] });
    const tags = (await (await fetch(`${server.url}/tags`)).json()) as { models: { name: string }[] };
    expect(tags.models.map((m) => m.name)).toEqual(["llama3:8b"]);
  });
});
