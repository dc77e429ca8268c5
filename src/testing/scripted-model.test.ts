import { describe, expect, it } from "vitest";
import { z } from "zod";
import { WardenError } from "../core/errors.js";
import { createScriptedModel } from "./scripted-model.js";

async function failure(promise: Promise<unknown>): Promise<WardenError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WardenError);
    return error as WardenError;
  }
  throw new Error("expected the call to fail");
}

describe("createScriptedModel", () => {
  it("answers in order and counts words as tokens", async () => {
    const model = createScriptedModel({
      replies: ["first answer", (request) => `saw ${request.messages.length}`],
    });
    const one = await model.generateText({ system: "a b", prompt: "c", purpose: "plan" });
    expect(one).toMatchObject({
      text: "first answer",
      usage: { inputTokens: 3, outputTokens: 2 },
      requests: 1,
    });
    const two = await model.generateText({
      messages: [
        { role: "user", content: "x" },
        { role: "assistant", content: "y" },
        { role: "user", content: "z" },
      ],
    });
    expect(two.text).toBe("saw 3");
    expect(model.stats()).toMatchObject({
      calls: 2,
      requests: 2,
      failures: 0,
      inputTokens: 6,
      outputTokens: 4,
    });
    expect(model.requests[0]).toMatchObject({ index: 0, system: "a b", purpose: "plan" });
    expect(model.remaining()).toBe(0);
    expect(model.id).toBe("scripted:model");
  });

  it("re-asks structured calls from the next reply, with the errors visible", async () => {
    const model = createScriptedModel({ replies: ['{"label": 2}', '```json\n{"label": 1}\n```'] });
    const result = await model.generateObject({
      prompt: "label it",
      schema: z.object({ label: z.union([z.literal(0), z.literal(1)]) }),
    });
    expect(result.object).toEqual({ label: 1 });
    expect(result.requests).toBe(2);
    expect(model.requests[0]?.jsonSchema).toMatchObject({ type: "object", required: ["label"] });
    const repair = model.requests[1]?.messages.at(-1)?.content ?? "";
    expect(repair).toContain("label:");
    expect(model.requests[1]?.messages.at(-2)).toEqual({ role: "assistant", content: '{"label": 2}' });
  });

  it("throws a scripted WardenError as the model's failure", async () => {
    const down = new WardenError({ code: "MODEL_UNAVAILABLE", message: "scripted outage" });
    const model = createScriptedModel({ replies: [down, "back"] });
    const error = await failure(model.generateText({ prompt: "x" }));
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.message).toBe("scripted outage");
    expect(error.details?.cost).toMatchObject({ requests: 1 });
    expect((await model.generateText({ prompt: "x" })).text).toBe("back");
    expect(model.stats()).toMatchObject({ calls: 2, requests: 2, failures: 1 });
  });

  it("fails clearly when the script runs out", async () => {
    const model = createScriptedModel({ replies: [] });
    const error = await failure(model.generateText({ prompt: "x", purpose: "code" }));
    expect(error.code).toBe("INTERNAL");
    expect(error.message).toContain("no reply left");
    expect(error.message).toContain('"code"');
  });

  it("offers embed only when given an embedding function", async () => {
    expect(createScriptedModel({ replies: [] }).embed).toBeUndefined();
    const model = createScriptedModel({ replies: [], embed: (text) => [text.length] });
    expect(await model.embed!({ values: ["ab", "c d"] })).toEqual({
      embeddings: [[2], [3]],
      usage: { inputTokens: 3, outputTokens: 0 },
    });
  });
});
