/**
 * Red team, the framework integrations (warden/openai-agents, warden/langchain): what a model steering
 * an agent can send through a framework's tool call — arguments that are not an object, a tool name that
 * could be either of two policy tools — and a guard that breaks under it. In each case the tool must not
 * run: the call is refused (the model reads why) or the run ends, never allowed. Real SDK runners and real
 * LangChain tools, driven by scripted models; real Guards from `createGuard`.
 */
import { tool as langchainTool } from "@langchain/core/tools";
import { Agent, Runner, tool } from "@openai/agents";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { wardenTools } from "../../src/integrations/langchain/index.js";
import {
  runAgent,
  ScriptedChatModel,
  toolMessages,
} from "../../src/integrations/langchain/scripted-chat-model.test-support.js";
import { wardenToolInputGuardrail } from "../../src/integrations/openai-agents/index.js";
import {
  ScriptedAgentsModel,
  toolResults,
} from "../../src/integrations/openai-agents/scripted-agents-model.test-support.js";
import type { InlinePolicy } from "./redteam.fixture.js";
import { useGuardPool } from "./redteam.fixture.js";

const pool = useGuardPool();

/** Two policy tools a provider spells the same way (`files_delete`); the lenient one must not win. */
const twins: InlinePolicy = {
  name: "redteam-integration-twins",
  rules: {
    toolDefault: "allow",
    toolRules: [
      { id: "tool.files-ok", tool: "files/delete", effect: "allow", message: "the sandbox's files may go" },
      { id: "tool.no-files-delete", tool: "files.delete", effect: "deny", message: "real files stay" },
    ],
  },
};

/** Everything is allowed: only the integration's own checks can refuse. */
const allowAll: InlinePolicy = { name: "redteam-integration-allow-all", rules: { toolDefault: "allow" } };

/** One OpenAI Agents run where the model makes one call with the given name and raw arguments. */
async function agentsCall(options: {
  guard: Parameters<typeof wardenToolInputGuardrail>[0]["guard"];
  name: string;
  arguments: string;
  /** Accept any JSON (a non-strict JSON schema), so only the guardrail stands between the call and the tool. */
  loose?: boolean;
}) {
  const ran: unknown[] = [];
  const probe = tool({
    name: options.name,
    description: "a tool the model should not get to run",
    parameters: options.loose
      ? { type: "object", properties: {}, additionalProperties: true, required: [] }
      : z.object({ path: z.string() }),
    strict: !options.loose,
    inputGuardrails: [wardenToolInputGuardrail({ guard: options.guard })],
    execute: async (input: unknown) => {
      ran.push(input);
      return "ran";
    },
  } as Parameters<typeof tool>[0]);
  const seen: string[] = [];
  const model = new ScriptedAgentsModel(({ request, step }) => {
    if (step === 0) return { calls: [{ name: options.name, arguments: options.arguments, callId: "c1" }] };
    seen.push(toolResults(request).get("c1") ?? "");
    return { text: "stopped" };
  });
  const agent = new Agent({ name: "redteam", model, tools: [probe] });
  const outcome = await new Runner({ tracingDisabled: true }).run(agent, "Do it", { maxTurns: 4 }).then(
    (r) => r.finalOutput,
    (e: unknown) => e,
  );
  return { ran, seen, outcome };
}

describe("red team: OpenAI Agents tool guardrail", () => {
  it("a name two policy tools map to is refused, and the tool does not run", async () => {
    const guard = await pool.get(twins);
    const { ran, seen } = await agentsCall({ guard, name: "files_delete", arguments: '{"path":"/etc"}' });
    expect(ran).toEqual([]);
    expect(seen[0]).toContain("did not run");
    expect(seen[0]).toContain("files.delete");
  });

  it("arguments that are not a JSON object never reach the tool", async () => {
    const guard = await pool.get(allowAll);
    // JSON that is not an object: the guardrail refuses it, and the model reads why.
    for (const raw of ["[1,2]", "42", '"a string"', "null"]) {
      const { ran, seen } = await agentsCall({ guard, name: "probe", arguments: raw, loose: true });
      expect(ran, raw).toEqual([]);
      expect(seen[0], raw).toContain("not a JSON object");
    }
    // Text that is not JSON: the SDK refuses it before any guardrail; either way the tool does not run.
    for (const raw of ["not json", '{"path":']) {
      const { ran, seen } = await agentsCall({ guard, name: "probe", arguments: raw, loose: true });
      expect(ran, raw).toEqual([]);
      expect(seen[0], raw).toContain("parsing tool arguments");
    }
  });

  it("a guard that fails (closed under the agent) refuses the call", async () => {
    const guard = await pool.get(allowAll);
    const broken = { checkToolCall: () => Promise.reject(new Error("the store is gone")) };
    const { ran, seen } = await agentsCall({ guard: broken, name: "probe", arguments: '{"path":"/tmp/x"}' });
    expect(ran).toEqual([]);
    expect(seen[0]).toContain("the guard failed");
    // The same call with the working guard runs: the refusal came from the failure, not the policy.
    expect((await agentsCall({ guard, name: "probe", arguments: '{"path":"/tmp/x"}' })).ran).toHaveLength(1);
  });
});

describe("red team: LangChain guarded tools", () => {
  /** A LangChain tool with a JSON schema accepting anything, so LangChain itself validates nothing. */
  function anyInputTool(ran: unknown[], name = "probe") {
    return langchainTool(
      async (input: unknown) => {
        ran.push(input);
        return "ran";
      },
      { name, description: "accepts anything", schema: {} as Record<string, unknown> },
    );
  }

  it("a name two policy tools map to is refused, and the tool does not run", async () => {
    const guard = await pool.get(twins);
    const ran: unknown[] = [];
    const tools = await wardenTools({ guard, tools: [anyInputTool(ran, "files_delete")] });
    const model = new ScriptedChatModel(({ step }) =>
      step === 0
        ? { calls: [{ name: "files_delete", args: { path: "/etc" }, id: "c1" }] }
        : { text: "stopped" },
    );
    const { messages } = await runAgent({ model, tools, task: "Delete /etc" });
    expect(ran).toEqual([]);
    const reply = toolMessages(messages).get("c1");
    expect(reply?.status).toBe("error");
    expect(String(reply?.content)).toContain("files.delete");
  });

  it("arguments that are not an object never reach the tool", async () => {
    const guard = await pool.get(allowAll);
    for (const args of [[1, 2], 42, null, true]) {
      const ran: unknown[] = [];
      const [probe] = await wardenTools({ guard, tools: [anyInputTool(ran)] });
      const outcome = await probe!.invoke(args as never);
      expect(ran, JSON.stringify(args)).toEqual([]);
      expect(String(outcome)).toContain("not a JSON object");
    }
  });

  it("a closed guard refuses the call", async () => {
    const { createGuard } = await import("../../src/guard.js");
    const guard = await createGuard({ policy: pool.file(allowAll) });
    await guard.close();
    const ran: unknown[] = [];
    const [probe] = await wardenTools({ guard, tools: [anyInputTool(ran)] });
    const outcome = await probe!.invoke({ path: "/tmp/x" });
    expect(ran).toEqual([]);
    expect(String(outcome)).toContain("did not run");
  });
});
