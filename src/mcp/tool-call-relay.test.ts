/**
 * The proxy relays `tools/call` itself (not through an SDK Server and Client): these pin what the SDK
 * pair used to do for it — time limits, cancellation both ways, upstream errors and a closing upstream —
 * against a hand-written upstream that answers raw JSON-RPC as each test needs.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ErrorCode, type JSONRPCMessage, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Policy } from "../core/policy.js";
import { createEngine, type EngineHandle } from "../runtime/create-engine.js";
import { createGuardedMcpProxy, type GuardedMcpProxy } from "./guarded-mcp-proxy.js";

const policy: Policy = {
  name: "relay-test",
  version: "1",
  description: "allows every tool",
  rules: { toolDefault: "allow" },
} as Policy;

interface Rig {
  agent: Client;
  proxy: GuardedMcpProxy;
  handle: EngineHandle;
  received: JSONRPCMessage[];
  upstreamSide: InMemoryTransport;
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.agent.close().catch(() => undefined);
  await rig?.proxy.close();
  await rig?.handle.close();
  rig = undefined;
});

/** An upstream answering initialize and tools/list; tools/call "fail" gets an error, others no answer. */
async function setUp(options: { requestTimeoutMs?: number } = {}): Promise<Rig> {
  const [toUpstream, upstreamSide] = InMemoryTransport.createLinkedPair();
  const received: JSONRPCMessage[] = [];
  upstreamSide.onmessage = (message) => {
    received.push(message);
    if (!("method" in message) || !("id" in message)) return;
    const reply = (body: Record<string, unknown>) =>
      void upstreamSide.send({ jsonrpc: "2.0", id: message.id, ...body } as JSONRPCMessage);
    if (message.method === "initialize") {
      const version = (message.params as { protocolVersion: string }).protocolVersion;
      reply({
        result: {
          protocolVersion: version,
          capabilities: { tools: {} },
          serverInfo: { name: "raw", version: "1" },
        },
      });
    } else if (message.method === "tools/list") {
      reply({ result: { tools: [{ name: "slow", inputSchema: { type: "object" } }] } });
    } else if (message.method === "tools/call" && (message.params as { name: string }).name === "fail") {
      reply({ error: { code: ErrorCode.InvalidParams, message: "bad arguments", data: { field: "x" } } });
    }
  };
  await upstreamSide.start();
  const handle = await createEngine({ engine: "compiled" });
  const proxy = await createGuardedMcpProxy({
    upstream: toUpstream,
    policy,
    engine: handle.engine,
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
  });
  const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
  await proxy.connect({ transport: proxySide });
  const agent = new Client({ name: "agent", version: "1.0.0" });
  await agent.connect(agentSide);
  rig = { agent, proxy, handle, received, upstreamSide };
  return rig;
}

const calls = (received: JSONRPCMessage[]) =>
  received.filter((m): m is JSONRPCMessage & { id: string } => "method" in m && m.method === "tools/call");
const cancellations = (received: JSONRPCMessage[]) =>
  received.filter((m) => "method" in m && m.method === "notifications/cancelled");

describe("the proxy's tools/call relay", () => {
  it("passes an upstream error through with its code and data", async () => {
    const { agent } = await setUp();
    const error = await agent.callTool({ name: "fail", arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toContain("bad arguments");
    expect((error as McpError).data).toEqual({ field: "x" });
  });

  it("forwards under an id of its own, never the agent's", async () => {
    const { agent, received } = await setUp();
    await agent.callTool({ name: "fail", arguments: { a: 1 } }).catch(() => undefined);
    const [forwarded] = calls(received);
    expect(forwarded?.id).toMatch(/^warden-proxy-/);
    expect((forwarded as { params?: unknown }).params).toEqual({ name: "fail", arguments: { a: 1 } });
  });

  it("answers a call the upstream does not answer in time with RequestTimeout, and cancels it upstream", async () => {
    const { agent, received } = await setUp({ requestTimeoutMs: 50 });
    const error = await agent.callTool({ name: "slow", arguments: {} }).catch((e: unknown) => e);
    expect((error as McpError).code).toBe(ErrorCode.RequestTimeout);
    const [forwarded] = calls(received);
    await vi.waitFor(() =>
      expect(cancellations(received)).toEqual([
        {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: forwarded!.id, reason: "timed out" },
        },
      ]),
    );
  });

  it("times each call from when it was sent, however many were answered before or are waiting beside it", async () => {
    const { agent, received } = await setUp({ requestTimeoutMs: 300 });
    const first = agent.callTool({ name: "slow", arguments: { n: 1 } }).catch((e: unknown) => e);
    // Answered calls in between leave the waiting ones' limits as they were.
    for (let i = 0; i < 5; i++) await agent.callTool({ name: "fail", arguments: {} }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const sentSecond = performance.now();
    let secondOut = false;
    const second = agent
      .callTool({ name: "slow", arguments: { n: 2 } })
      .catch((e: unknown) => e)
      .finally(() => {
        secondOut = true;
      });
    expect(((await first) as McpError).code).toBe(ErrorCode.RequestTimeout);
    // The second is still waiting when the first runs out, and runs out on its own limit, never sooner.
    expect(secondOut).toBe(false);
    expect(((await second) as McpError).code).toBe(ErrorCode.RequestTimeout);
    expect(performance.now() - sentSecond).toBeGreaterThanOrEqual(290);
    await vi.waitFor(() => expect(cancellations(received)).toHaveLength(2));
  });

  it("passes the agent's cancellation upstream under the forwarded id", async () => {
    const { agent, received } = await setUp();
    const controller = new AbortController();
    const pending = agent.callTool({ name: "slow", arguments: {} }, undefined, { signal: controller.signal });
    await vi.waitFor(() => expect(calls(received)).toHaveLength(1));
    controller.abort("user stopped");
    await expect(pending).rejects.toThrow();
    const [forwarded] = calls(received);
    await vi.waitFor(() =>
      expect(cancellations(received)).toMatchObject([{ params: { requestId: forwarded!.id } }]),
    );
  });

  it("answers a call still waiting when the upstream closes with ConnectionClosed", async () => {
    const { agent, received, upstreamSide } = await setUp();
    const pending = agent.callTool({ name: "slow", arguments: {} }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(calls(received)).toHaveLength(1));
    await upstreamSide.close();
    const error = await pending;
    expect(error).toBeInstanceOf(McpError);
    expect([ErrorCode.ConnectionClosed]).toContain((error as McpError).code);
  });
});
