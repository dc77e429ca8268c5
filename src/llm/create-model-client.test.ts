import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { WardenError } from "../core/errors.js";
import { startAnthropicServer } from "../testing/anthropic-server.js";
import { hashEmbedding, type ModelServer, type Respond } from "../testing/model-server-common.js";
import { startOllamaServer } from "../testing/ollama-server.js";
import { startOpenAIServer } from "../testing/openai-server.js";
import { createModelClient } from "./create-model-client.js";
import type { ModelClient } from "./model.js";

const servers: ModelServer[] = [];
const clients: ModelClient[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close?.()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function serve(start: (o: { respond: Respond }) => Promise<ModelServer>, respond: Respond) {
  const server = await start({ respond });
  servers.push(server);
  return server;
}

function client(options: Parameters<typeof createModelClient>[0]): ModelClient {
  const made = createModelClient({ env: {}, retryDelayMs: 5, ...options });
  clients.push(made);
  return made;
}

async function failure(promise: Promise<unknown>): Promise<WardenError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WardenError);
    return error as WardenError;
  }
  throw new Error("expected the call to fail");
}

const words = (text: string) => text.trim().split(/\s+/).filter(Boolean).length;

const Verdict = z.object({ allowed: z.boolean(), reasons: z.array(z.string()) });

const PROVIDERS = [
  { provider: "openai", spec: "openai:gpt-4o-mini", start: startOpenAIServer },
  { provider: "anthropic", spec: "anthropic:claude-sonnet-4-5", start: startAnthropicServer },
  { provider: "openai-compatible", spec: "openai-compatible:qwen2.5-7b-instruct", start: startOpenAIServer },
  { provider: "ollama", spec: "ollama:llama3.1:8b", start: startOllamaServer },
] as const;

describe.each(PROVIDERS)("$provider provider against a loopback server", ({ spec, start }) => {
  it("answers text with the request's usage and counts it", async () => {
    const server = await serve(start, ({ messages }) => `you said: ${messages.at(-1)?.content}`);
    const model = client({ spec, baseUrl: server.url });
    const result = await model.generateText({ system: "Be brief.", prompt: "hello guard", purpose: "plan" });
    expect(result.text).toBe("you said: hello guard");
    expect(result.usage).toEqual({ inputTokens: words("Be brief.") + 2, outputTokens: 4 });
    expect(result.requests).toBe(1);
    expect(result.replayed).toBe(false);
    expect(model.stats()).toMatchObject({
      calls: 1,
      requests: 1,
      failures: 0,
      inputTokens: 4,
      outputTokens: 4,
    });
    expect(model.id).toBe(spec);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.temperature).toBe(0);
  });

  it("re-asks an invalid structured answer with the validation errors", async () => {
    const bad = 'Sure! {"allowed": "no", "reasons": []}';
    const good = 'Here it is:\n```json\n{"allowed": false, "reasons": ["column dob is restricted"]}\n```';
    const server = await serve(start, ({ index }) => (index === 0 ? bad : good));
    const model = client({ spec, baseUrl: server.url });
    const result = await model.generateObject({
      prompt: "Check this action.",
      schema: Verdict,
      schemaName: "verdict",
    });
    expect(result.object).toEqual({ allowed: false, reasons: ["column dob is restricted"] });
    expect(result.requests).toBe(2);
    expect(server.requests).toHaveLength(2);
    // The second request carries the bad answer and what was wrong with it.
    const second = JSON.stringify(server.requests[1]);
    expect(second).toContain("allowed: Invalid input: expected boolean");
    expect(second).toContain('\\"allowed\\": \\"no\\"');
    // The schema reached the model in the first request.
    expect(JSON.stringify(server.requests[0])).toContain('\\"required\\":[\\"allowed\\",\\"reasons\\"]');
    const stats = model.stats();
    expect(stats).toMatchObject({ calls: 1, requests: 2, failures: 0 });
    expect(result.usage.inputTokens).toBe(stats.inputTokens);
    expect(result.usage.outputTokens).toBe(words(bad) + words(good));
  });

  it("gives up with MODEL_OUTPUT_INVALID after maxRepairs re-asks", async () => {
    const server = await serve(start, () => "I cannot answer in JSON.");
    const model = client({ spec, baseUrl: server.url });
    const error = await failure(model.generateObject({ prompt: "Check.", schema: Verdict, maxRepairs: 1 }));
    expect(error.code).toBe("MODEL_OUTPUT_INVALID");
    expect(error.message).toContain("no parseable JSON");
    expect(server.requests).toHaveLength(2);
    expect(error.details?.cost).toMatchObject({ requests: 2, outputTokens: 10 });
    expect(model.stats()).toMatchObject({ calls: 1, requests: 2, failures: 1, outputTokens: 10 });
  });
});

