/**
 * wardenMiddleware through the real `ai` package (wrapLanguageModel, generateText, streamText), driven
 * by ai/test's MockLanguageModelV3 and the loopback OpenAI server, with the bundled mind2web-sc policy
 * (a task about renting a car needs a user with a driver's license).
 */
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGuard, type Guard } from "../../guard.js";
import { startOpenAIServer } from "../../testing/openai-server.js";
import { wardenMiddleware } from "./index.js";

type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;
type StreamPart =
  Awaited<ReturnType<MockLanguageModelV3["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;

const TASK = "Task: Rent a car in Boston for next weekend.";
const ANSWER = "I booked a Toyota Corolla at Hertz for $45/day.";
const unlicensed = { user: { age: 30, dr_license: false } };
const licensed = { user: { age: 30, dr_license: true } };

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function answering(content: GenerateResult["content"]): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async () => ({
      content,
      finishReason: { unified: "stop", raw: "stop" },
      usage,
      warnings: [],
    }),
  });
}

function streaming(text: string): MockLanguageModelV3 {
  const parts: StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "reasoning-start", id: "r" },
    { type: "reasoning-delta", id: "r", delta: "thinking about cars" },
    { type: "reasoning-end", id: "r" },
    { type: "text-start", id: "t" },
    ...text
      .split(" ")
      .map((word, i): StreamPart => ({ type: "text-delta", id: "t", delta: i ? ` ${word}` : word })),
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
  ];
  return new MockLanguageModelV3({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
}

let guard: Guard;
beforeAll(async () => {
  guard = await createGuard({ policy: "mind2web-sc" });
});
afterAll(async () => {
  await guard.close();
});

describe("wardenMiddleware with generateText", () => {
  it("passes an allowed answer through unchanged, with the decision in providerMetadata.warden", async () => {
    const model = wrapLanguageModel({
      model: answering([{ type: "text", text: ANSWER }]),
      middleware: wardenMiddleware({ guard, context: licensed }),
    });
    const result = await generateText({ model, prompt: TASK });
    expect(result.text).toBe(ANSWER);
    expect(result.finishReason).toBe("stop");
    expect(result.providerMetadata?.warden).toMatchObject({ allowed: true, verdict: "allow" });
  });

  it("replaces a refused answer — text, reasoning and all — with the refusal naming the rule", async () => {
    const model = wrapLanguageModel({
      model: answering([
        { type: "reasoning", text: "the user has no licence but whatever" },
        { type: "text", text: ANSWER },
      ]),
      middleware: wardenMiddleware({ guard, context: unlicensed }),
    });
    const result = await generateText({ model, prompt: TASK });
    expect(result.text).toContain("Warden withheld this answer");
    expect(result.text).toContain("rule.car");
    expect(result.text).not.toContain("Corolla");
    expect(result.reasoningText).toBeUndefined();
    expect(result.finishReason).toBe("content-filter");
    expect(result.providerMetadata?.warden).toMatchObject({
      allowed: false,
      verdict: "deny",
      violations: [{ ruleId: "rule.car" }],
    });
  });

  it("uses the application's refusal text when given one", async () => {
    const model = wrapLanguageModel({
      model: answering([{ type: "text", text: ANSWER }]),
      middleware: wardenMiddleware({
        guard,
        context: unlicensed,
        refusal: (d) => `Sorry (${d.violations[0]?.ruleId}).`,
      }),
    });
    expect((await generateText({ model, prompt: TASK })).text).toBe("Sorry (rule.car).");
  });

  it("lets a step that calls tools through unchecked (guardTools guards those), and checks the final answer", async () => {
    const checked: string[] = [];
    const recording = {
      check: (subject: Parameters<Guard["check"]>[0]) => {
        checked.push(subject.output ?? "");
        return guard.check(subject);
      },
    };
    let step = 0;
    const inner = new MockLanguageModelV3({
      doGenerate: async () =>
        step++ === 0
          ? {
              content: [{ type: "tool-call", toolCallId: "c", toolName: "search", input: '{"q":"cars"}' }],
              finishReason: { unified: "tool-calls", raw: undefined },
              usage,
              warnings: [],
            }
          : {
              content: [{ type: "text", text: ANSWER }],
              finishReason: { unified: "stop", raw: undefined },
              usage,
              warnings: [],
            },
    });
    const result = await generateText({
      model: wrapLanguageModel({
        model: inner,
        middleware: wardenMiddleware({ guard: recording, context: unlicensed }),
      }),
      tools: { search: tool({ inputSchema: z.object({ q: z.string() }), execute: async () => "3 cars" }) },
      prompt: TASK,
      stopWhen: stepCountIs(3),
    });
    expect(checked).toEqual([ANSWER]);
    expect(result.steps).toHaveLength(2);
    expect(result.text).toContain("rule.car");
  });

  it("fails closed when the check throws", async () => {
    const broken = { check: async () => Promise.reject(new Error("store is down")) };
    const model = wrapLanguageModel({
      model: answering([{ type: "text", text: "fine answer" }]),
      middleware: wardenMiddleware({ guard: broken }),
    });
    const result = await generateText({ model, prompt: "hi" });
    expect(result.text).toContain("could not be completed");
    expect(result.text).toContain("store is down");
    expect(result.text).not.toContain("fine answer");
  });

  it("withholds the answer when the guard answers something that is not a Decision", async () => {
    for (const answer of [undefined, { allowed: true }, { allowed: true, verdict: "allow" }]) {
      const odd = { check: async () => answer as never };
      const model = wrapLanguageModel({
        model: answering([{ type: "text", text: "secret answer" }]),
        middleware: wardenMiddleware({ guard: odd }),
      });
      const result = await generateText({ model, prompt: "hi" });
      expect(result.text, JSON.stringify(answer)).not.toContain("secret answer");
    }
  });

  it("rejects options without a guard, naming the field", () => {
    expect(() => wardenMiddleware({ guard: {} as never })).toThrow(/guard/);
  });
});

describe("wardenMiddleware with streamText (buffered)", () => {
  it("streams nothing of a refused answer: only the refusal reaches the caller", async () => {
    const model = wrapLanguageModel({
      model: streaming(ANSWER),
      middleware: wardenMiddleware({ guard, context: unlicensed }),
    });
    const result = streamText({ model, prompt: TASK });
    const chunks: string[] = [];
    for await (const chunk of result.textStream) chunks.push(chunk);
    expect(chunks.join("")).toContain("rule.car");
    expect(chunks.join("")).not.toContain("Corolla");
    expect(await result.reasoningText).toBeUndefined();
    expect(await result.finishReason).toBe("content-filter");
  });

  it("replays an allowed answer as the model streamed it", async () => {
    const model = wrapLanguageModel({
      model: streaming(ANSWER),
      middleware: wardenMiddleware({ guard, context: licensed }),
    });
    const result = streamText({ model, prompt: TASK });
    expect(await result.text).toBe(ANSWER);
    expect(await result.reasoningText).toBe("thinking about cars");
    expect((await result.providerMetadata)?.warden).toMatchObject({ allowed: true });
  });

  it("guards a real provider's stream from the loopback OpenAI server", async () => {
    const server = await startOpenAIServer({ respond: () => ANSWER });
    try {
      const provider = createOpenAI({ apiKey: "k", baseURL: server.url });
      const model = wrapLanguageModel({
        model: provider.chat("scripted"),
        middleware: wardenMiddleware({ guard, context: unlicensed }),
      });
      const text = await streamText({ model, prompt: TASK, maxRetries: 0 }).text;
      expect(text).toContain("rule.car");
      expect(text).not.toContain("Corolla");
    } finally {
      await server.close();
    }
  });
});
