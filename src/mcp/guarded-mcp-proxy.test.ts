import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { allowDecision, type Decision, denyDecision } from "../core/decision.js";
import { WardenError } from "../core/errors.js";
import type { Policy, ToolRule } from "../core/policy.js";
import type { Subject } from "../core/subject.js";
import type { Engine } from "../engines/engine.js";
import { inlineCheckOf, withInlineCheck } from "../engines/inline-check.js";
import { loadPolicy } from "../policies/load-policy.js";
import { createEngine, type EngineHandle } from "../runtime/create-engine.js";
import { DECISION_META_KEY } from "./blocked-call-result.js";
import {
  createGuardedMcpProxy,
  type GuardedMcpProxy,
  type GuardedMcpProxyOptions,
} from "./guarded-mcp-proxy.js";
import {
  createFakeUpstreamServer,
  type FakeUpstream,
  type FakeUpstreamOptions,
} from "./upstream-server.fixture.js";

const bundled = loadPolicy({ ref: "mcp-tools" }).policy;
/**
 * How a policy covers the guarded content requests: they are tool calls named "resources/read" (args
 * `{ uri }`) and "prompts/get" (args `{ name, arguments }`). The bundled policy has no such rules, so its
 * toolDefault ("ask") would hold every read.
 */
const CONTENT_RULES: ToolRule[] = [
  {
    id: "resource.no-etc",
    tool: "resources/read",
    when: { field: "args.uri", part: "path", op: "pathWithin", value: "/etc" },
    effect: "deny",
    message: "System files under /etc/ may not be read",
  },
  {
    id: "resource.allow-read",
    tool: "resources/read",
    effect: "allow",
    message: "Reading other resources is allowed",
  },
  { id: "prompt.allow", tool: "prompts/get", effect: "allow", message: "Prompts are allowed" },
];
const policy: Policy = {
  ...bundled,
  rules: { ...bundled.rules, toolRules: [...(bundled.rules?.toolRules ?? []), ...CONTENT_RULES] },
};

type DecisionEvent = Parameters<NonNullable<GuardedMcpProxyOptions["onDecision"]>>[0];

interface Rig {
  upstream: FakeUpstream;
  /** The methods of every request the proxy sent upstream, in order. */
  upstreamRequests: string[];
  proxy: GuardedMcpProxy;
  agent: Client;
  handle?: EngineHandle;
  subjects: Subject[];
  events: DecisionEvent[];
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.agent.close();
  await rig?.proxy.close();
  await rig?.handle?.close();
  rig = undefined;
});

async function setUp(
  options: {
    engine?: Engine;
    toolPrefix?: string;
    namespaced?: boolean;
    task?: string;
    policy?: Policy;
    guardContent?: boolean;
    checkTimeoutMs?: number;
    context?: Record<string, unknown>;
    warmUpChecks?: number;
    upstream?: Omit<FakeUpstreamOptions, "namespaced">;
    /** Called after the rig records each decision. */
    onDecision?: (event: DecisionEvent) => void;
  } = {},
) {
  const upstream = createFakeUpstreamServer({ ...options.upstream, namespaced: options.namespaced ?? true });
  const [toUpstream, upstreamSide] = InMemoryTransport.createLinkedPair();
  await upstream.server.connect(upstreamSide);
  const upstreamRequests: string[] = [];
  const send = toUpstream.send.bind(toUpstream);
  toUpstream.send = (message, sendOptions) => {
    if ("method" in message && "id" in message) upstreamRequests.push(message.method);
    return send(message, sendOptions);
  };
  const handle = options.engine ? undefined : await createEngine({ engine: "compiled" });
  const inner = options.engine ?? handle!.engine;
  const subjects: Subject[] = [];
  // Records what the proxy asks, then lets the real engine decide: inline when the engine can (as the
  // proxy checks with a real engine), else by its check.
  const engine: Engine = {
    name: inner.name,
    check: (o) => {
      subjects.push(structuredClone(o.subject));
      return inner.check(o);
    },
  };
  const inline = inlineCheckOf({ engine: inner });
  if (inline) {
    withInlineCheck({
      engine,
      inline: (o) => {
        const decision = inline(o);
        if (decision) subjects.push(structuredClone(o.subject));
        return decision;
      },
    });
  }
  const events: DecisionEvent[] = [];
  const proxy = await createGuardedMcpProxy({
    upstream: toUpstream,
    policy: options.policy ?? policy,
    engine,
    onDecision: (event) => {
      events.push(event);
      options.onDecision?.(event);
    },
    ...(options.toolPrefix ? { toolPrefix: options.toolPrefix } : {}),
    ...(options.task ? { task: options.task } : {}),
    ...(options.guardContent !== undefined ? { guardContent: options.guardContent } : {}),
    ...(options.checkTimeoutMs !== undefined ? { checkTimeoutMs: options.checkTimeoutMs } : {}),
    ...(options.context ? { context: options.context } : {}),
    ...(options.warmUpChecks !== undefined ? { warmUpChecks: options.warmUpChecks } : {}),
  });
  const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
  await proxy.connect({ transport: proxySide });
  const agent = new Client({ name: "agent", version: "1.0.0" });
  await agent.connect(agentSide);
  rig = { upstream, upstreamRequests, proxy, agent, subjects, events, ...(handle ? { handle } : {}) };
  return rig;
}

