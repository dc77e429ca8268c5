import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
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

  it("scripts tool calls through a multi-step generateText loop, seeing the results sent back", async () => {
    const seen: RespondArgs[] = [];
    server = await startOpenAIServer({
      respond: (args) => {
        seen.push(args);
        if (args.index === 0) {
          return { toolCalls: [{ name: "weather", arguments: { city: "Oslo" } }] };
        }
        const result = args.messages.at(-1)?.toolResults?.[0]?.content ?? "none";
        return `It is ${result} there.`;
      },
    });
    const ran: unknown[] = [];
    const provider = createOpenAI({ apiKey: "k", baseURL: server.url });
    const result = await generateText({
      model: provider.chat("gpt-test"),
      prompt: "Weather in Oslo?",
      tools: {
        weather: tool({
          inputSchema: z.object({ city: z.string() }),
          execute: async (input) => {
            ran.push(input);
            return "cold";
          },
        }),
      },
      stopWhen: stepCountIs(4),
      maxRetries: 0,
    });
    expect(ran).toEqual([{ city: "Oslo" }]);
    expect(result.steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(result.text).toBe("It is cold there.");
    expect(seen[1]?.messages.at(-2)?.toolCalls).toEqual([
      { id: "call_0_0", name: "weather", arguments: '{"city":"Oslo"}' },
    ]);
    expect(seen[1]?.messages.at(-1)).toMatchObject({
      role: "tool",
      toolResults: [{ toolCallId: "call_0_0" }],
    });
  });

  it("streams scripted tool calls (with text before them) as the OpenAI-compatible client reads them", async () => {
    server = await startOpenAIServer({
      respond: ({ index }) =>
        index === 0
          ? {
              text: "Looking it up.",
              toolCalls: [
                { name: "lookup", arguments: { q: "a" } },
                { name: "lookup", arguments: { q: "b" }, id: "mine" },
              ],
            }
          : "done",
    });
    const ran: unknown[] = [];
    const provider = createOpenAICompatible({ name: "x", baseURL: server.url, includeUsage: true });
    const result = streamText({
      model: provider.chatModel("m"),
      prompt: "go",
      tools: {
        lookup: tool({
          inputSchema: z.object({ q: z.string() }),
          execute: async (input) => {
            ran.push(input);
            return input.q.toUpperCase();
          },
        }),
      },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(await result.text).toBe("done");
    const steps = await result.steps;
    expect(steps[0]?.text).toBe("Looking it up.");
    expect(steps[0]?.toolCalls.map((c) => [c.toolCallId, c.input])).toEqual([
      ["call_0_0", { q: "a" }],
      ["mine", { q: "b" }],
    ]);
    expect(ran).toEqual([{ q: "a" }, { q: "b" }]);
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