describe("embeddings", () => {
  it.each([
    ["openai-compatible:embedder", startOpenAIServer],
    ["openai:gpt-4o-mini", startOpenAIServer],
    ["ollama:nomic-embed-text", startOllamaServer],
  ] as const)("%s embeds through the provider", async (spec, start) => {
    const server = await serve(start, () => "unused");
    const model = client({ spec, baseUrl: server.url });
    expect(model.embed).toBeDefined();
    const result = await model.embed!({ values: ["access the diagnosis table", "buy a car"] });
    expect(result.embeddings).toEqual([
      hashEmbedding("access the diagnosis table"),
      hashEmbedding("buy a car"),
    ]);
    expect(result.usage).toEqual({ inputTokens: 7, outputTokens: 0 });
    expect(model.stats()).toMatchObject({ calls: 1, requests: 1, inputTokens: 7 });
  });

  it("names OpenAI's embedding model, not the chat model", async () => {
    const server = await serve(startOpenAIServer, () => "unused");
    const model = client({ spec: "openai:gpt-4o-mini", baseUrl: server.url });
    await model.embed!({ values: ["x"] });
    expect(server.requests[0]?.model).toBe("text-embedding-3-small");
  });

  it("anthropic has none", () => {
    expect(client({ spec: "anthropic:claude-sonnet-4-5", apiKey: "k" }).embed).toBeUndefined();
  });
});

describe("request settings", () => {
  it("caps Anthropic's max_tokens unless the call sets it", async () => {
    const server = await serve(startAnthropicServer, () => "ok");
    const model = client({ spec: "anthropic:claude-sonnet-4-5", baseUrl: server.url });
    await model.generateText({ prompt: "a" });
    await model.generateText({ prompt: "b", maxOutputTokens: 50, temperature: 0.5 });
    expect(server.requests.map((r) => [r.max_tokens, r.temperature])).toEqual([
      [4096, 0],
      [50, 0.5],
    ]);
  });

  it("folds leading system messages into the system prompt", async () => {
    const server = await serve(startAnthropicServer, () => "ok");
    const model = client({ spec: "anthropic:claude-sonnet-4-5", baseUrl: server.url });
    await model.generateText({
      system: "one",
      messages: [
        { role: "system", content: "two" },
        { role: "user", content: "q" },
      ],
    });
    expect(server.requests[0]?.system).toEqual([{ type: "text", text: "one\n\ntwo" }]);
  });
});