/** A client connected straight to a fresh fake upstream, for what the proxy should reproduce. */
async function direct(options: FakeUpstreamOptions = {}): Promise<Client> {
  const upstream = createFakeUpstreamServer(options);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await upstream.server.connect(b);
  const client = new Client({ name: "direct", version: "1.0.0" });
  await client.connect(a);
  return client;
}

/** Settles with the rejection of `promise` (and fails when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<McpError> {
  const outcome = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(McpError);
  return outcome as McpError;
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe("createGuardedMcpProxy", () => {
  it("presents the upstream server's tools unchanged, less those the policy denies outright", async () => {
    const { agent } = await setUp();
    const direct = createFakeUpstreamServer();
    const [a, b] = InMemoryTransport.createLinkedPair();
    await direct.server.connect(b);
    const directClient = new Client({ name: "direct", version: "1.0.0" });
    await directClient.connect(a);
    const expected = await directClient.listTools();
    await directClient.close();
    const listed = await agent.listTools();
    // tool.no-repo-deletion denies github.delete_repository with no condition: no call of it can pass.
    expect(listed.tools).toEqual(expected.tools.filter((t) => t.name !== "github.delete_repository"));
    expect(expected.tools.map((t) => t.name)).toContain("github.delete_repository");
    // An ask (merge) and a conditional deny (delete_file) are listed: some of their calls may pass.
    expect(listed.tools.map((t) => t.name)).toContain("github.merge_pull_request");
    expect(listed.tools.map((t) => t.name)).toContain("filesystem.delete_file");
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

  it("refuses a call whose check outlasts checkTimeoutMs, without waiting for the engine", async () => {
    let seen: AbortSignal | undefined;
    // An engine that never answers: only the time limit can end the check.
    const hung: Engine = {
      name: "hung",
      check: (o) => {
        seen = o.signal;
        return new Promise<Decision>(() => undefined);
      },
    };
    const { agent, upstream, proxy } = await setUp({ engine: hung, checkTimeoutMs: 50 });
    const result = await agent.callTool({
      name: "filesystem.delete_file",
      arguments: { path: "/tmp/build.log" },
    });
    expect(result.isError).toBe(true);
    const decision = (result._meta as Record<string, Decision>)[DECISION_META_KEY];
    expect(decision).toMatchObject({ allowed: false, failure: { code: "CHECK_TIMEOUT" } });
    expect(seen?.aborted).toBe(true);
    expect(upstream.calls).toEqual([]);
    expect(proxy.stats()).toMatchObject({ checked: 1, forwarded: 0, blocked: 1 });
  });

  it("takes an engine's inline decision without calling its check, and forwards only an allow", async () => {
    const verdicts = new Map<string, Decision>([
      ["/tmp/allowed", allowDecision({ engine: "inline", output: null })],
      ["/tmp/denied", denyDecision({ engine: "inline", violations: [{ ruleId: "r", message: "no" }] })],
    ]);
    // Its check never answers: a call that reached it would time out instead.
    const engine: Engine = { name: "inline", check: () => new Promise<Decision>(() => undefined) };
    withInlineCheck({
      engine,
      inline: ({ subject }) => verdicts.get(String(subject.trajectory?.at(-1)?.args.path)),
    });
    const { agent, upstream, proxy } = await setUp({ engine, checkTimeoutMs: 50 });
    const allowed = await agent.callTool({
      name: "filesystem.delete_file",
      arguments: { path: "/tmp/allowed" },
    });
    expect(text(allowed)).toBe("deleted /tmp/allowed");
    const denied = await agent.callTool({
      name: "filesystem.delete_file",
      arguments: { path: "/tmp/denied" },
    });
    expect(denied.isError).toBe(true);
    // No inline answer: the check runs, and its time limit refuses the call.
    const late = await agent.callTool({ name: "filesystem.delete_file", arguments: { path: "/tmp/other" } });
    const decision = (late._meta as Record<string, Decision>)[DECISION_META_KEY];
    expect(decision).toMatchObject({ allowed: false, failure: { code: "CHECK_TIMEOUT" } });
    expect(upstream.calls).toEqual([{ name: "filesystem.delete_file", args: { path: "/tmp/allowed" } }]);
    expect(proxy.stats()).toMatchObject({ checked: 3, forwarded: 1, blocked: 2 });
  });

  it("forwards nothing when onDecision throws: the call is reported before it goes anywhere", async () => {
    const { agent, upstream, events } = await setUp({
      onDecision: () => {
        throw new Error("the reporter is down");
      },
    });
    const error = await agent
      .callTool({ name: "filesystem.delete_file", arguments: { path: "/tmp/build.log" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(events.map((e) => e.forwarded)).toEqual([true]);
    expect(upstream.calls).toEqual([]);
  });

  it("rejects a bad checkTimeoutMs naming the field", async () => {
    await expect(setUp({ checkTimeoutMs: -1 })).rejects.toThrow(/checkTimeoutMs/);
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

  it("keeps each forwarded call's arguments in the trajectory as a frozen copy of what was sent, never the agent's object", async () => {
    const { agent, subjects } = await setUp();
    // An own "__proto__" key, as JSON from the wire gives it: a key of the arguments, never a prototype.
    const args = JSON.parse('{"path": "/tmp/a", "__proto__": {"note": "x"}}') as Record<string, unknown>;
    await agent.callTool({ name: "filesystem.read_file", arguments: args });
    // The agent's object stays its own: not frozen, and changing it later changes nothing already checked.
    expect(Object.isFrozen(args)).toBe(false);
    args.path = "/etc/passwd";
    await agent.callTool({ name: "filesystem.read_file", arguments: { path: "/tmp/b" } });
    const earlier = subjects[1]!.trajectory![0]!;
    expect(earlier.args.path).toBe("/tmp/a");
    expect(Object.hasOwn(earlier.args, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(earlier.args)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(earlier.args, "__proto__")?.value).toEqual({ note: "x" });
  });

  it("keeps the newest observations within a budget, so a long session's subject stays small", async () => {
    const { agent, subjects } = await setUp();
    const long = (i: number) => `/tmp/${"x".repeat(1900)}${i}`;
    for (let i = 0; i < 10; i++)
      await agent.callTool({ name: "filesystem.read_file", arguments: { path: long(i) } });
    await agent.callTool({ name: "filesystem.read_file", arguments: { path: "/tmp/a" } });
    const trajectory = subjects[10]!.trajectory!;
    expect(trajectory).toHaveLength(11);
    const observed = trajectory.map((step) => step.observation?.length ?? 0);
    expect(observed.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(16 * 1024);
    expect(trajectory[0]).toEqual({ action: "filesystem.read_file", args: { path: long(0) } });
    expect(trajectory[9]!.observation).toBe(`contents of ${long(9)}`);
    // What an earlier check was given never changes afterwards: the proxy replaces its steps, it does not
    // edit the ones a check may still hold.
    expect(subjects[1]!.trajectory![0]!.observation).toBe(`contents of ${long(0)}`);
    expect(subjects[1]!.trajectory![1]).toEqual({ action: "filesystem.read_file", args: { path: long(1) } });
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

  it("with an upstream it starts itself (stdio), keeps the forwarded arguments frozen, as sent, apart from the agent's", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-proxy-stdio-"));
    const log = join(dir, "calls.jsonl");
    // The upstream inherits this process's environment (the proxy's default), the fixture's log included.
    vi.stubEnv("FAKE_UPSTREAM_LOG", log);
    const handle = await createEngine({ engine: "compiled" });
    const subjects: Subject[] = [];
    const engine: Engine = {
      name: handle.engine.name,
      check: (o) => {
        subjects.push(o.subject);
        return handle.engine.check(o);
      },
    };
    const proxy = await createGuardedMcpProxy({
      upstream: {
        command: process.execPath,
        args: ["--import", "tsx", fileURLToPath(new URL("./stdio-upstream.fixture.ts", import.meta.url))],
      },
      policy,
      engine,
    });
    const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
    await proxy.connect({ transport: proxySide });
    const agent = new Client({ name: "agent", version: "1.0.0" });
    try {
      await agent.connect(agentSide);
      const args = JSON.parse('{"path": "/tmp/a", "__proto__": {"note": "x"}}') as Record<string, unknown>;
      expect(text(await agent.callTool({ name: "filesystem.read_file", arguments: args }))).toBe(
        "contents of /tmp/a",
      );
      expect(Object.isFrozen(args)).toBe(false);
      args.path = "/etc/passwd";
      await agent.callTool({ name: "filesystem.read_file", arguments: { path: "/tmp/b" } });
      const earlier = subjects.at(-1)!.trajectory![0]!;
      expect(earlier.args.path).toBe("/tmp/a");
      expect(Object.isFrozen(earlier.args)).toBe(true);
      expect(Object.isFrozen(Object.getOwnPropertyDescriptor(earlier.args, "__proto__")?.value)).toBe(true);
      expect(Object.getPrototypeOf(earlier.args)).toBe(Object.prototype);
      expect(earlier.observation).toBe("contents of /tmp/a");
      const received = readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown);
      // (The upstream's SDK drops an own "__proto__" key when it validates the arguments.)
      expect(received).toEqual([
        { name: "filesystem.read_file", args: { path: "/tmp/a" } },
        { name: "filesystem.read_file", args: { path: "/tmp/b" } },
      ]);
    } finally {
      await agent.close();
      await proxy.close();
      await handle.close();
      vi.unstubAllEnvs();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("createGuardedMcpProxy: the tools' input schemas", () => {
  const PATH_SCHEMA = {
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
  };

  it("fetches the schemas once when the agent never listed, and passes the called tool's as context.toolSchemas", async () => {
    const { agent, subjects, upstreamRequests } = await setUp();
    await agent.callTool({ name: "filesystem.read_file", arguments: { path: "/tmp/a" } });
    await agent.callTool({ name: "filesystem.delete_file", arguments: { path: "/tmp/a" } });
    expect(upstreamRequests.filter((m) => m === "tools/list")).toHaveLength(1);
    expect(subjects[0]!.context?.toolSchemas).toEqual({
      "filesystem.read_file": expect.objectContaining(PATH_SCHEMA),
    });
    expect(subjects[1]!.context?.toolSchemas).toEqual({
      "filesystem.delete_file": expect.objectContaining(PATH_SCHEMA),
    });
  });

  it("learns the schemas from the agent's own listing without fetching them again", async () => {
    const { agent, subjects, upstreamRequests } = await setUp();
    const listed = await agent.listTools();
    await agent.callTool({ name: "github.create_issue", arguments: { repo: "acme/api", title: "x" } });
    expect(upstreamRequests.filter((m) => m === "tools/list")).toHaveLength(1);
    const schema = listed.tools.find((t) => t.name === "github.create_issue")!.inputSchema;
    expect(subjects[0]!.context?.toolSchemas).toEqual({ "github.create_issue": schema });
  });

  it("keys the schema by the name the call is checked as (after the tool prefix)", async () => {
    const { agent, subjects } = await setUp({ namespaced: false, toolPrefix: "filesystem." });
    await agent.callTool({ name: "delete_file", arguments: { path: "/tmp/x" } });
    expect(Object.keys(subjects[0]!.context?.toolSchemas as object)).toEqual(["filesystem.delete_file"]);
  });

  it("forgets the schemas on tools/list_changed and fetches them again on the next call", async () => {
    const { agent, upstream, subjects, upstreamRequests } = await setUp();
    await agent.callTool({ name: "filesystem.read_file", arguments: { path: "/tmp/a" } });
    const changed = new Promise<void>((resolve) =>
      agent.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    // Registering a tool on a connected McpServer sends notifications/tools/list_changed.
    upstream.server.registerTool(
      "filesystem.copy_file",
      { description: "Copy a file", inputSchema: { source: z.string(), destination: z.string() } },
      async () => ({ content: [{ type: "text", text: "copied" }] }),
    );
    await changed;
    await agent.callTool({ name: "filesystem.copy_file", arguments: { source: "/a", destination: "/b" } });
    expect(upstreamRequests.filter((m) => m === "tools/list")).toHaveLength(2);
    expect(subjects[1]!.context?.toolSchemas).toEqual({
      "filesystem.copy_file": expect.objectContaining({
        properties: { source: { type: "string" }, destination: { type: "string" } },
      }),
    });
  });

  it("never lets the configured context replace the call or its schema", async () => {
    const { agent, subjects } = await setUp({
      context: {
        identity: "admin",
        toolCalls: [{ name: "github.create_issue", arguments: {} }],
        toolCall: { name: "github.create_issue", arguments: {} },
        toolSchemas: { "filesystem.delete_file": { type: "object", properties: {} } },
      },
    });
    const denied = await agent.callTool({
      name: "filesystem.delete_file",
      arguments: { path: "/etc/hosts" },
    });
    expect(denied.isError).toBe(true);
    const context = subjects[0]!.context!;
    expect(context.identity).toBe("admin");
    expect(context.toolCall).toBeUndefined();
    expect(context.toolCalls).toEqual([
      { name: "filesystem.delete_file", arguments: { path: "/etc/hosts" } },
    ]);
    expect(context.toolSchemas).toEqual({ "filesystem.delete_file": expect.objectContaining(PATH_SCHEMA) });
  });
});

describe("createGuardedMcpProxy: the warm-up", () => {
  /** Waits, boundedly, until `count()` has stopped growing. */
  const settled = async (count: () => number) => {
    let last = -1;
    for (let i = 0; i < 100 && count() !== last; i++) {
      last = count();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return count();
  };

  it("checks made-up calls of the listed tools inline once they are known, and changes nothing", async () => {
    const { agent, subjects, events, proxy, upstream } = await setUp({ warmUpChecks: 40 });
    await agent.listTools();
    expect(await settled(() => subjects.length)).toBe(40);
    const tools = new Set(subjects.map((s) => s.trajectory?.at(-1)?.action));
    expect(tools.size).toBeGreaterThan(1);
    // A path argument gets a path; every made-up call is alone in its trajectory.
    const read = subjects.find((s) => s.trajectory?.at(-1)?.action === "filesystem.read_file");
    expect(typeof read?.trajectory?.at(-1)?.args.path).toBe("string");
    expect(subjects.every((s) => s.trajectory?.length === 1)).toBe(true);
    // Nothing was forwarded, counted, reported or remembered.
    expect(upstream.calls).toEqual([]);
    expect(events).toEqual([]);
    expect(proxy.stats()).toMatchObject({ checked: 0, forwarded: 0, blocked: 0 });
    await agent.callTool({ name: "filesystem.read_file", arguments: { path: "/tmp/a" } });
    expect(subjects.at(-1)?.trajectory).toHaveLength(1);
    expect(proxy.stats()).toMatchObject({ checked: 1 });
  });

  it("never asks an engine's check, so never a model: with no inline answer it stops at once", async () => {
    let checks = 0;
    let inlineAsked = 0;
    const engine: Engine = {
      name: "model-backed",
      check: async () => {
        checks++;
        return allowDecision({ engine: "model-backed", output: null });
      },
    };
    withInlineCheck({
      engine,
      inline: () => {
        inlineAsked++;
        return undefined;
      },
    });
    const { agent } = await setUp({ engine, warmUpChecks: 500 });
    await agent.listTools();
    await settled(() => inlineAsked);
    expect(inlineAsked).toBe(1);
    expect(checks).toBe(0);
  });

  it("runs only when asked (warmUpChecks 0 by default) and rejects a bad count naming the field", async () => {
    const { agent, subjects } = await setUp();
    await agent.listTools();
    expect(await settled(() => subjects.length)).toBe(0);
    const [upstreamSide] = InMemoryTransport.createLinkedPair();
    await expect(
      createGuardedMcpProxy({
        upstream: upstreamSide,
        policy,
        engine: { name: "x", check: async () => allowDecision({ engine: "x", output: null }) },
        warmUpChecks: -1,
      }),
    ).rejects.toThrow(/warmUpChecks/);
  });
});

