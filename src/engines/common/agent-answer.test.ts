import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Policy } from "../../core/policy.js";
import { agentAnswer } from "./agent-answer.js";

const ehragent = { agent: "ehragent" } as Policy;

/** The definition agentAnswer follows: the text after the last `/^Answer:\s*$/m` match, trimmed. */
function reference(output: string): string {
  let last: RegExpMatchArray | undefined;
  for (const match of output.matchAll(/^Answer:\s*$/gm)) last = match;
  return last ? output.slice((last.index ?? 0) + last[0].length).trim() : output;
}

describe("agentAnswer", () => {
  it("passes EHRAgent's answer through: the text after the last Answer: line", () => {
    const output = "Knowledge:\n- x\nGenerated code:\nanswer = 1\nAnswer:\n 67 \n";
    expect(agentAnswer({ policy: ehragent, subject: { input: "", output } })).toBe("67");
    expect(agentAnswer({ policy: ehragent, subject: { input: "", output: "no marker" } })).toBe("no marker");
    expect(
      agentAnswer({ policy: ehragent, subject: { input: "", output: "Answer:\na\nAnswer: \t\r\nb" } }),
    ).toBe("b");
  });

  it("finds the same answer line as the multiline regex on any text", () => {
    const piece = fc.constantFrom(
      "Answer:",
      "Answer: ",
      "answer:",
      "Answer:x",
      "\n",
      "\r\n",
      "\r",
      "\u2028",
      "\t",
      " ",
      "\u00a0",
      "67",
      "x",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => {
        const output = pieces.join("");
        expect(agentAnswer({ policy: ehragent, subject: { input: "", output } })).toBe(reference(output));
      }),
      { numRuns: 5000 },
    );
  });

  it("prefers the caller's answer in the context", () => {
    expect(
      agentAnswer({ policy: ehragent, subject: { input: "", output: "Answer:\n1", context: { answer: 2 } } }),
    ).toBe(2);
  });
});
