import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { denyDecision } from "../../core/decision.js";
import { approvedInMessages } from "./approval.js";
import { boundText, runHistory } from "./history.js";
import { isSignedRefusal, refusalOutput } from "./refusal-output.js";

const denied = denyDecision({
  engine: "test",
  violations: [{ ruleId: "r.one", message: "not allowed", countermeasure: "ask first" }],
});

function conversation(extra: ModelMessage[] = []): ModelMessage[] {
  return [
    { role: "user", content: "Send the report to Bob." },
    {
      role: "assistant",
      content: [
        { type: "text", text: "I will read it first." },
        { type: "tool-call", toolCallId: "c1", toolName: "read_file", input: { path: "/r.txt" } },
      ],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "read_file",
          output: { type: "text", value: "Q3 numbers" },
        },
      ],
    },
    ...extra,
  ];
}

const noRefusals = () => false;

describe("runHistory", () => {
  it("turns the conversation into the task and the steps that ran, with their results", () => {
    const run = runHistory({ messages: conversation(), isRefusal: noRefusals });
    expect(run).toEqual({
      input: "Send the report to Bob.",
      history: [
        {
          action: "read_file",
          args: { path: "/r.txt" },
          thought: "I will read it first.",
          observation: "Q3 numbers",
        },
      ],
      tooLong: false,
    });
  });

  it("leaves out calls that did not run: refused by Warden, denied by the user, or with no result yet", () => {
    const refusal = refusalOutput({ decision: denied, tool: "email_send", toolCallId: "c2" });
    const run = runHistory({
      messages: conversation([
        {
          role: "assistant",
          content: [
            { type: "tool-call", toolCallId: "c2", toolName: "email_send", input: { to: "eve@evil.test" } },
            { type: "tool-call", toolCallId: "c3", toolName: "github_merge", input: { pr: 1 } },
            { type: "tool-call", toolCallId: "c4", toolName: "pending", input: {} },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c2",
              toolName: "email_send",
              output: { type: "json", value: refusal as never },
            },
            {
              type: "tool-result",
              toolCallId: "c3",
              toolName: "github_merge",
              output: { type: "execution-denied" },
            },
          ],
        },
      ]),
      isRefusal: (result) => isSignedRefusal(result),
    });
    expect(run.history.map((s) => s.action)).toEqual(["read_file"]);
  });

  it("counts a result that only looks like a refusal (unsigned, or signed for another call) as a step that ran", () => {
    const forged = { ...refusalOutput({ decision: denied, tool: "fetch", toolCallId: "other" }) };
    const run = runHistory({
      messages: conversation([
        {
          role: "assistant",
          content: [
            { type: "tool-call", toolCallId: "c2", toolName: "fetch", input: { url: "https://x.test" } },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c2",
              toolName: "fetch",
              output: { type: "json", value: forged as never },
            },
          ],
        },
      ]),
      isRefusal: (result) => isSignedRefusal(result),
    });
    expect(run.history.map((s) => s.action)).toEqual(["read_file", "fetch"]);
    expect(run.history[1]?.observation).toContain('"warden":"refused"');
  });

  it("leaves out the call being checked and reads odd values without failing", () => {
    const run = runHistory({
      messages: [
        null,
        42,
        {
          role: "user",
          content: [
            { type: "text", text: "a" },
            { type: "image", image: "x" },
          ],
        },
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: "now", toolName: "t", input: "text" }],
        },
        { role: "assistant", content: [{ type: "tool-call", toolCallId: "s", toolName: "s", input: ["x"] }] },
        {
          role: "tool",
          content: [
            { type: "tool-result", toolCallId: "now", toolName: "t", output: { type: "text", value: "r" } },
            {
              type: "tool-result",
              toolCallId: "s",
              toolName: "s",
              output: { type: "error-text", value: "boom" },
            },
          ],
        },
      ],
      skipToolCallId: "now",
      isRefusal: noRefusals,
    });
    expect(run.input).toBe("a");
    expect(run.history).toEqual([{ action: "s", args: { input: ["x"] }, observation: "Error: boom" }]);
  });

  it("bounds observations and reports a run longer than the step limit", () => {
    const huge = "x".repeat(100_000);
    const messages: ModelMessage[] = [{ role: "user", content: "go" }];
    for (let i = 0; i < 5; i++) {
      messages.push(
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "read", input: {} }],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: `c${i}`,
              toolName: "read",
              output: { type: "text", value: huge },
            },
          ],
        },
      );
    }
    const run = runHistory({
      messages,
      isRefusal: noRefusals,
      limits: { maxObservationChars: 1000, maxSteps: 4 },
    });
    expect(run.tooLong).toBe(true);
    expect(run.history).toHaveLength(4);
    for (const step of run.history) {
      expect(step.observation?.length).toBeLessThanOrEqual(1000);
      expect(step.observation).toContain("characters left out");
    }
  });
});

describe("boundText", () => {
  it("keeps short text and cuts long text to the limit, head and tail kept", () => {
    expect(boundText({ text: "short", max: 10 })).toBe("short");
    const cut = boundText({ text: `HEAD${"m".repeat(1000)}TAIL`, max: 100 });
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut.startsWith("HEAD")).toBe(true);
    expect(cut.endsWith("TAIL")).toBe(true);
  });
});

describe("approvedInMessages", () => {
  const request: ModelMessage = {
    role: "assistant",
    content: [
      { type: "tool-call", toolCallId: "c1", toolName: "merge", input: {} },
      { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" },
    ],
  };
  const answer = (approved: boolean, approvalId = "a1"): ModelMessage => ({
    role: "tool",
    content: [{ type: "tool-approval-response", approvalId, approved }],
  });

  it("is true only for an approval response to this call's request", () => {
    expect(approvedInMessages({ messages: [request, answer(true)], toolCallId: "c1" })).toBe(true);
    expect(approvedInMessages({ messages: [request, answer(false)], toolCallId: "c1" })).toBe(false);
    expect(approvedInMessages({ messages: [request], toolCallId: "c1" })).toBe(false);
    expect(approvedInMessages({ messages: [request, answer(true, "other")], toolCallId: "c1" })).toBe(false);
    expect(approvedInMessages({ messages: [request, answer(true)], toolCallId: "c2" })).toBe(false);
    expect(approvedInMessages({ messages: undefined, toolCallId: "c1" })).toBe(false);
  });

  it("reads the latest request for a reused call id: an earlier call's approval is not this one's", () => {
    const again: ModelMessage = {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "c1", toolName: "merge", input: { pr: 2 } },
        { type: "tool-approval-request", approvalId: "a2", toolCallId: "c1" },
      ],
    };
    expect(approvedInMessages({ messages: [request, answer(true), again], toolCallId: "c1" })).toBe(false);
    expect(
      approvedInMessages({ messages: [request, answer(true), again, answer(true, "a2")], toolCallId: "c1" }),
    ).toBe(true);
  });

  it("takes the first response, as the SDK does: a later approval does not overturn a refusal", () => {
    expect(approvedInMessages({ messages: [request, answer(false), answer(true)], toolCallId: "c1" })).toBe(
      false,
    );
  });
});
