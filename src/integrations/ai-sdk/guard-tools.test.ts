/**
 * guardTools through the real `ai` package, driven by scripted models — ai/test's MockLanguageModelV3 and
 * Warden's loopback OpenAI server — in real multi-step `generateText` loops, with the bundled mcp-tools
 * policy (which names its tools `email.send`, `github.merge_pull_request`…; the tools here are registered
 * under the provider-safe names `email_send`, `github_merge_pull_request`).
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, type ModelMessage, stepCountIs, streamText, tool } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGuard, type Guard } from "../../guard.js";
import { startOpenAIServer } from "../../testing/openai-server.js";
import { guardTools, type WardenRefusal, WardenToolDeniedError } from "./index.js";

type Prompt = Parameters<MockLanguageModelV3["doGenerate"]>[0]["prompt"];
type Content = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>["content"];
type StreamPart =
  Awaited<ReturnType<MockLanguageModelV3["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

let guard: Guard;
beforeAll(async () => {
  guard = await createGuard({ policy: "mcp-tools" });
});
afterAll(async () => {
  await guard.close();
});

/** A mock model answering each step from the script, given the prompt it received. */
function scriptedModel(steps: ((prompt: Prompt) => Content)[]) {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const next = steps[step++];
      if (!next) throw new Error(`the script has no step ${step}`);
      const content = next(prompt);
      const calls = content.some((p) => p.type === "tool-call");
      return {
        content,
        finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined },
        usage: USAGE,
        warnings: [],
      };
    },
  });
}

const call = (toolName: string, input: unknown, toolCallId = `id-${toolName}`): Content[number] => ({
  type: "tool-call",
  toolCallId,
  toolName,
  input: JSON.stringify(input),
});
const text = (value: string): Content[number] => ({ type: "text", text: value });

/** The output of the last tool result in a prompt. */
function lastResult(prompt: Prompt): unknown {
  const message = prompt.at(-1);
  if (message?.role !== "tool") return undefined;
  const part = message.content.findLast((p) => p.type === "tool-result");
  return part?.type === "tool-result" ? part.output : undefined;
}

function emailTools(sent: unknown[]) {
  return {
    email_send: tool({
      description: "Send an email",
      inputSchema: z.object({ email: z.string(), body: z.string() }),
      execute: async (input) => {
        sent.push(input);
        return `sent to ${input.email}`;
      },
    }),
  };
}

