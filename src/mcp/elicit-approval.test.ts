/**
 * An `ask` in the guard proxy put to the human through MCP elicitation, with the real MCP SDK client
 * (which declares the capability and answers `elicitation/create` through its handler): forwarded only
 * after an accept with `approve: true`; refused after a decline, a cancel, `approve: false`, a timeout,
 * or when the client has no elicitation support.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  type CallToolResult,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { Decision } from "../core/decision.js";
import type { Policy } from "../core/policy.js";
import { loadPolicy } from "../policies/load-policy.js";
import { createEngine, type EngineHandle } from "../runtime/create-engine.js";
import { DECISION_META_KEY } from "./blocked-call-result.js";
import { supportsFormElicitation } from "./elicit-approval.js";
import { createGuardedMcpProxy, type GuardedMcpProxy } from "./guarded-mcp-proxy.js";
import { createFakeUpstreamServer, type FakeUpstream } from "./upstream-server.fixture.js";

const policy: Policy = loadPolicy({ ref: "mcp-tools" }).policy;
const MERGE = { name: "github.merge_pull_request", arguments: { repo: "acme/api", number: 12 } };

type Answer = (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;

interface Rig {
  upstream: FakeUpstream;
  proxy: GuardedMcpProxy;
  agent: Client;
  handle: EngineHandle;
  asked: ElicitRequest[];
  events: { decision: Decision; forwarded: boolean }[];
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.agent.close();
  await rig?.proxy.close();
  await rig?.handle.close();
  rig = undefined;
});

async function setUp(options: {
  answer?: Answer;
  elicitation?: boolean;
  elicitationTimeoutMs?: number;
}): Promise<Rig> {
  const upstream = createFakeUpstreamServer({ namespaced: true });
  const [toUpstream, upstreamSide] = InMemoryTransport.createLinkedPair();
  await upstream.server.connect(upstreamSide);
  const handle = await createEngine({ engine: "compiled" });
  const events: Rig["events"] = [];
  const proxy = await createGuardedMcpProxy({
    upstream: toUpstream,
    policy,
    engine: handle.engine,
    onDecision: ({ decision, forwarded }) => events.push({ decision, forwarded }),
    ...(options.elicitation !== undefined ? { elicitation: options.elicitation } : {}),
    ...(options.elicitationTimeoutMs ? { elicitationTimeoutMs: options.elicitationTimeoutMs } : {}),
  });
  const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
  await proxy.connect({ transport: proxySide });
  const asked: ElicitRequest[] = [];
  const agent = new Client(
    { name: "agent", version: "1.0.0" },
    options.answer ? { capabilities: { elicitation: {} } } : {},
  );
  const { answer } = options;
  if (answer) {
    agent.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request);
      return answer(request);
    });
  }
  await agent.connect(agentSide);
  rig = { upstream, proxy, agent, handle, asked, events };
  return rig;
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;
const decisionOf = (result: unknown) =>
  ((result as CallToolResult)._meta as Record<string, Decision>)[DECISION_META_KEY];

describe("guard proxy: ask through elicitation", () => {
  it("forwards an ask after the human accepts with approve: true, naming tool, arguments and rules", async () => {
    const { agent, upstream, asked, events, proxy } = await setUp({
      answer: () => ({ action: "accept", content: { approve: true } }),
    });
    const result = await agent.callTool(MERGE);
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe("merged acme/api#12");
    expect(upstream.calls).toEqual([{ name: MERGE.name, args: MERGE.arguments }]);
    expect(asked).toHaveLength(1);
    const params = asked[0]!.params as { message: string; requestedSchema: Record<string, unknown> };
    expect(params.message).toContain("github.merge_pull_request");
    expect(params.message).toContain('"repo": "acme/api"');
    expect(params.message).toContain("[tool.confirm-merge]");
    expect(params.requestedSchema).toMatchObject({
      type: "object",
      properties: { approve: { type: "boolean" } },
      required: ["approve"],
    });
    expect(Object.keys(params.requestedSchema.properties as object)).toEqual(["approve"]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ forwarded: true, decision: { verdict: "ask", allowed: false } });
    expect(events[0]!.decision.approval).toMatchObject({ status: "approved" });
    expect(proxy.stats()).toMatchObject({ checked: 1, forwarded: 1, blocked: 0 });
  });

  it.each<[string, ElicitResult, RegExp]>([
    ["a decline", { action: "decline" }, /declined/],
    ["a cancel", { action: "cancel" }, /dismissed/],
    ["approve: false", { action: "accept", content: { approve: false } }, /approve: false/],
  ])("refuses an ask after %s, with the reason", async (_name, reply, reason) => {
    const { agent, upstream, asked, events } = await setUp({ answer: () => reply });
    const result = await agent.callTool(MERGE);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("requires a human's confirmation");
    expect(text(result)).toMatch(reason);
    expect(asked).toHaveLength(1);
    expect(upstream.calls).toEqual([]);
    expect(decisionOf(result)).toMatchObject({ verdict: "ask", approval: { status: "denied" } });
    expect(events[0]).toMatchObject({ forwarded: false });
  });

  it("refuses an ask when the human does not answer in time", async () => {
    const { agent, upstream } = await setUp({
      answer: () => new Promise<ElicitResult>(() => undefined),
      elicitationTimeoutMs: 50,
    });
    const result = await agent.callTool(MERGE);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("no answer to the confirmation request within 50 ms");
    expect(upstream.calls).toEqual([]);
  });

  it("refuses an ask without asking when the client has no elicitation support", async () => {
    const { agent, upstream, asked } = await setUp({});
    const result = await agent.callTool(MERGE);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("does not support elicitation");
    expect(asked).toEqual([]);
    expect(upstream.calls).toEqual([]);
  });

  it("refuses an ask without asking when elicitation is turned off", async () => {
    const { agent, upstream, asked } = await setUp({
      answer: () => ({ action: "accept", content: { approve: true } }),
      elicitation: false,
    });
    const result = await agent.callTool(MERGE);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("turned off");
    expect(asked).toEqual([]);
    expect(upstream.calls).toEqual([]);
  });

  it("never asks about a deny: a denied call is refused whatever the human would say", async () => {
    const { agent, upstream, asked } = await setUp({
      answer: () => ({ action: "accept", content: { approve: true } }),
    });
    const result = await agent.callTool({
      name: "github.delete_repository",
      arguments: { repo: "acme/api" },
    });
    expect(result.isError).toBe(true);
    expect(asked).toEqual([]);
    expect(upstream.calls).toEqual([]);
  });

  it("asks about a held content request too, and refuses it when declined", async () => {
    const { agent, asked } = await setUp({ answer: () => ({ action: "decline" }) });
    // The bundled policy's toolDefault (ask) holds every resource read.
    const error = await agent.readResource({ uri: "file:///srv/notes.txt" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toContain("declined");
    expect(asked).toHaveLength(1);
    expect((asked[0]!.params as { message: string }).message).toContain(
      "resources/read (file:///srv/notes.txt)",
    );
  });
});

describe("supportsFormElicitation", () => {
  it("reads the client's declared capability", () => {
    expect(supportsFormElicitation({ capabilities: { elicitation: {} } })).toBe(true);
    expect(supportsFormElicitation({ capabilities: { elicitation: { form: {} } } })).toBe(true);
    expect(supportsFormElicitation({ capabilities: { elicitation: { url: {} } } })).toBe(false);
    expect(supportsFormElicitation({ capabilities: {} })).toBe(false);
    expect(supportsFormElicitation({ capabilities: { elicitation: true } })).toBe(false);
    expect(supportsFormElicitation({ capabilities: undefined })).toBe(false);
  });
});
