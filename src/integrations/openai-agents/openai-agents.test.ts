/**
 * The OpenAI Agents guardrails inside the SDK's real runner, driven by a scripted model: a refused call
 * never runs, the model reads the refusal and its next call goes through; "throw" ends the run with the
 * SDK's tripwire; "approval" waits for a human and still refuses a deny; a guard that fails or hangs
 * refuses the call. The guard here is a stub answering fixed Decisions (the mapping is under test); the
 * end-to-end tests with a real Guard are in openai-agents-guard.test.ts.
 */
import {
  Agent,
  InputGuardrailTripwireTriggered,
  type OutputGuardrailMetadata,
  OutputGuardrailTripwireTriggered,
  Runner,
  ToolCallError,
  ToolInputGuardrailTripwireTriggered,
  tool,
} from "@openai/agents";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { allowDecision, type Decision, denyDecision } from "../../core/decision.js";
import type { SubjectInput } from "../../core/subject.js";
import type { ToolCallInput as ToolCallCheck } from "../../core/tool-call.js";
import {
  WardenToolDeniedError,
  wardenDenialOf,
  wardenInputGuardrail,
  wardenNeedsApproval,
  wardenOutputGuardrail,
  wardenToolInputGuardrail,
} from "./index.js";
import { ScriptedAgentsModel, type ScriptedStep, toolResults } from "./scripted-agents-model.test-support.js";

const deny = (ruleId: string, message: string, countermeasure?: string): Decision =>
  denyDecision({
    engine: "stub",
    violations: [{ ruleId, message, ...(countermeasure ? { countermeasure } : {}) }],
  });
const ask = (): Decision =>
  denyDecision({
    engine: "stub",
    verdict: "ask",
    violations: [{ ruleId: "tool.confirm", message: "needs a human" }],
  });
const allow = (): Decision => allowDecision({ engine: "stub", output: null });

/** A guard that answers by tool name, and records what it was asked. */
function stubGuard(answer: (call: ToolCallCheck) => Decision | Promise<Decision>) {
  const calls: ToolCallCheck[] = [];
  const subjects: SubjectInput[] = [];
  return {
    calls,
    subjects,
    checkToolCall: async (call: ToolCallCheck) => {
      calls.push(structuredClone(call));
      return answer(call);
    },
    check: async (subject: SubjectInput) => {
      subjects.push(subject);
      return /rm -rf|delete everything/i.test(subject.input) || /secret/i.test(subject.output ?? "")
        ? deny("request.harmful", "The request is harmful")
        : allow();
    },
  };
}

/** Two tools; `ran` records every call that really executed. */
function tools(guardrail: ReturnType<typeof wardenToolInputGuardrail>, extra: Record<string, unknown> = {}) {
  const ran: string[] = [];
  const make = (name: string) =>
    tool({
      name,
      description: `${name} (test tool)`,
      parameters: z.object({ target: z.string() }),
      inputGuardrails: [guardrail],
      ...extra,
      execute: async ({ target }) => {
        ran.push(`${name}:${target}`);
        return `${name} done for ${target}`;
      },
    });
  return { ran, list: [make("delete_repo"), make("archive_repo")] };
}

const runner = () => new Runner({ tracingDisabled: true });

/** The usual loop: try delete, read the refusal, archive instead, answer. */
function deleteThenArchive(seen: string[]) {
  return ({
    request,
    step,
  }: {
    request: Parameters<ScriptedAgentsModel["getResponse"]>[0];
    step: number;
  }) => {
    const results = toolResults(request);
    if (step === 0)
      return { calls: [{ name: "delete_repo", arguments: { target: "acme/old" }, callId: "c1" }] };
    if (step === 1) {
      seen.push(results.get("c1") ?? "");
      return { calls: [{ name: "archive_repo", arguments: { target: "acme/old" }, callId: "c2" }] };
    }
    seen.push(results.get("c2") ?? "");
    return { text: "Archived acme/old instead of deleting it." } satisfies ScriptedStep;
  };
}

