import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { MIND2WEB_SC_RULES } from "../../../../../test/support/task-category/mind2web-sc-rules.js";
import { WardenError } from "../../../../core/errors.js";
import type { GenerateObjectOptions, ModelCallResult, ModelClient } from "../../../../llm/model.js";
import { classifyWithModel, type ModelClassification } from "./classify-with-model.js";

/** A ModelClient that answers generateObject with a fixed object, checked against the caller's schema. */
function fakeModel(answer: ModelClassification | Error): ModelClient & { prompts: string[] } {
  const prompts: string[] = [];
  const result: ModelCallResult = {
    text: "",
    usage: { inputTokens: 120, outputTokens: 30 },
    ms: 5,
    requests: 1,
  };
  return {
    id: "fake:model",
    prompts,
    async generateText() {
      throw new Error("not used");
    },
    async generateObject<T>(options: GenerateObjectOptions<T>) {
      prompts.push(`${options.system}\n---\n${options.prompt}`);
      if (answer instanceof Error) throw answer;
      const object = (options.schema as z.ZodType<T>).parse(answer);
      return { ...result, object };
    },
    stats() {
      return {
        calls: prompts.length,
        requests: prompts.length,
        failures: 0,
        inputTokens: 0,
        outputTokens: 0,
        totalMs: 0,
      };
    },
  };
}

describe("classifyWithModel", () => {
  it("asks with the rules' own words and maps the answer onto the rules", async () => {
    const model = fakeModel({
      categories: [
        { ruleId: "rule.flight", confidence: "high", evidence: "book a flight" },
        { ruleId: "rule.hotel", confidence: "medium", evidence: "a place to crash" },
      ],
      confidence: "high",
      reason: "flight and lodging",
    });
    const r = await classifyWithModel({
      model,
      rules: MIND2WEB_SC_RULES,
      text: "Book a flight and somewhere to crash in Reno",
    });
    expect(model.prompts[0]).toContain("action: Buy/Rent/Find/Browse a car/truck.");
    expect(model.prompts[0]).toContain("Task: Book a flight and somewhere to crash in Reno");
    expect(r.categories.map((c) => [c.ruleId, c.category, c.strength, c.score])).toEqual([
      ["rule.flight", "flight", "strong", 1],
      ["rule.hotel", "hotel", "medium", 0.6],
    ]);
    expect(r).toMatchObject({
      confidence: "high",
      model: "fake:model",
      cost: { llmCalls: 1, inputTokens: 120, outputTokens: 30, ms: 5 },
    });
  });

  it("drops rule ids that do not exist and lowers the confidence", async () => {
    const model = fakeModel({
      categories: [{ ruleId: "rule.boats", confidence: "high", evidence: "yacht" }],
      confidence: "high",
      reason: "boats",
    });
    const r = await classifyWithModel({ model, rules: MIND2WEB_SC_RULES, text: "Charter a yacht" });
    expect(r.categories).toEqual([]);
    expect(r.confidence).toBe("low");
    expect(r.reason).toMatch(/rule\.boats/);
  });

  it("does not call the model for empty text, and reports model failures as WardenErrors", async () => {
    const idle = fakeModel({ categories: [], confidence: "high", reason: "" });
    expect((await classifyWithModel({ model: idle, rules: MIND2WEB_SC_RULES, text: " " })).confidence).toBe(
      "none",
    );
    expect(idle.prompts).toHaveLength(0);
    const down = fakeModel(new Error("connection refused"));
    await expect(
      classifyWithModel({ model: down, rules: MIND2WEB_SC_RULES, text: "Rent a car" }),
    ).rejects.toMatchObject({
      code: "MODEL_UNAVAILABLE",
    });
    const typed = fakeModel(new WardenError({ code: "MODEL_TIMEOUT", message: "slow" }));
    await expect(
      classifyWithModel({ model: typed, rules: MIND2WEB_SC_RULES, text: "Rent a car" }),
    ).rejects.toMatchObject({
      code: "MODEL_TIMEOUT",
    });
  });

  it("rejects malformed rules with the field named", async () => {
    const model = fakeModel({ categories: [], confidence: "high", reason: "" });
    await expect(classifyWithModel({ model, rules: [], text: "x" })).rejects.toThrow(/rules/);
  });
});
