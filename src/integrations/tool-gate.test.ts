/**
 * The tool gate every framework adapter shares: what counts as arguments, and that every way a check can
 * go wrong ends in a refusal — never in a call that runs.
 */
import { describe, expect, it } from "vitest";
import { allowDecision, type Decision, denyDecision, failureDecision } from "../core/decision.js";
import { decideClosed, gateToolCall, MAX_HISTORY_STEPS, parseToolArguments } from "./tool-gate.js";

const allow = (): Decision => allowDecision({ engine: "stub", output: null });
const guardOf = (answer: () => Promise<Decision>) => ({ checkToolCall: answer });

describe("parseToolArguments", () => {
  it("takes a JSON object, as text or a value, and empty text as no arguments", () => {
    expect(parseToolArguments({ raw: '{"a":1}' })).toEqual({ ok: true, args: { a: 1 } });
    expect(parseToolArguments({ raw: { a: 1 } })).toEqual({ ok: true, args: { a: 1 } });
    expect(parseToolArguments({ raw: "  " })).toEqual({ ok: true, args: {} });
    expect(parseToolArguments({ raw: undefined })).toEqual({ ok: true, args: {} });
  });

  it("refuses anything else", () => {
    for (const raw of ["[1]", "1", "null", '"x"', "nope", [1], 1, null, true]) {
      expect(parseToolArguments({ raw }).ok, JSON.stringify(raw)).toBe(false);
    }
  });
});

describe("decideClosed", () => {
  it("turns a throw, garbage, a contradiction and a timeout into a fail-closed deny", async () => {
    const runs: Array<() => Promise<Decision>> = [
      () => Promise.reject(new Error("boom")),
      async () => null as unknown as Decision,
      async () => ({ ...allow(), verdict: "deny" }),
      () => new Promise<Decision>(() => {}),
    ];
    for (const run of runs) {
      const decision = await decideClosed({ run, timeoutMs: 20 });
      expect(decision).toMatchObject({ allowed: false, verdict: "deny", failure: { mode: "closed" } });
    }
  });

  it("passes a real answer through", async () => {
    expect(await decideClosed({ run: async () => allow() })).toEqual(allow());
  });
});

describe("gateToolCall", () => {
  it("an ask from a failed check is a refusal, never a question for a human", async () => {
    const failedAsk = {
      ...failureDecision({ engine: "x", code: "INTERNAL", message: "m" }),
      verdict: "ask" as const,
    };
    const outcome = await gateToolCall({
      guard: guardOf(async () => failedAsk),
      tool: "t",
      rawArguments: {},
    });
    expect(outcome.kind).toBe("refuse");
    const ask = denyDecision({ engine: "x", verdict: "ask", violations: [{ ruleId: "r", message: "m" }] });
    expect((await gateToolCall({ guard: guardOf(async () => ask), tool: "t", rawArguments: {} })).kind).toBe(
      "ask",
    );
  });

  it("refuses a run longer than the history holds instead of dropping steps, without asking the guard", async () => {
    let asked = 0;
    const guard = guardOf(async () => {
      asked++;
      return allow();
    });
    const history = Array.from({ length: MAX_HISTORY_STEPS }, () => ({ action: "a", args: {} }));
    const outcome = await gateToolCall({ guard, tool: "t", rawArguments: {}, history });
    expect(outcome.kind).toBe("refuse");
    expect(asked).toBe(0);
    expect((await gateToolCall({ guard, tool: "t", rawArguments: {}, history: history.slice(1) })).kind).toBe(
      "run",
    );
  });
});