describe("retries and failures", () => {
  it("retries a 500 and succeeds, counting both requests", async () => {
    const server = await serve(startOpenAIServer, ({ index }) =>
      index === 0 ? { status: 500 } : "recovered",
    );
    const model = client({ spec: "openai-compatible:m", baseUrl: server.url });
    const result = await model.generateText({ prompt: "hi" });
    expect(result.text).toBe("recovered");
    expect(result.requests).toBe(2);
    expect(model.stats()).toMatchObject({ calls: 1, requests: 2, failures: 0 });
  });

  it("retries 429 and 503 up to maxRetries, then fails with MODEL_UNAVAILABLE and the status", async () => {
    const server = await serve(startOpenAIServer, ({ index }) => ({ status: index === 0 ? 429 : 503 }));
    const model = client({ spec: "openai-compatible:m", baseUrl: server.url, maxRetries: 2 });
    const error = await failure(model.generateText({ prompt: "hi" }));
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.message).toContain("HTTP 503");
    expect(error.message).toContain(server.url);
    expect(server.requests).toHaveLength(3);
    expect(error.details?.cost).toMatchObject({ requests: 3 });
    expect(model.stats()).toMatchObject({ calls: 1, requests: 3, failures: 1 });
  });

  it("does not wait out a long Retry-After: it fails at once", async () => {
    const server = await serve(startOpenAIServer, () => ({ status: 429, headers: { "retry-after": "120" } }));
    const model = client({ spec: "openai-compatible:m", baseUrl: server.url });
    const error = await failure(model.generateText({ prompt: "hi" }));
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.message).toContain("HTTP 429");
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry a 400 and reports the provider's message", async () => {
    const server = await serve(startOpenAIServer, () => ({
      status: 400,
      body: { error: { message: "max_tokens is too large", type: "invalid_request_error" } },
    }));
    const model = client({ spec: "openai-compatible:m", baseUrl: server.url });
    const error = await failure(model.generateText({ prompt: "hi" }));
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.message).toContain("HTTP 400");
    expect(error.message).toContain("max_tokens is too large");
    expect(server.requests).toHaveLength(1);
    expect(error.details).toMatchObject({ status: 400, cost: { requests: 1 } });
  });

  it.each([
    ["openai:gpt-4o-mini", startOpenAIServer],
    ["anthropic:claude-sonnet-4-5", startAnthropicServer],
  ] as const)("%s: a rejected key is MODEL_CONFIG, not retried", async (spec, start) => {
    const server = await start({ respond: () => "never", apiKey: "right-key" });
    servers.push(server);
    const model = client({ spec, baseUrl: server.url, apiKey: "wrong-key" });
    const error = await failure(model.generateText({ prompt: "hi" }));
    expect(error.code).toBe("MODEL_CONFIG");
    expect(error.message).toContain("rejected the API key");
    expect(server.received).toHaveLength(1);
  });

  it("reads the key from the environment", async () => {
    const server = await startOpenAIServer({ respond: () => "ok", apiKey: "sk-from-env" });
    servers.push(server);
    const model = client({
      spec: "openai:gpt-4o",
      baseUrl: server.url,
      env: { OPENAI_API_KEY: "sk-from-env" },
    });
    expect((await model.generateText({ prompt: "hi" })).text).toBe("ok");
  });

  it("times out a slow server with MODEL_TIMEOUT and does not retry it", { timeout: 15_000 }, async () => {
    const server = await serve(startOpenAIServer, () => ({ delayMs: 60_000, text: "too late" }));
    const model = client({ spec: "openai-compatible:m", baseUrl: server.url, timeoutMs: 300 });
    const error = await failure(model.generateText({ prompt: "hi" }));
    expect(error.code).toBe("MODEL_TIMEOUT");
    expect(error.message).toContain("300 ms");
    expect(server.requests).toHaveLength(1);
    expect(model.stats()).toMatchObject({ calls: 1, requests: 1, failures: 1 });
  });

  it("stops when the caller aborts, with ABORTED", { timeout: 15_000 }, async () => {
    const server = await serve(startOpenAIServer, () => ({ delayMs: 60_000, text: "too late" }));
    const model = client({ spec: "openai-compatible:m", baseUrl: server.url });
    const controller = new AbortController();
    const pending = model.generateText({ prompt: "hi", signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await failure(pending)).code).toBe("ABORTED");
  });

  it("reports a port nothing listens on as MODEL_UNAVAILABLE naming the endpoint", {
    timeout: 15_000,
  }, async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const baseUrl = `http://127.0.0.1:${port}/v1`;
    const model = client({ spec: "openai-compatible:x", baseUrl });
    const error = await failure(model.generateText({ prompt: "hi" }));
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.message).toContain(`model openai-compatible:x at ${baseUrl} could not be reached`);
    expect(error.message).toContain("ECONNREFUSED");
    // Connection refused is a network error: retried maxRetries (2) times.
    expect(model.stats()).toMatchObject({ requests: 3, failures: 1 });
  });

  it("reports http://127.0.0.1:9/v1 as MODEL_UNAVAILABLE at once", { timeout: 15_000 }, async () => {
    const model = client({
      spec: "openai-compatible:x",
      baseUrl: "http://127.0.0.1:9/v1",
      retryDelayMs: 10_000,
    });
    const error = await failure(model.generateText({ prompt: "hi" }));
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.message).toContain(
      "model openai-compatible:x at http://127.0.0.1:9/v1 could not be reached",
    );
  });
});

