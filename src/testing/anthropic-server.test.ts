import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startAnthropicServer } from "./anthropic-server.js";
import type { ModelServer, RespondArgs } from "./model-server-common.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("startAnthropicServer", () => {
  it("streams a Messages reply with usage, the system prompt first for respond", async () => {
    const seen: RespondArgs[] = [];
    server = await startAnthropicServer({
      respond: (args) => {
        seen.push(args);
        return "alpha beta gamma";
      },
    });
    const provider = createAnthropic({ apiKey: "k", baseURL: server.url });
    const result = streamText({
      model: provider("claude-sonnet-4-5"),
      system: "be safe",
      prompt: "go",
      maxRetries: 0,
    });
    expect(await result.text).toBe("alpha beta gamma");
    const usage = await result.usage;
    expect(usage.inputTokens).toBe(3);
    expect(usage.outputTokens).toBe(3);
    expect(seen[0]?.messages).toEqual([
      { role: "system", content: "be safe" },
      { role: "user", content: "go" },
    ]);
  });

  for (const stream of [false, true]) {
    it(`scripts tool_use blocks through a multi-step loop (${stream ? "streaming" : "plain"})`, async () => {
      const seen: RespondArgs[] = [];
      server = await startAnthropicServer({
        respond: (args) => {
          seen.push(args);
          return args.index === 0
            ? { text: "Checking.", toolCalls: [{ name: "weather", arguments: { city: "Oslo" } }] }
            : `Result: ${args.messages.at(-1)?.toolResults?.[0]?.content}`;
        },
      });
      const ran: unknown[] = [];
      const provider = createAnthropic({ apiKey: "k", baseURL: server.url });
      const options = {
        model: provider("claude-sonnet-4-5"),
        prompt: "Weather?",
        tools: {
          weather: tool({
            inputSchema: z.object({ city: z.string() }),
            execute: async (input: { city: string }) => {
              ran.push(input);
              return "cold";
            },
          }),
        },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      };
      const text = stream ? await streamText(options).text : (await generateText(options)).text;
      expect(ran).toEqual([{ city: "Oslo" }]);
      expect(text).toBe("Result: cold");
      expect(seen[1]?.messages.at(-2)?.toolCalls).toEqual([
        { id: "call_0_0", name: "weather", arguments: '{"city":"Oslo"}' },
      ]);
    });
  }

  it("sends scripted errors in Anthropic's error shape", async () => {
    server = await startAnthropicServer({ respond: () => ({ status: 529 }) });
    const response = await fetch(`${server.url}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "x" }] }),
    });
    expect(response.status).toBe(529);
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
  });
});