describe("createGuardedMcpProxy: resources and prompts", () => {
  it("advertises what the upstream offers and passes lists, templates and completions through whole", async () => {
    const { agent, subjects } = await setUp();
    const reference = await direct();
    try {
      expect(agent.getServerCapabilities()).toEqual(reference.getServerCapabilities());
      expect(agent.getServerCapabilities()).toMatchObject({
        tools: {},
        resources: { listChanged: true },
        prompts: { listChanged: true },
        completions: {},
      });
      const resources = await agent.listResources();
      expect(resources).toEqual(await reference.listResources());
      expect(resources.resources.find((r) => r.uri === "file:///tmp/notes.txt")).toEqual({
        uri: "file:///tmp/notes.txt",
        name: "notes.txt",
        title: "The file notes.txt",
        description: "Contents of file:///tmp/notes.txt",
        mimeType: "text/plain",
        annotations: { audience: ["assistant"], priority: 0.5 },
        _meta: { "fake/size": 17 },
      });
      const templates = await agent.listResourceTemplates();
      expect(templates).toEqual(await reference.listResourceTemplates());
      expect(templates.resourceTemplates).toEqual([
        expect.objectContaining({
          name: "srv-file",
          uriTemplate: "file:///srv/{name}",
          mimeType: "text/plain",
        }),
      ]);
      const prompts = await agent.listPrompts();
      expect(prompts).toEqual(await reference.listPrompts());
      expect(prompts.prompts[0]).toMatchObject({
        name: "review_code",
        title: "Code review",
        arguments: [
          { name: "code", required: true },
          { name: "language", required: false },
        ],
      });
      const completion = await agent.complete({
        ref: { type: "ref/resource", uri: "file:///srv/{name}" },
        argument: { name: "name", value: "a" },
      });
      expect(completion.completion.values).toEqual(["app.log", "access.log"]);
      // Listing names content without delivering it: nothing was checked.
      expect(subjects).toEqual([]);
    } finally {
      await reference.close();
    }
  });

  it("forwards an allowed resources/read and prompts/get, checked as calls and kept in the trajectory", async () => {
    const { agent, upstream, proxy, subjects, events } = await setUp();
    const read = await agent.readResource({ uri: "file:///tmp/notes.txt" });
    expect(read.contents).toEqual([
      { uri: "file:///tmp/notes.txt", mimeType: "text/plain", text: "remember the milk" },
    ]);
    const templated = await agent.readResource({ uri: "file:///srv/app.log" });
    expect(templated.contents[0]).toMatchObject({ text: "contents of /srv/app.log" });
    const prompt = await agent.getPrompt({
      name: "review_code",
      arguments: { code: "x = 1", language: "Python" },
    });
    expect(prompt).toEqual({
      description: "A code review request",
      messages: [{ role: "user", content: { type: "text", text: "Review this Python:\nx = 1" } }],
    });
    expect(upstream.reads).toEqual(["file:///tmp/notes.txt", "file:///srv/app.log"]);
    expect(upstream.promptGets).toEqual([
      { name: "review_code", args: { code: "x = 1", language: "Python" } },
    ]);
    expect(proxy.stats()).toEqual({
      checked: 3,
      forwarded: 3,
      blocked: 0,
      byVerdict: { allow: 3, deny: 0, ask: 0 },
    });
    expect(events.map((e) => [e.tool, e.checkedAs, e.forwarded])).toEqual([
      ["resources/read", "resources/read", true],
      ["resources/read", "resources/read", true],
      ["prompts/get", "prompts/get", true],
    ]);
    expect(events[0]!.decision.explanation).toContain("resource.allow-read");
    const last = subjects[2]!;
    expect(JSON.parse(last.output)).toEqual({
      method: "tools/call",
      params: {
        name: "prompts/get",
        arguments: { name: "review_code", arguments: { code: "x = 1", language: "Python" } },
      },
    });
    expect(last.trajectory).toEqual([
      { action: "resources/read", args: { uri: "file:///tmp/notes.txt" }, observation: "remember the milk" },
      {
        action: "resources/read",
        args: { uri: "file:///srv/app.log" },
        observation: "contents of /srv/app.log",
      },
      {
        action: "prompts/get",
        args: { name: "review_code", arguments: { code: "x = 1", language: "Python" } },
      },
    ]);
  });

  it("refuses a denied resources/read with an McpError naming the rule, and never forwards it", async () => {
    const { agent, upstream, proxy, events } = await setUp();
    const error = await rejection(agent.readResource({ uri: "file:///etc/passwd" }));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.message).toContain("Warden denied the call to resources/read (file:///etc/passwd)");
    expect(error.message).toContain("[resource.no-etc] System files under /etc/ may not be read");
    expect((error.data as Record<string, Decision>)[DECISION_META_KEY]).toMatchObject({
      allowed: false,
      verdict: "deny",
      violations: [expect.objectContaining({ ruleId: "resource.no-etc" })],
    });
    expect(upstream.reads).toEqual([]);
    expect(proxy.stats()).toMatchObject({ checked: 1, forwarded: 0, blocked: 1 });
    expect(events).toEqual([expect.objectContaining({ tool: "resources/read", forwarded: false })]);
    // Other spellings of the same file are the same path.
    for (const uri of ["file:///tmp/../etc/passwd", "file://localhost/etc/passwd", "file:///etc/./passwd"]) {
      await rejection(agent.readResource({ uri }));
    }
    expect(proxy.stats()).toMatchObject({ checked: 4, forwarded: 0, blocked: 4 });
  });

  it("holds content requests a policy does not mention under its toolDefault", async () => {
    // The bundled mcp-tools policy has no resource or prompt rules and toolDefault "ask".
    const { agent, upstream, proxy } = await setUp({ policy: bundled });
    const read = await rejection(agent.readResource({ uri: "file:///tmp/notes.txt" }));
    expect(read.message).toContain("requires a human's confirmation");
    expect(read.message).toContain(
      '[tool.default] No tool rule allows "resources/read"; the policy\'s default is ask',
    );
    const prompt = await rejection(agent.getPrompt({ name: "review_code", arguments: { code: "x" } }));
    expect(prompt.message).toContain("Warden held the call to prompts/get (review_code)");
    expect(upstream.reads).toEqual([]);
    expect(upstream.promptGets).toEqual([]);
    expect(proxy.stats().byVerdict).toEqual({ allow: 0, deny: 0, ask: 2 });
  });

  it("checks content requests under the tool prefix", async () => {
    const { agent, subjects, events } = await setUp({ namespaced: false, toolPrefix: "filesystem." });
    // "filesystem.resources/read" matches no content rule, so the policy's default (ask) holds it.
    await rejection(agent.readResource({ uri: "file:///tmp/notes.txt" }));
    expect(events[0]).toMatchObject({ tool: "resources/read", checkedAs: "filesystem.resources/read" });
    expect(subjects[0]!.context?.toolCalls).toEqual([
      { name: "filesystem.resources/read", arguments: { uri: "file:///tmp/notes.txt" } },
    ]);
  });

  it("forwards content requests unchecked when guardContent is false", async () => {
    const { agent, upstream, proxy, subjects } = await setUp({ guardContent: false });
    const read = await agent.readResource({ uri: "file:///etc/passwd" });
    expect(read.contents[0]).toMatchObject({ text: "root:x:0:0:root:/root:/bin/bash" });
    const prompt = await agent.getPrompt({ name: "review_code", arguments: { code: "y" } });
    expect(prompt.messages).toHaveLength(1);
    expect(upstream.reads).toEqual(["file:///etc/passwd"]);
    expect(subjects).toEqual([]);
    expect(proxy.stats().checked).toBe(0);
    // Tool calls are still guarded.
    const denied = await agent.callTool({
      name: "github.delete_repository",
      arguments: { repo: "acme/api" },
    });
    expect(denied.isError).toBe(true);
  });

  it("rejects a guardContent that is not a boolean", async () => {
    await expect(
      createGuardedMcpProxy({
        upstream: InMemoryTransport.createLinkedPair()[0],
        policy,
        engine: { name: "unused", check: async () => Promise.reject(new Error("unused")) },
        guardContent: "yes" as unknown as boolean,
      }),
    ).rejects.toThrow(/guardContent/);
  });

  it("advertises neither resources nor prompts for an upstream without them", async () => {
    const { agent } = await setUp({ upstream: { content: false } });
    const capabilities = agent.getServerCapabilities();
    expect(capabilities?.tools).toBeDefined();
    expect(capabilities?.resources).toBeUndefined();
    expect(capabilities?.prompts).toBeUndefined();
    expect(capabilities?.completions).toBeUndefined();
    const error = await rejection(agent.listResources());
    expect(error.code).toBe(ErrorCode.MethodNotFound);
    expect((await agent.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("passes list_changed notifications, subscriptions and resources/updated through to the agent", async () => {
    const { agent, upstream } = await setUp({ upstream: { subscriptions: true } });
    expect(agent.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true });
    const received = (schema: Parameters<Client["setNotificationHandler"]>[0]) =>
      new Promise<unknown>((resolve) => agent.setNotificationHandler(schema, (n) => resolve(n)));
    const resourcesChanged = received(ResourceListChangedNotificationSchema);
    const promptsChanged = received(PromptListChangedNotificationSchema);
    const updated = received(ResourceUpdatedNotificationSchema);

    upstream.server.sendResourceListChanged();
    upstream.server.sendPromptListChanged();
    await expect(resourcesChanged).resolves.toMatchObject({ method: "notifications/resources/list_changed" });
    await expect(promptsChanged).resolves.toMatchObject({ method: "notifications/prompts/list_changed" });

    await agent.subscribeResource({ uri: "file:///tmp/notes.txt" });
    expect([...upstream.subscriptions]).toEqual(["file:///tmp/notes.txt"]);
    await upstream.server.server.sendResourceUpdated({ uri: "file:///tmp/notes.txt" });
    await expect(updated).resolves.toEqual({
      method: "notifications/resources/updated",
      params: { uri: "file:///tmp/notes.txt" },
    });
    await agent.unsubscribeResource({ uri: "file:///tmp/notes.txt" });
    expect(upstream.subscriptions.size).toBe(0);
  });
});
