/**
 * The proxy as a transparent gateway: between a real SDK client and a real SDK server (McpServer), the
 * agent sees the upstream's capabilities whole (logging included), can set the log level, and receives
 * what the server sends during a call — log messages, progress, and its own requests for elicitation,
 * sampling and roots, whose answers go back to the server — while the tool calls are still checked and a
 * tool the policy denies outright is left out of the list.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type CallToolResult,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  type Progress,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Policy } from "../core/policy.js";
import { createEngine, type EngineHandle } from "../runtime/create-engine.js";
import { createGuardedMcpProxy, type GuardedMcpProxy } from "./guarded-mcp-proxy.js";

const policy = {
  name: "gateway-test",
  version: "1.0.0",
  agent: "tools",
  specification: "An agent behind the MCP gateway.",
  requests: "Never wipe the disk.",
  rules: {
    toolRules: [{ id: "no-wipe", tool: "wipe_disk", effect: "deny", message: "Never wipe the disk" }],
    toolDefault: "allow",
  },
} as Policy;

interface Rig {
  agent: Client;
  proxy: GuardedMcpProxy;
  handle: EngineHandle;
  upstream: McpServer;
  logs: LoggingMessageNotification["params"][];
  ran: string[];
}
let rig: Rig | undefined;
afterEach(async () => {
  await rig?.agent.close();
  await rig?.proxy.close();
  await rig?.handle.close();
  rig = undefined;
});

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

/** A server that, inside its tools, logs, reports progress and asks the client things. */
function upstreamServer(ran: string[]): McpServer {
  const server = new McpServer(
    { name: "talkative", version: "2.0.0" },
    { capabilities: { logging: {} }, instructions: "Talks back." },
  );
  server.registerTool("count", { inputSchema: { to: z.number().int() } }, async ({ to }, extra) => {
    ran.push("count");
    for (let i = 1; i <= to; i++) {
      await server.sendLoggingMessage({ level: "info", logger: "count", data: `at ${i}` });
      const progressToken = extra._meta?.progressToken;
      if (progressToken !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken, progress: i, total: to },
        });
      }
    }
    return { content: [{ type: "text", text: `counted to ${to}` }] };
  });
  server.registerTool("ask_user", { inputSchema: {} }, async () => {
    ran.push("ask_user");
    const answer = await server.server.elicitInput({
      message: "Which colour?",
      requestedSchema: { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] },
    });
    return { content: [{ type: "text", text: `${answer.action}: ${String(answer.content?.colour)}` }] };
  });
  server.registerTool("summarize", { inputSchema: {} }, async () => {
    ran.push("summarize");
    const sampled = await server.server.createMessage({
      messages: [{ role: "user", content: { type: "text", text: "Summarise this." } }],
      maxTokens: 10,
    });
    return { content: [{ type: "text", text: `model said: ${(sampled.content as { text: string }).text}` }] };
  });
  server.registerTool("roots", { inputSchema: {} }, async () => {
    ran.push("roots");
    const { roots } = await server.server.listRoots();
    return { content: [{ type: "text", text: roots.map((r) => r.uri).join(",") }] };
  });
  server.registerTool("wipe_disk", { inputSchema: {} }, async () => {
    ran.push("wipe_disk");
    return { content: [{ type: "text", text: "wiped" }] };
  });
  return server;
}

async function setUp(): Promise<Rig> {
  const ran: string[] = [];
  const upstream = upstreamServer(ran);
  const [toUpstream, upstreamSide] = InMemoryTransport.createLinkedPair();
  await upstream.connect(upstreamSide);
  const handle = await createEngine({ engine: "compiled" });
  const proxy = await createGuardedMcpProxy({ upstream: toUpstream, policy, engine: handle.engine });
  const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
  await proxy.connect({ transport: proxySide });
  const agent = new Client(
    { name: "agent", version: "1.0.0" },
    { capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } } },
  );
  const logs: Rig["logs"] = [];
  agent.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(n.params);
  });
  agent.setRequestHandler(ElicitRequestSchema, async () => ({
    action: "accept",
    content: { colour: "teal" },
  }));
  agent.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    model: "scripted",
    content: { type: "text", text: "short" },
  }));
  agent.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: "file:///work", name: "work" }],
  }));
  await agent.connect(agentSide);
  rig = { agent, proxy, handle, upstream, logs, ran };
  return rig;
}

describe("the guard proxy as a transparent gateway", () => {
  it("passes the upstream's capabilities, identity and instructions through whole", async () => {
    const { agent } = await setUp();
    expect(agent.getServerCapabilities()).toMatchObject({ logging: {}, tools: {} });
    expect(agent.getServerVersion()).toMatchObject({ name: "talkative", version: "2.0.0" });
    expect(agent.getInstructions()).toBe("Talks back.");
    await expect(agent.setLoggingLevel("debug")).resolves.toBeDefined();
  });

  it("relays log messages and progress of a call to the agent", async () => {
    const { agent, logs } = await setUp();
    const progress: Progress[] = [];
    const result = await agent.callTool({ name: "count", arguments: { to: 3 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(text(result)).toBe("counted to 3");
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(logs.map((l) => l.data)).toEqual(["at 1", "at 2", "at 3"]);
  });

  it("relays the server's elicitation, sampling and roots requests and their answers", async () => {
    const { agent, ran } = await setUp();
    expect(text(await agent.callTool({ name: "ask_user", arguments: {} }))).toBe("accept: teal");
    expect(text(await agent.callTool({ name: "summarize", arguments: {} }))).toBe("model said: short");
    expect(text(await agent.callTool({ name: "roots", arguments: {} }))).toBe("file:///work");
    expect(ran).toEqual(["ask_user", "summarize", "roots"]);
  });

  it("hides the tool the policy denies outright, and still refuses a call to it", async () => {
    const { agent, ran } = await setUp();
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["ask_user", "count", "roots", "summarize"]);
    const refused = await agent.callTool({ name: "wipe_disk", arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("[no-wipe]");
    expect(ran).toEqual([]);
  });

  it("relays the tool list change and forgets nothing else", async () => {
    const { agent, upstream } = await setUp();
    const changed = new Promise<void>((resolve) => {
      agent.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
    });
    upstream.registerTool("late", { inputSchema: {} }, async () => ({
      content: [{ type: "text", text: "late" }],
    }));
    await changed;
    expect(text(await agent.callTool({ name: "late", arguments: {} }))).toBe("late");
  });
});
