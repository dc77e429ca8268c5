import { describe, expect, it } from "vitest";
import { buildStepFacts } from "../assign/step-facts.js";
import { fuzzyContains, fuzzyTextDetector } from "./fuzzy-text.js";

describe("fuzzy-text", () => {
  it("accepts substrings, reordered words, stems and typos", () => {
    expect(fuzzyContains({ text: "May I create the project now?", term: "Create project" })).toBe(true);
    expect(fuzzyContains({ text: "Shall I go ahead and close the issue?", term: "close issue" })).toBe(true);
    expect(fuzzyContains({ text: "OK to proceed with deleting it?", term: "delete" })).toBe(true);
    expect(fuzzyContains({ text: "Should I invte her?", term: "invite" })).toBe(true);
    expect(fuzzyContains({ text: "Ready to createproject?", term: "create project" })).toBe(true);
  });

  it("does not match unrelated words or parts of words", () => {
    expect(fuzzyContains({ text: "please tell me the details", term: "leads" })).toBe(false);
    expect(fuzzyContains({ text: "give me a reason", term: "reassign" })).toBe(false);
    expect(fuzzyContains({ text: "the phone is 555-0199", term: "555-0198" })).toBe(false);
    expect(fuzzyContains({ text: "I will have it done", term: "save" })).toBe(false);
    expect(fuzzyContains({ text: "anything", term: "" })).toBe(false);
  });

  it("gates on params: terms, minimum length and substring mode", () => {
    const facts = buildStepFacts({ step: { action: "send_msg_to_user('ok?')", args: {} }, index: 0 });
    expect(fuzzyTextDetector.detect({ facts, params: { terms: ["ok"] }, field: "message" })).toBe(true);
    expect(
      fuzzyTextDetector.detect({ facts, params: { terms: ["ok"], minLength: 5 }, field: "message" }),
    ).toBe(false);
    const f2 = buildStepFacts({ step: { action: "send_msg_to_user('deleting now')", args: {} }, index: 0 });
    expect(
      fuzzyTextDetector.detect({
        facts: f2,
        params: { terms: ["delete"], mode: "substring" },
        field: "message",
      }),
    ).toBe(false);
    expect(() => fuzzyTextDetector.detect({ facts, params: { terms: [] }, field: "message" })).toThrow(
      /params\.terms/,
    );
  });
});
