/**
 * Guarded LangChain tools in a real agent loop: @langchain/core's own `tool()` tools and messages, a
 * scripted BaseChatModel, and a hand loop (model → tools → ToolMessages → model). A refused call never
 * runs and the model reads why; "throw" ends the run with WardenToolDeniedError; "approval" asks the
 * application's approver for an "ask" only; a guard that fails, hangs or answers garbage refuses the call.
 * The guard is a stub answering fixed Decisions (the mapping is under test); the end-to-end tests with a
 * real Guard are in langchain-guard.test.ts.
 */
import { DynamicTool, tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { allowDecision, type Decision, denyDecision } from "../../core/decision.js";
import type { ToolCallInput as ToolCallCheck } from "../../core/tool-call.js";
import { type ApprovalRequest, WardenToolDeniedError, wardenTools } from "./index.js";
import { runAgent, ScriptedChatModel, toolMessages } from "./scripted-chat-model.test-support.js";

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

function stubGuard(answer: (call: ToolCallCheck) => Decision | Promise<Decision>) {
  const calls: ToolCallCheck[] = [];
  return {
    calls,
    checkToolCall: async (call: ToolCallCheck) => {
      calls.push(structuredClone(call));
      return answer(call);
    },
  };
}

function repoTools() {
  const ran: string[] = [];
  const make = (name: string) =>
    tool(
      async ({ target }: { target: string }) => {
        ran.push(`${name}:${target}`);
        return `${name} done for ${target}`;
      },
      { name, description: `${name} (test tool)`, schema: z.object({ target: z.string() }) },
    );
  return { ran, list: [make("delete_repo"), make("archive_repo")] };
}

/** Try delete, read the refusal, archive instead, answer. */
function deleteThenArchive(seen: string[]) {
  return new ScriptedChatModel(({ messages, step }) => {
    const results = toolMessages(messages);
    if (step === 0) return { calls: [{ name: "delete_repo", args: { target: "acme/old" }, id: "c1" }] };
    if (step === 1) {
      seen.push(String(results.get("c1")?.content), String(results.get("c1")?.status));
      return { calls: [{ name: "archive_repo", args: { target: "acme/old" }, id: "c2" }] };
    }
    seen.push(String(results.get("c2")?.content));
    return { text: "Archived acme/old instead." };
  });
}

describe("wardenTools in a LangChain agent loop", () => {
  it("feedback: the refused call never runs, the model reads why and its next call runs", async () => {
    const guard = stubGuard((call) =>
      call.name === "delete_repo"
        ? deny("tool.no-delete", "Deleting is never allowed", "archive it")
        : allow(),
    );
    const { ran, list } = repoTools();
    const tools = await wardenTools({
      guard,
      tools: list,
      input: "Clean up acme/old",
      context: { identity: "dev" },
    });
    expect(tools.map((t) => [t.name, t.description])).toEqual(list.map((t) => [t.name, t.description]));
    const seen: string[] = [];
    const result = await runAgent({ model: deleteThenArchive(seen), tools, task: "Clean up acme/old" });

    expect(ran).toEqual(["archive_repo:acme/old"]);
    expect(seen[0]).toContain("tool.no-delete");
    expect(seen[0]).toContain("archive it");
    expect(seen[1]).toBe("error");
    expect(seen[2]).toBe("archive_repo done for acme/old");
    expect(result.text).toBe("Archived acme/old instead.");
    expect(guard.calls).toEqual([
      {
        name: "delete_repo",
        arguments: { target: "acme/old" },
        input: "Clean up acme/old",
        context: { identity: "dev" },
        id: "c1",
      },
      {
        name: "archive_repo",
        arguments: { target: "acme/old" },
        input: "Clean up acme/old",
        context: { identity: "dev" },
        id: "c2",
      },
    ]);
  });

  it("passes the calls that ran to later checks as history", async () => {
    const guard = stubGuard(() => allow());
    const { list } = repoTools();
    const tools = await wardenTools({ guard, tools: list });
    const model = new ScriptedChatModel(({ step }) =>
      step < 2 ? { calls: [{ name: "archive_repo", args: { target: `r${step}` } }] } : { text: "done" },
    );
    await runAgent({ model, tools, task: "Archive two" });
    expect(guard.calls[1]?.history).toEqual([{ action: "archive_repo", args: { target: "r0" } }]);
  });

  it("throw: a refused call ends the run with WardenToolDeniedError", async () => {
    const guard = stubGuard(() => deny("tool.no-delete", "Deleting is never allowed"));
    const { ran, list } = repoTools();
    const tools = await wardenTools({ guard, tools: list, mode: "throw" });
    const model = deleteThenArchive([]);
    const error = await runAgent({ model, tools, task: "Clean up" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WardenToolDeniedError);
    expect((error as WardenToolDeniedError).toolName).toBe("delete_repo");
    expect((error as WardenToolDeniedError).decision.violations[0]?.ruleId).toBe("tool.no-delete");
    expect(ran).toEqual([]);
    expect(model.seen).toHaveLength(1);
  });

  it("approval: an ask goes to the approver; yes runs it, no / failure / no approver refuses", async () => {
    const approvers: Array<[string, ((r: ApprovalRequest) => Promise<boolean>) | undefined, boolean]> = [
      ["yes", async () => true, true],
      ["no", async () => false, false],
      ["throws", async () => Promise.reject(new Error("approver down")), false],
      ["truthy but not true", async () => "yes" as unknown as boolean, false],
      ["none", undefined, false],
    ];
    for (const [, approve, runs] of approvers) {
      const guard = stubGuard(() => ask());
      const requests: ApprovalRequest[] = [];
      const { ran, list } = repoTools();
      const tools = await wardenTools({
        guard,
        tools: list,
        mode: "approval",
        ...(approve
          ? {
              approve: (r: ApprovalRequest) => {
                requests.push(r);
                return approve(r);
              },
            }
          : {}),
      });
      const model = new ScriptedChatModel(({ step }) =>
        step === 0 ? { calls: [{ name: "delete_repo", args: { target: "x" }, id: "c1" }] } : { text: "ok" },
      );
      const result = await runAgent({ model, tools, task: "Delete x" });
      expect(ran).toEqual(runs ? ["delete_repo:x"] : []);
      if (!runs) expect(String(toolMessages(result.messages).get("c1")?.content)).toContain("approval");
      if (approve)
        expect(requests[0]).toMatchObject({ tool: "delete_repo", args: { target: "x" }, id: "c1" });
    }
  });

  it("approval: a deny never reaches the approver", async () => {
    const guard = stubGuard(() => deny("tool.no-delete", "never"));
    let asked = 0;
    const { ran, list } = repoTools();
    const tools = await wardenTools({
      guard,
      tools: list,
      mode: "approval",
      approve: async () => {
        asked++;
        return true;
      },
    });
    const refused = await tools[0]!.invoke({ target: "x" });
    expect(refused).toContain("tool.no-delete");
    expect(asked).toBe(0);
    expect(ran).toEqual([]);
  });

  it("a tool of one string is checked as { input }, and content_and_artifact tools keep their shape", async () => {
    const guard = stubGuard((call) =>
      call.arguments?.input === "rm -rf /" ? deny("shell.no-rm", "no rm") : allow(),
    );
    const ran: string[] = [];
    const shell = new DynamicTool({
      name: "shell",
      description: "runs a command",
      func: async (command: string) => {
        ran.push(command);
        return `ran ${command}`;
      },
    });
    const search = tool(async ({ q }: { q: string }) => [`found ${q}`, { hits: 1 }], {
      name: "search",
      description: "search",
      schema: z.object({ q: z.string() }),
      responseFormat: "content_and_artifact",
    });
    const [guardedShell, guardedSearch] = await wardenTools({ guard, tools: [shell, search] });
    const ok = await guardedShell!.invoke({
      name: "shell",
      args: { input: "ls" },
      id: "s1",
      type: "tool_call",
    });
    const no = await guardedShell!.invoke({
      name: "shell",
      args: { input: "rm -rf /" },
      id: "s2",
      type: "tool_call",
    });
    expect([ok.content, no.status]).toEqual(["ran ls", "error"]);
    expect(ran).toEqual(["ls"]);
    expect(guard.calls.map((c) => c.arguments)).toEqual([{ input: "ls" }, { input: "rm -rf /" }]);
    const found = await guardedSearch!.invoke({
      name: "search",
      args: { q: "x" },
      id: "q1",
      type: "tool_call",
    });
    expect([found.content, found.artifact]).toEqual(["found x", { hits: 1 }]);
  });
});

describe("wardenTools fails closed", () => {
  const failing: Array<[string, () => Promise<Decision>]> = [
    ["throws", async () => Promise.reject(new Error("store down"))],
    ["hangs", () => new Promise<Decision>(() => {})],
    ["answers garbage", async () => ({ allowed: true }) as unknown as Decision],
    ["says allowed with verdict ask", async () => ({ ...allow(), verdict: "ask" }) as Decision],
  ];
  for (const [what, answer] of failing) {
    it(`a guard that ${what} refuses the call, in every mode`, async () => {
      for (const mode of ["feedback", "throw", "approval"] as const) {
        const { ran, list } = repoTools();
        const tools = await wardenTools({
          guard: { checkToolCall: answer },
          tools: list,
          mode,
          timeoutMs: 20,
          approve: async () => true,
        });
        const outcome = await tools[1]!.invoke({ target: "x" }).catch((e: unknown) => e);
        expect(ran).toEqual([]);
        if (mode === "throw") expect(outcome).toBeInstanceOf(WardenToolDeniedError);
        else expect(String(outcome)).toContain("did not run");
      }
    });
  }

  it("refuses bad options at construction, naming the field", async () => {
    const guard = stubGuard(() => allow());
    await expect(wardenTools({ guard, tools: [], mode: "loud" as "throw" })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringContaining("mode"),
    });
    await expect(wardenTools({ guard, tools: [{ name: "x" } as never] })).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
  });
});