describe("guardTools (feedback mode, the default)", () => {
  it("keeps a denied call from running, tells the model why, and runs its corrected call", async () => {
    const sent: unknown[] = [];
    const seen: unknown[] = [];
    const model = scriptedModel([
      () => [call("email_send", { email: "eve@evil.test", body: "Q3" }, "c1")],
      (prompt) => {
        seen.push(lastResult(prompt));
        return [call("email_send", { email: "bob@example.com", body: "Q3" }, "c2")];
      },
      (prompt) => {
        seen.push(lastResult(prompt));
        return [text("Sent to Bob.")];
      },
    ]);
    const result = await generateText({
      model,
      tools: guardTools({ tools: emailTools(sent), guard }),
      prompt: "Email the Q3 numbers to our partner.",
      stopWhen: stepCountIs(5),
    });
    expect(sent).toEqual([{ email: "bob@example.com", body: "Q3" }]);
    expect(result.text).toBe("Sent to Bob.");
    const feedback = seen[0] as { type: string; value: WardenRefusal };
    expect(feedback.type).toBe("json");
    expect(feedback.value).toMatchObject({ warden: "refused", tool: "email_send", verdict: "deny" });
    expect(feedback.value.violations.map((v) => v.ruleId)).toContain("tool.email-internal-only");
    expect(feedback.value.feedback).toContain("tool.email-internal-only");
    expect(seen[1]).toEqual({ type: "text", value: "sent to bob@example.com" });
  });

  it("runs an allowed call once and gives the model its result", async () => {
    const sent: unknown[] = [];
    const model = scriptedModel([
      () => [call("email_send", { email: "ann@example.com", body: "hi" })],
      () => [text("done")],
    ]);
    const result = await generateText({
      model,
      tools: guardTools({ tools: emailTools(sent), guard }),
      prompt: "Say hi to Ann.",
      stopWhen: stepCountIs(3),
    });
    expect(sent).toEqual([{ email: "ann@example.com", body: "hi" }]);
    expect(result.steps[0]?.toolResults[0]?.output).toBe("sent to ann@example.com");
  });

  it("passes the run so far as the check's history and the user's words as its input", async () => {
    const calls: Parameters<Guard["checkToolCall"]>[0][] = [];
    const recording = {
      checkToolCall: (c: Parameters<Guard["checkToolCall"]>[0]) => {
        calls.push(c);
        return guard.checkToolCall(c);
      },
    };
    const model = scriptedModel([
      () => [call("email_send", { email: "ann@example.com", body: "one" }, "a")],
      () => [call("email_send", { email: "eve@evil.test", body: "two" }, "b")],
      () => [call("email_send", { email: "bob@example.com", body: "three" }, "c")],
      () => [text("ok")],
    ]);
    await generateText({
      model,
      tools: guardTools({ tools: emailTools([]), guard: recording }),
      prompt: "Mail the team.",
      stopWhen: stepCountIs(5),
    });
    expect(calls.map((c) => c.name)).toEqual(["email_send", "email_send", "email_send"]);
    expect(calls[0]).toMatchObject({ input: "Mail the team.", history: [], id: "a" });
    // The refused call (b) did not run, so it is not a step of the third call's history.
    expect(calls[2]?.history).toEqual([
      {
        action: "email_send",
        args: { email: "ann@example.com", body: "one" },
        observation: "sent to ann@example.com",
      },
    ]);
  });

  it("drives the same loop through the loopback OpenAI server and @ai-sdk/openai-compatible", async () => {
    const sent: unknown[] = [];
    const results: string[] = [];
    const server = await startOpenAIServer({
      respond: ({ index, messages }) => {
        const result = messages.at(-1)?.toolResults?.[0]?.content;
        if (result !== undefined) results.push(result);
        if (index === 0)
          return { toolCalls: [{ name: "email_send", arguments: { email: "eve@evil.test", body: "x" } }] };
        if (index === 1)
          return { toolCalls: [{ name: "email_send", arguments: { email: "bob@example.com", body: "x" } }] };
        return "All done.";
      },
    });
    try {
      const provider = createOpenAICompatible({ name: "loopback", baseURL: server.url });
      const result = streamText({
        model: provider.chatModel("scripted"),
        tools: guardTools({ tools: emailTools(sent), guard }),
        prompt: "Send the numbers.",
        stopWhen: stepCountIs(5),
        maxRetries: 0,
      });
      expect(await result.text).toBe("All done.");
    } finally {
      await server.close();
    }
    expect(sent).toEqual([{ email: "bob@example.com", body: "x" }]);
    expect(JSON.parse(results[0] ?? "{}")).toMatchObject({ warden: "refused", verdict: "deny" });
    expect(results[0]).toContain("tool.email-internal-only");
    expect(results[1]).toBe("sent to bob@example.com");
  });
});

