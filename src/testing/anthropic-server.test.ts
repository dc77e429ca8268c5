import { createAnthropic } from "@ai-sdk/anthropic";
import { streamText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
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
