/**
 * toolCallSubject: the subject of one tool call, with the session's earlier steps as its trajectory. A
 * step that can still change is copied (a face may fill in its observation while the check runs); a
 * frozen one cannot change and is shared.
 */
import { describe, expect, it } from "vitest";
import type { Step } from "./subject.js";
import { toolCallSubject } from "./tool-call.js";

describe("toolCallSubject", () => {
  it("copies the earlier steps that can change, so filling one in later does not reach the check", () => {
    const step: Step = { action: "read_file", args: { path: "/tmp/a" } };
    const subject = toolCallSubject({ tool: "write_file", args: { path: "/tmp/b" }, history: [step] });
    step.observation = "later";
    expect(subject.trajectory?.[0]).toEqual({ action: "read_file", args: { path: "/tmp/a" } });
    expect(subject.trajectory?.[1]).toEqual({ action: "write_file", args: { path: "/tmp/b" } });
  });

  it("shares a frozen step, which cannot change", () => {
    const step: Step = Object.freeze({ action: "read_file", args: { path: "/tmp/a" }, observation: "x" });
    const subject = toolCallSubject({ tool: "write_file", args: {}, history: [step] });
    expect(subject.trajectory?.[0]).toBe(step);
  });

  it("writes the call as the agent's output and as a context fact", () => {
    const subject = toolCallSubject({ tool: "t", args: { a: 1 }, task: "do it" });
    expect(subject.input).toBe("do it");
    expect(JSON.parse(subject.output)).toEqual({
      method: "tools/call",
      params: { name: "t", arguments: { a: 1 } },
    });
    expect(subject.context?.toolCalls).toEqual([{ name: "t", arguments: { a: 1 } }]);
  });
});