describe("configuration", () => {
  it("asks for a key for the hosted APIs", () => {
    expect(() => createModelClient({ spec: "openai:gpt-4o", env: {} })).toThrow(/OPENAI_API_KEY/);
    expect(() => createModelClient({ spec: "anthropic:claude-sonnet-4-5", env: {} })).toThrow(
      /ANTHROPIC_API_KEY/,
    );
  });

  it("needs no key for a self-hosted server, ollama or a replay", () => {
    expect(() =>
      createModelClient({ spec: "openai-compatible:m", baseUrl: "http://127.0.0.1:1/v1", env: {} }),
    ).not.toThrow();
    expect(() => createModelClient({ spec: "ollama:llama3", env: {} })).not.toThrow();
    expect(() =>
      createModelClient({
        spec: "openai:gpt-4o",
        env: {},
        cassette: { path: "/nonexistent/c.jsonl", mode: "replay" },
      }),
    ).not.toThrow();
  });

  it("takes the compatible server's address from WARDEN_BASE_URL", () => {
    expect(() =>
      createModelClient({
        spec: "openai-compatible:m",
        env: { WARDEN_BASE_URL: "http://127.0.0.1:8000/v1" },
      }),
    ).not.toThrow();
    expect(() => createModelClient({ spec: "openai-compatible:m", env: {} })).toThrow(/needs a base URL/);
  });

  it("rejects bad options naming the field", () => {
    const attempt = () => createModelClient({ spec: "ollama:x", timeoutMs: -5, env: {} });
    expect(attempt).toThrow(WardenError);
    expect(attempt).toThrow(/timeoutMs/);
    expect(() =>
      createModelClient({
        spec: "ollama:x",
        env: {},
        cassette: { path: "c.jsonl", mode: "rewind" as "record" },
      }),
    ).toThrow(/cassette\.mode/);
  });

  it("rejects a call with neither prompt nor messages", async () => {
    const model = client({ spec: "ollama:x" });
    const error = await failure(model.generateText({}));
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.message).toContain("prompt");
  });
});

