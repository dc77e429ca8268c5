/**
 * The proxy's Streamable HTTP face, with the SDK's own HTTP client: tools listed (less the one denied
 * outright), an allowed call forwarded, a denied one refused, the upstream's log messages delivered, and
 * a request naming another host refused (DNS-rebinding protection).
 */
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type CallToolResult,
  ElicitRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Policy } from "../core/policy.js";
import { createEngine, type EngineHandle } from "../runtime/create-engine.js";
import { createGuardedMcpProxy, type GuardedMcpProxy } from "./guarded-mcp-proxy.js";
import { type GuardedMcpHttpServer, serveGuardedMcpProxyHttp } from "./serve-http.js";

const policy = {
  name: "http-gateway-test",
  version: "1.0.0",
  agent: "tools",
  specification: "An agent behind the MCP gateway over HTTP.",
  requests: "Never wipe the disk.",
  rules: {
    toolRules: [{ id: "no-wipe", tool: "wipe_disk", effect: "deny", message: "Never wipe the disk" }],
    toolDefault: "allow",
  },
} as Policy;

let opened:
  | { agent?: Client; proxy: GuardedMcpProxy; http: GuardedMcpHttpServer; handle: EngineHandle }
  | undefined;
afterEach(async () => {
  await opened?.agent?.close();
  await opened?.proxy.close();
  await opened?.http.close();
  await opened?.handle.close();
  opened = undefined;
});

async function setUp() {
  const ran: string[] = [];
  const upstream = new McpServer({ name: "over-http", version: "1.0.0" }, { capabilities: { logging: {} } });
  upstream.registerTool("hello", { inputSchema: {} }, async () => {
    ran.push("hello");
    await upstream.sendLoggingMessage({ level: "info", data: "said hello" });
    return { content: [{ type: "text", text: "hello" }] };
  });
  upstream.registerTool("ask_user", { inputSchema: {} }, async () => {
    ran.push("ask_user");
    const answer = await upstream.server.elicitInput({
      message: "Which colour?",
      requestedSchema: { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] },
    });
    return { content: [{ type: "text", text: `${answer.action}: ${String(answer.content?.colour)}` }] };
  });
  upstream.registerTool("wipe_disk", { inputSchema: {} }, async () => {
    ran.push("wipe_disk");
    return { content: [{ type: "text", text: "wiped" }] };
  });
  const [toUpstream, upstreamSide] = InMemoryTransport.createLinkedPair();
  await upstream.connect(upstreamSide);
  const handle = await createEngine({ engine: "compiled" });
  const proxy = await createGuardedMcpProxy({ upstream: toUpstream, policy, engine: handle.engine });
  const http = await serveGuardedMcpProxyHttp({ proxy, port: 0 });
  opened = { proxy, http, handle };
  return { ran, http };
}

describe("the guard proxy over Streamable HTTP", () => {
  it("relays tools, logs, the server's elicitation and checked calls", async () => {
    const { ran, http } = await setUp();
    const agent = new Client({ name: "agent", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    agent.setRequestHandler(ElicitRequestSchema, async () => ({
      action: "accept",
      content: { colour: "teal" },
    }));
    const logs: LoggingMessageNotification["params"][] = [];
    agent.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
    });
    await agent.connect(new StreamableHTTPClientTransport(http.url));
    opened!.agent = agent;
    expect(agent.getServerCapabilities()).toMatchObject({ logging: {}, tools: {} });
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name)).toEqual(["hello", "ask_user"]);
    const hello = (await agent.callTool({ name: "hello", arguments: {} })) as CallToolResult;
    expect(hello.content[0]).toEqual({ type: "text", text: "hello" });
    const wipe = (await agent.callTool({ name: "wipe_disk", arguments: {} })) as CallToolResult;
    expect(wipe.isError).toBe(true);
    const asked = (await agent.callTool({ name: "ask_user", arguments: {} })) as CallToolResult;
    expect(asked.content[0]).toEqual({ type: "text", text: "accept: teal" });
    expect(ran).toEqual(["hello", "ask_user"]);
    await vi.waitFor(() => expect(logs.map((l) => l.data)).toEqual(["said hello"]));
  });

  it("refuses a request naming another host", async () => {
    const { http } = await setUp();
    // fetch may not set Host, so the request is written with node:http, as any other client could.
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        http.url,
        {
          method: "POST",
          headers: {
            host: "attacker.example",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    expect(status).toBe(403);
  });

  it("checks each call of a JSON-RPC batch posted over HTTP (red team: a batch must not carry a call past the check)", async () => {
    const { ran, http } = await setUp();
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const post = (body: unknown, session?: string) =>
      fetch(http.url, {
        method: "POST",
        headers: {
          ...headers,
          ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const session = init.headers.get("mcp-session-id") ?? undefined;
    await init.text();
    expect(session).toBeDefined();
    await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
    const batch = await post(
      [
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hello", arguments: {} } },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "wipe_disk", arguments: {} } },
        { jsonrpc: "2.0", id: 3, method: "Tools/Call", params: { name: "wipe_disk", arguments: {} } },
      ],
      session,
    );
    // The answers come back once all three are settled: by then anything forwarded has run.
    const answered = await batch.text();
    expect(answered).toContain("Never wipe the disk");
    expect(ran).toEqual(["hello"]);
  });
});