describe("wardenToolInputGuardrail in the Agents SDK runner", () => {
  it("feedback: the refused call never runs, the model reads why and its next call runs", async () => {
    const guard = stubGuard((call) =>
      call.name === "delete_repo"
        ? deny("tool.no-delete", "Deleting is never allowed", "archive it")
        : allow(),
    );
    const { ran, list } = tools(wardenToolInputGuardrail({ guard }));
    const seen: string[] = [];
    const model = new ScriptedAgentsModel(deleteThenArchive(seen));
    const agent = new Agent({ name: "ops", instructions: "help", model, tools: list });
    const result = await runner().run(agent, "Clean up acme/old", { maxTurns: 6 });

    expect(ran).toEqual(["archive_repo:acme/old"]);
    expect(seen[0]).toContain("tool.no-delete");
    expect(seen[0]).toContain("Deleting is never allowed");
    expect(seen[0]).toContain("archive it");
    expect(seen[1]).toBe("archive_repo done for acme/old");
    expect(result.finalOutput).toBe("Archived acme/old instead of deleting it.");
    // The second check saw no history of the refused call (it did not happen), and the arguments as objects.
    expect(guard.calls.map((c) => [c.name, c.arguments, c.history ?? []])).toEqual([
      ["delete_repo", { target: "acme/old" }, []],
      ["archive_repo", { target: "acme/old" }, []],
    ]);
    const info = result.state._toolInputGuardrailResults.map((r) => r.output.behavior.type);
    expect(info).toEqual(["rejectContent", "allow"]);
  });

  it("passes the input and the calls that ran as history to later checks", async () => {
    const guard = stubGuard(() => allow());
    const guardrail = wardenToolInputGuardrail({ guard, context: { identity: "engineer" } });
    const { list } = tools(guardrail);
    const model = new ScriptedAgentsModel(({ step }) =>
      step === 0
        ? { calls: [{ name: "archive_repo", arguments: { target: "a" } }] }
        : step === 1
          ? { calls: [{ name: "archive_repo", arguments: { target: "b" } }] }
          : { text: "done" },
    );
    const agent = new Agent({
      name: "ops",
      model,
      tools: list,
      inputGuardrails: [wardenInputGuardrail({ guard })],
    });
    await runner().run(agent, "Archive a and b", { maxTurns: 6 });
    expect(guard.calls[1]).toMatchObject({
      name: "archive_repo",
      input: "Archive a and b",
      context: { identity: "engineer" },
      history: [{ action: "archive_repo", args: { target: "a" } }],
    });
  });

  it("throw: the SDK's tripwire ends the run, carrying the Decision and a WardenToolDeniedError", async () => {
    const guard = stubGuard(() => deny("tool.no-delete", "Deleting is never allowed"));
    const { ran, list } = tools(wardenToolInputGuardrail({ guard, mode: "throw" }));
    const model = new ScriptedAgentsModel(deleteThenArchive([]));
    const agent = new Agent({ name: "ops", model, tools: list });
    const error = await runner()
      .run(agent, "Clean up", { maxTurns: 6 })
      .catch((e: unknown) => e);
    // The runner rejects with its ToolCallError around the tripwire.
    expect(error).toBeInstanceOf(ToolCallError);
    const tripwire = (error as ToolCallError).error;
    expect(tripwire).toBeInstanceOf(ToolInputGuardrailTripwireTriggered);
    const info = (tripwire as ToolInputGuardrailTripwireTriggered).result.output.outputInfo;
    expect(info.error).toBeInstanceOf(WardenToolDeniedError);
    expect(info.decision.violations[0].ruleId).toBe("tool.no-delete");
    const denial = wardenDenialOf({ error });
    expect(denial?.toolName).toBe("delete_repo");
    expect(denial?.message).toContain("Deleting is never allowed");
    expect(wardenDenialOf({ error: new Error("other") })).toBeUndefined();
    expect(ran).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });

  it("approval: an ask waits for a human; approved it runs, rejected it does not", async () => {
    for (const verdict of ["approve", "reject"] as const) {
      const guard = stubGuard((call) => (call.name === "delete_repo" ? ask() : allow()));
      const { ran, list } = tools(wardenToolInputGuardrail({ guard, mode: "approval" }), {
        needsApproval: wardenNeedsApproval({ guard, tool: "delete_repo" }),
      });
      const model = new ScriptedAgentsModel(({ step }) =>
        step === 0
          ? { calls: [{ name: "delete_repo", arguments: { target: "x" }, callId: "c1" }] }
          : { text: "ok" },
      );
      const agent = new Agent({ name: "ops", model, tools: [list[0]!] });
      const first = await runner().run(agent, "Delete x", { maxTurns: 6 });
      expect(ran).toEqual([]);
      expect(first.interruptions).toHaveLength(1);
      const state = first.state;
      if (verdict === "approve") state.approve(first.interruptions[0]!);
      else state.reject(first.interruptions[0]!);
      const second = await runner().run(agent, state, { maxTurns: 6 });
      expect(ran).toEqual(verdict === "approve" ? ["delete_repo:x"] : []);
      expect(second.finalOutput).toBe("ok");
    }
  });

  it("approval: a human cannot lift a deny", async () => {
    const guard = stubGuard(() => deny("tool.no-delete", "never"));
    const { ran, list } = tools(wardenToolInputGuardrail({ guard, mode: "approval" }), {
      needsApproval: wardenNeedsApproval({ guard, tool: "delete_repo" }),
    });
    const seen: string[] = [];
    const model = new ScriptedAgentsModel(({ request, step }) => {
      if (step === 0) return { calls: [{ name: "delete_repo", arguments: { target: "x" }, callId: "c1" }] };
      seen.push(toolResults(request).get("c1") ?? "");
      return { text: "ok" };
    });
    const agent = new Agent({ name: "ops", model, tools: [list[0]!] });
    const first = await runner().run(agent, "Delete x", { maxTurns: 6 });
    first.state.approve(first.interruptions[0]!);
    await runner().run(agent, first.state, { maxTurns: 6 });
    expect(ran).toEqual([]);
    expect(seen[0]).toContain("tool.no-delete");
  });

  it("an ask without an approval flow is refused like a deny", async () => {
    const guard = stubGuard(() => ask());
    for (const mode of ["feedback", "approval"] as const) {
      const { ran, list } = tools(wardenToolInputGuardrail({ guard, mode }));
      const seen: string[] = [];
      const model = new ScriptedAgentsModel(({ request, step }) => {
        if (step === 0) return { calls: [{ name: "delete_repo", arguments: { target: "x" }, callId: "c1" }] };
        seen.push(toolResults(request).get("c1") ?? "");
        return { text: "ok" };
      });
      await runner().run(new Agent({ name: "ops", model, tools: list }), "Delete x", { maxTurns: 6 });
      expect(ran).toEqual([]);
      expect(seen[0]).toContain("approval");
    }
  });
});