describe("cassettes", () => {
  function cassettePath(): string {
    const dir = mkdtempSync(join(tmpdir(), "warden-cassette-"));
    dirs.push(dir);
    return join(dir, "nested", "run.jsonl");
  }

  it("replays a recorded run exactly with the provider gone", async () => {
    const path = cassettePath();
    const server = await startOpenAIServer({
      respond: ({ index }) =>
        index === 0
          ? "plan: check the columns"
          : index === 1
            ? '{"allowed": 1}'
            : '{"allowed": true, "reasons": []}',
    });
    const recorder = createModelClient({
      spec: "openai-compatible:m",
      baseUrl: server.url,
      env: {},
      cassette: { path, mode: "record" },
    });
    const run = async (model: ModelClient) => [
      await model.generateText({ system: "You plan.", prompt: "Plan it.", purpose: "plan" }),
      await model.generateObject({ prompt: "Decide.", schema: Verdict, purpose: "decide" }),
    ];
    const recorded = await run(recorder);
    await server.close();
    expect(recorded.map((r) => r.requests)).toEqual([1, 2]);
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(3);

    const player = client({
      spec: "openai-compatible:m",
      baseUrl: server.url,
      cassette: { path, mode: "replay" },
    });
    const replayed = await run(player);
    expect(replayed.map((r) => r.text)).toEqual(recorded.map((r) => r.text));
    expect(replayed.map((r) => r.usage)).toEqual(recorded.map((r) => r.usage));
    expect((replayed[1] as unknown as { object: unknown }).object).toEqual({ allowed: true, reasons: [] });
    expect(replayed.every((r) => r.replayed === true && r.requests === 0)).toBe(true);
    const a = recorder.stats();
    const b = player.stats();
    expect({ calls: b.calls, inputTokens: b.inputTokens, outputTokens: b.outputTokens }).toEqual({
      calls: a.calls,
      inputTokens: a.inputTokens,
      outputTokens: a.outputTokens,
    });
    expect(b.requests).toBe(0);
  });

  it("replays embeddings too", async () => {
    const path = cassettePath();
    const server = await startOpenAIServer({ respond: () => "unused" });
    const recorder = createModelClient({
      spec: "openai-compatible:e",
      baseUrl: server.url,
      env: {},
      cassette: { path, mode: "auto" },
    });
    const first = await recorder.embed!({ values: ["a b", "c"] });
    await server.close();
    const player = client({
      spec: "openai-compatible:e",
      baseUrl: server.url,
      cassette: { path, mode: "replay" },
    });
    expect(await player.embed!({ values: ["a b", "c"] })).toEqual(first);
  });

  it("answers a replay miss with CASSETTE_MISS naming the purpose and key", async () => {
    const path = cassettePath();
    const model = client({
      spec: "openai-compatible:m",
      baseUrl: "http://127.0.0.1:1/v1",
      cassette: { path, mode: "replay" },
    });
    const error = await failure(model.generateText({ prompt: "never recorded", purpose: "debug" }));
    expect(error.code).toBe("CASSETTE_MISS");
    expect(error.message).toContain('purpose "debug"');
    expect(error.message).toMatch(/key [0-9a-f]{32}/);
    expect(error.message).toContain(path);
    expect(model.stats()).toMatchObject({ calls: 1, requests: 0, failures: 1 });
  });

  it("auto mode records what is missing and replays what is there", async () => {
    const path = cassettePath();
    const server = await serve(startOpenAIServer, ({ messages }) => `echo ${messages.at(-1)?.content}`);
    const model = client({
      spec: "openai-compatible:m",
      baseUrl: server.url,
      cassette: { path, mode: "auto" },
    });
    const first = await model.generateText({ prompt: "one" });
    const again = await model.generateText({ prompt: "one" });
    const other = await model.generateText({ prompt: "two" });
    expect([first.replayed, again.replayed, other.replayed]).toEqual([false, true, false]);
    expect(again.text).toBe(first.text);
    expect(server.requests).toHaveLength(2);
  });

  it("keys on purpose and model: the same prompt for another purpose is a miss", async () => {
    const path = cassettePath();
    const server = await startOpenAIServer({ respond: () => "x" });
    const recorder = createModelClient({
      spec: "openai-compatible:m",
      baseUrl: server.url,
      env: {},
      cassette: { path, mode: "record" },
    });
    await recorder.generateText({ prompt: "same", purpose: "plan" });
    await server.close();
    const player = client({
      spec: "openai-compatible:m",
      baseUrl: server.url,
      cassette: { path, mode: "replay" },
    });
    expect((await player.generateText({ prompt: "same", purpose: "plan" })).text).toBe("x");
    expect((await failure(player.generateText({ prompt: "same", purpose: "code" }))).code).toBe(
      "CASSETTE_MISS",
    );
    const otherModel = client({
      spec: "openai-compatible:n",
      baseUrl: server.url,
      cassette: { path, mode: "replay" },
    });
    expect((await failure(otherModel.generateText({ prompt: "same", purpose: "plan" }))).code).toBe(
      "CASSETTE_MISS",
    );
  });
});