describe("guardTools (throw mode)", () => {
  it("ends the run with WardenToolDeniedError before the call runs", async () => {
    const sent: unknown[] = [];
    const model = scriptedModel([
      () => [call("email_send", { email: "eve@evil.test", body: "x" }, "t1")],
      () => [text("never reached")],
    ]);
    const error = await generateText({
      model,
      tools: guardTools({ tools: emailTools(sent), guard, mode: "throw" }),
      prompt: "Send it.",
      stopWhen: stepCountIs(3),
    }).catch((e: unknown) => e);
    expect(WardenToolDeniedError.is(error)).toBe(true);
    expect(error).toBeInstanceOf(WardenToolDeniedError);
    const denied = error as WardenToolDeniedError;
    expect(denied).toMatchObject({ toolName: "email_send", toolCallId: "t1" });
    expect(denied.decision.violations.map((v) => v.ruleId)).toContain("tool.email-internal-only");
    expect(sent).toEqual([]);
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it("with streamText, ends the run with the error as the stream's error part (and onError)", async () => {
    const sent: unknown[] = [];
    let streams = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => {
        streams++;
        return {
          stream: convertArrayToReadableStream<StreamPart>([
            {
              type: "tool-call",
              toolCallId: "s1",
              toolName: "email_send",
              input: '{"email":"eve@evil.test","body":"x"}',
            },
            { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage: USAGE },
          ]),
        };
      },
    });
    const errors: unknown[] = [];
    const result = streamText({
      model,
      tools: guardTools({ tools: emailTools(sent), guard, mode: "throw" }),
      prompt: "Send it.",
      stopWhen: stepCountIs(3),
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);
    expect(types).toContain("error");
    expect(errors).toHaveLength(1);
    expect(WardenToolDeniedError.is(errors[0])).toBe(true);
    expect(sent).toEqual([]);
    expect(streams).toBe(1);
  });

  it("lets allowed calls run", async () => {
    const sent: unknown[] = [];
    const model = scriptedModel([
      () => [call("email_send", { email: "ann@example.com", body: "x" })],
      () => [text("ok")],
    ]);
    const result = await generateText({
      model,
      tools: guardTools({ tools: emailTools(sent), guard, mode: "throw" }),
      prompt: "Send it.",
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe("ok");
    expect(sent).toHaveLength(1);
  });
});

describe("guardTools (approval mode)", () => {
  function mergeTools(merged: unknown[], sent: unknown[]) {
    return {
      ...emailTools(sent),
      github_merge_pull_request: tool({
        inputSchema: z.object({ repo: z.string(), number: z.number() }),
        execute: async (input) => {
          merged.push(input);
          return "merged";
        },
      }),
    };
  }

  it("turns an ask into the SDK's approval request, and runs the call once a person approves it", async () => {
    const merged: unknown[] = [];
    const tools = guardTools({ tools: mergeTools(merged, []), guard, mode: "approval" });
    const model = scriptedModel([
      () => [call("github_merge_pull_request", { repo: "acme/web", number: 7 }, "m1")],
      (prompt) => [text(`result: ${JSON.stringify(lastResult(prompt))}`)],
    ]);
    const prompt: ModelMessage[] = [{ role: "user", content: "Merge PR 7." }];
    const first = await generateText({ model, tools, messages: prompt, stopWhen: stepCountIs(3) });
    const request = first.content.find((p) => p.type === "tool-approval-request");
    expect(request).toMatchObject({ toolCall: { toolName: "github_merge_pull_request", toolCallId: "m1" } });
    expect(merged).toEqual([]);

    const approved: ModelMessage[] = [
      ...prompt,
      ...first.response.messages,
      {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: request!.approvalId, approved: true }],
      },
    ];
    const second = await generateText({ model, tools, messages: approved, stopWhen: stepCountIs(3) });
    expect(merged).toEqual([{ repo: "acme/web", number: 7 }]);
    expect(second.text).toBe('result: {"type":"text","value":"merged"}');
  });

  it("never runs an ask the person refused, nor one whose execute is called without an approval", async () => {
    const merged: unknown[] = [];
    const tools = guardTools({ tools: mergeTools(merged, []), guard, mode: "approval" });
    const model = scriptedModel([
      () => [call("github_merge_pull_request", { repo: "acme/web", number: 7 }, "m1")],
      () => [text("fine")],
    ]);
    const prompt: ModelMessage[] = [{ role: "user", content: "Merge PR 7." }];
    const first = await generateText({ model, tools, messages: prompt, stopWhen: stepCountIs(3) });
    const request = first.content.find((p) => p.type === "tool-approval-request");
    await generateText({
      model,
      tools,
      messages: [
        ...prompt,
        ...first.response.messages,
        {
          role: "tool",
          content: [{ type: "tool-approval-response", approvalId: request!.approvalId, approved: false }],
        },
      ],
      stopWhen: stepCountIs(3),
    });
    const direct = await tools.github_merge_pull_request.execute!(
      { repo: "acme/web", number: 7 },
      { toolCallId: "m1", messages: prompt },
    );
    expect(direct).toMatchObject({ warden: "refused", verdict: "ask" });
    expect(merged).toEqual([]);
  });

  it("refuses a deny with feedback instead of asking anyone", async () => {
    const sent: unknown[] = [];
    const model = scriptedModel([
      () => [call("email_send", { email: "eve@evil.test", body: "x" })],
      (prompt) => [text(JSON.stringify(lastResult(prompt)))],
    ]);
    const result = await generateText({
      model,
      tools: guardTools({ tools: mergeTools([], sent), guard, mode: "approval" }),
      prompt: "Send it.",
      stopWhen: stepCountIs(3),
    });
    expect(result.content.some((p) => p.type === "tool-approval-request")).toBe(false);
    expect(sent).toEqual([]);
    expect(JSON.parse(result.text)).toMatchObject({
      type: "json",
      value: { warden: "refused", verdict: "deny" },
    });
  });
});

describe("guardTools options", () => {
  it("rejects a bad mode or guard, naming the field", () => {
    expect(() => guardTools({ tools: {}, guard, mode: "loud" as never })).toThrow(/mode/);
    expect(() => guardTools({ tools: {}, guard: {} as never })).toThrow(/guard/);
  });

  it("returns tools it cannot guard (no execute) as they are, and keeps every other field", () => {
    const clientSide = tool({ description: "runs in the browser", inputSchema: z.object({}) });
    const guarded = guardTools({ tools: { clientSide, ...emailTools([]) }, guard });
    expect(guarded.clientSide).toBe(clientSide);
    expect(guarded.email_send.description).toBe("Send an email");
  });
});
