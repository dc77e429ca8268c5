import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { Decision } from "../core/decision.js";
import { WardenError } from "../core/errors.js";
import type { Subject } from "../core/subject.js";
import type { Engine } from "../engines/engine.js";
import { loadPolicy } from "../policies/load-policy.js";
import { createEngine, type EngineHandle } from "../runtime/create-engine.js";
import { DECISION_META_KEY } from "./blocked-call-result.js";
import { createGuardedMcpProxy, type GuardedMcpProxy } from "./guarded-mcp-proxy.js";
import { createFakeUpstreamServer, type FakeUpstream } from "./upstream-server.fixture.js";

const policy = loadPolicy({ ref: "mcp-tools" }).policy;

interface Rig {
  upstream: FakeUpstream;
  proxy: GuardedMcpProxy;
  agent: Client;
  handle?: EngineHandle;
  subjects: Subject[];
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.agent.close();
  await rig?.proxy.close();
  await rig?.handle?.close();
  rig = undefined;
});

async function setUp(
  options: { engine?: Engine; toolPrefix?: string; namespaced?: boolean; task?: string } = {},
) {
  const upstream = createFakeUpstreamServer({ namespaced: options.namespaced ?? true });
  const [toUpstream, upstreamSide] = InMemoryTransport.createLinkedPair();
  await upstream.server.connect(upstreamSide);
  const handle = options.engine ? undefined : await createEngine({ engine: "compiled" });
  const inner = options.engine ?? handle!.engine;
  const subjects: Subject[] = [];
  // Records what the proxy asks, then lets the real engine decide.
  const engine: Engine = {
    name: inner.name,
    check: (o) => {
      subjects.push(structuredClone(o.subject));
      return inner.check(o);
    },
  };
  const proxy = await createGuardedMcpProxy({
    upstream: toUpstream,
    policy,
    engine,
    ...(options.toolPrefix ? { toolPrefix: options.toolPrefix } : {}),
    ...(options.task ? { task: options.task } : {}),
  });
  const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
  await proxy.connect({ transport: proxySide });
  const agent = new Client({ name: "agent", version: "1.0.0" });
  await agent.connect(agentSide);
  rig = { upstream, proxy, agent, subjects, ...(handle ? { handle } : {}) };
  return rig;
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe("createGuardedMcpProxy", () => {
  it("presents the upstream server's tools unchanged", async () => {
    const { agent } = await setUp();
    const direct = createFakeUpstreamServer();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await direct.server.connect(b);
    const directClient = new Client({ name: "direct", version: "1.0.0" });
    await directClient.connect(a);
    const expected = await directClient.listTools();
    await directClient.close();
    const listed = await agent.listTools();
    expect(listed.tools).toEqual(expected.tools);
    expect(listed.tools.map((t) => t.name)).toContain("github.merge_pull_request");
    expect(agent.getInstructions()).toBe("Fake tools for tests.");
  });

  it("forwards an allowed call and returns the upstream's result", async () => {
    const { agent, upstream, proxy } = await setUp();
    const result = await agent.callTool({
      name: "filesystem.delete_file",
      arguments: { path: "/tmp/build.log" },
    });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe("deleted /tmp/build.log");
    expect(upstream.calls).toEqual([{ name: "filesystem.delete_file", args: { path: "/tmp/build.log" } }]);
    expect(proxy.stats()).toMatchObject({ checked: 1, forwarded: 1, blocked: 0 });
  });

  it("never forwards a denied call and explains the violated rule", async () => {
    const { agent, upstream } = await setUp();
    const result = await agent.callTool({
      name: "filesystem.delete_file",
      arguments: { path: "/home/me/thesis.tex" },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("Warden denied the call to filesystem.delete_file");
    expect(text(result)).toContain("[tool.delete-only-tmp] Files may be deleted only under /tmp/");
    expect(text(result)).toContain("not sent to the tool");
    const decision = (result._meta as Record<string, Decision>)[DECISION_META_KEY];
    expect(decision).toMatchObject({ allowed: false, verdict: "deny" });
    const repo = await agent.callTool({ name: "github.delete_repository", arguments: { repo: "acme/api" } });
    expect(repo.isError).toBe(true);
    expect(text(repo)).toContain("[tool.no-repo-deletion]");
    expect(upstream.calls).toEqual([]);
  });

  it("blocks an ask, saying a human must confirm, without reaching the upstream", async () => {
    const { agent, upstream, proxy } = await setUp();
    const result = await agent.callTool({
      name: "github.merge_pull_request",
      arguments: { repo: "acme/api", number: 12 },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("requires a human's confirmation");
    expect(text(result)).toContain("[tool.confirm-merge]");
    expect(text(result)).toContain("A human must confirm this call");
    expect(upstream.calls).toEqual([]);
    expect(proxy.stats().byVerdict).toEqual({ allow: 0, deny: 0, ask: 1 });
  });

  it("passes an upstream tool error through unchanged", async () => {
    const { agent, upstream } = await setUp();
    const result = await agent.callTool({
      name: "filesystem.read_file",
      arguments: { path: "/srv/missing.txt" },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("no such file: /srv/missing.txt");
    expect(upstream.calls).toHaveLength(1);
  });

  it("checks the call as the agent's output and context, with the session's earlier calls as trajectory", async () => {
    const { agent, subjects } = await setUp({ task: "Tidy the build directory" });
    await agent.callTool({ name: "filesystem.read_file", arguments: { path: "/tmp/a" } });
    await agent.callTool({ name: "filesystem.delete_file", arguments: { path: "/tmp/a" } });
    const last = subjects[1]!;
    expect(last.input).toBe("Tidy the build directory");
    expect(JSON.parse(last.output)).toEqual({
      method: "tools/call",
      params: { name: "filesystem.delete_file", arguments: { path: "/tmp/a" } },
    });
    expect(last.context?.toolCalls).toEqual([
      { name: "filesystem.delete_file", arguments: { path: "/tmp/a" } },
    ]);
    expect(last.trajectory).toEqual([
      { action: "filesystem.read_file", args: { path: "/tmp/a" }, observation: "contents of /tmp/a" },
      { action: "filesystem.delete_file", args: { path: "/tmp/a" } },
    ]);
  });

  it("checks un-namespaced upstream tools under the configured prefix", async () => {
    const { agent, upstream } = await setUp({ namespaced: false, toolPrefix: "filesystem." });
    const denied = await agent.callTool({ name: "delete_file", arguments: { path: "/etc/hosts" } });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toContain("[tool.delete-only-tmp]");
    const allowed = await agent.callTool({ name: "delete_file", arguments: { path: "/tmp/x" } });
    expect(text(allowed)).toBe("deleted /tmp/x");
    expect(upstream.calls.map((c) => c.name)).toEqual(["delete_file"]);
  });

  it("answers a check that throws with the mapped MCP error and forwards nothing", async () => {
    const failing: Engine = {
      name: "failing",
      check: async () => {
        throw new WardenError({ code: "MODEL_CONFIG", message: "the guardagent engine needs a model" });
      },
    };
    const { agent, upstream } = await setUp({ engine: failing });
    const error = await agent
      .callTool({ name: "filesystem.delete_file", arguments: { path: "/tmp/x" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toContain("needs a model");
    expect((error as McpError).data).toMatchObject({ wardenCode: "MODEL_CONFIG" });
    expect(upstream.calls).toEqual([]);
  });

  it("closes the upstream side when the agent goes away", async () => {
    const { agent, proxy, upstream } = await setUp();
    let upstreamClosed = false;
    upstream.server.server.onclose = () => {
      upstreamClosed = true;
    };
    await agent.close();
    await proxy.closed;
    expect(upstreamClosed).toBe(true);
  });
});