describe("wardenInputGuardrail and wardenOutputGuardrail", () => {
  it("a refused input trips before the model is called, with the explanation in outputInfo", async () => {
    const guard = stubGuard(() => allow());
    const model = new ScriptedAgentsModel(() => ({ text: "sure" }));
    const agent = new Agent({ name: "ops", model, inputGuardrails: [wardenInputGuardrail({ guard })] });
    const error = await runner()
      .run(agent, "rm -rf everything", { maxTurns: 3 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputGuardrailTripwireTriggered);
    const info = (error as InputGuardrailTripwireTriggered).result.output.outputInfo;
    expect(info.explanation).toBe("The request is harmful");
    expect(info.decision.allowed).toBe(false);
    expect(model.requests).toHaveLength(0);
    expect(guard.subjects[0]).toEqual({ input: "rm -rf everything", output: "" });
  });

  it("reads the user's messages when the input is a list of items", async () => {
    const guard = stubGuard(() => allow());
    const model = new ScriptedAgentsModel(() => ({ text: "fine" }));
    const agent = new Agent({ name: "ops", model, inputGuardrails: [wardenInputGuardrail({ guard })] });
    const result = await runner().run(agent, [
      { role: "user", content: "Archive the repo" },
      { role: "user", content: [{ type: "input_text", text: "acme/old, please" }] },
    ]);
    expect(result.finalOutput).toBe("fine");
    expect(guard.subjects[0]!.input).toBe("Archive the repo\nacme/old, please");
  });

  it("a refused final answer trips the output guardrail; an allowed one passes", async () => {
    const guard = stubGuard(() => allow());
    const answers = ["the secret is 42", "nothing to report"];
    for (const answer of answers) {
      const model = new ScriptedAgentsModel(() => ({ text: answer }));
      const agent = new Agent({
        name: "ops",
        model,
        inputGuardrails: [wardenInputGuardrail({ guard })],
        outputGuardrails: [wardenOutputGuardrail({ guard })],
      });
      const outcome = await runner()
        .run(agent, "Report", { maxTurns: 3 })
        .then((r) => r.finalOutput)
        .catch((e: unknown) => e);
      if (answer.includes("secret")) {
        expect(outcome).toBeInstanceOf(OutputGuardrailTripwireTriggered);
        const info = (outcome as OutputGuardrailTripwireTriggered<OutputGuardrailMetadata>).result.output
          .outputInfo;
        expect(info.explanation).toBe("The request is harmful");
      } else expect(outcome).toBe(answer);
    }
    expect(guard.subjects.filter((s) => s.output !== "")).toEqual([
      { input: "Report", output: "the secret is 42" },
      { input: "Report", output: "nothing to report" },
    ]);
  });
});
