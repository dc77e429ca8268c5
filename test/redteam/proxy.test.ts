/**
 * Red team, the MCP guard proxy: what the README and the issue showed passing through the proxy. The
 * README's own resources/read rule (read as the url kind, or as a path) must refuse every spelling of a
 * system file; a rule on `args.paths` must see each element of the list, not its JSON text; the schema
 * the upstream lists makes its path arguments known. The upstream here is a recording MCP server that
 * answers every request, so anything forwarded shows.
 */
import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Policy, ToolRule } from "../../src/core/policy.js";
import { createGuardedMcpProxy, type GuardedMcpProxy } from "../../src/mcp/guarded-mcp-proxy.js";
import { rawStdio } from "../../src/mcp/raw-stdio.js";
import { createEngine, type EngineHandle } from "../../src/runtime/create-engine.js";
import { denyElseAllow } from "./redteam.fixture.js";

/** Resources/read rules as the README shows them. */
const README_URL_RULES: ToolRule[] = [
  {
    id: "resource.no-etc",
    tool: "resources/read",
    effect: "deny",
    message: "No system files",
    when: { field: "args.uri", part: "path", op: "pathWithin", value: "/etc" },
  },
  { id: "resource.allow-read", tool: "resources/read", effect: "allow", message: "Reads are allowed" },
];

function policyWith(rules: Record<string, unknown>): Policy {
  return {
    name: "redteam-proxy",
    version: "1.0.0",
    agent: "tools",
    specification: "An agent behind the MCP guard proxy.",
    requests: "See the rules.",
    rules,
  } as Policy;
}

interface Rig {
  agent: Client;
  proxy: GuardedMcpProxy;
  handle: EngineHandle;
  forwarded: { method: string; params: unknown }[];
}
let rig: Rig | undefined;
afterEach(async () => {
  await rig?.agent.close();
  await rig?.proxy.close();
  await rig?.handle.close();
  rig = undefined;
});

/** A recording upstream: one tool whose schema names `files` (not a path name) as file paths. */
async function setUp(policy: Policy): Promise<Rig> {
  const forwarded: Rig["forwarded"] = [];
  const upstream = new Server(
    { name: "recording-upstream", version: "1.0.0" },
    { capabilities: { tools: {}, resources: {}, prompts: {} } },
  );
  upstream.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: "read_multiple_files",
        inputSchema: { type: "object", properties: { paths: { type: "array", items: { type: "string" } } } },
      },
      {
        name: "bundle",
        inputSchema: {
          type: "object",
          properties: {
            items: { type: "array", items: { type: "string", description: "File path to include" } },
          },
        },
      },
    ],
  }));
  upstream.setRequestHandler(CallToolRequestSchema, async (request) => {
    forwarded.push({ method: "tools/call", params: request.params });
    return { content: [{ type: "text", text: "SECRET=hunter2" }] };
  });
  upstream.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
  upstream.setRequestHandler(GetPromptRequestSchema, async (request) => {
    forwarded.push({ method: "prompts/get", params: request.params });
    return { messages: [{ role: "user", content: { type: "text", text: "summarise it" } }] };
  });
  upstream.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    forwarded.push({ method: "resources/read", params: request.params });
    return { contents: [{ uri: request.params.uri, text: "root:$6$hash" }] };
  });
  const [toUpstream, upstreamSide] = InMemoryTransport.createLinkedPair();
  await upstream.connect(upstreamSide);
  const handle = await createEngine({ engine: "auto" });
  const proxy = await createGuardedMcpProxy({ upstream: toUpstream, policy, engine: handle.engine });
  const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
  await proxy.connect({ transport: proxySide });
  const agent = new Client({ name: "agent", version: "1.0.0" });
  await agent.connect(agentSide);
  rig = { agent, proxy, handle, forwarded };
  return rig;
}

const systemFiles = [
  "file:///etc/shadow",
  "file:///tmp/../etc/shadow",
  "file://localhost/etc/shadow",
  "file://LOCALHOST/etc/shadow",
  "file:///etc/./shadow",
  "file:////etc/shadow",
  "file:///%65tc/shadow",
  "file:///tmp/%2e%2e/etc/shadow",
  "file:///tmp/..%2fetc/shadow",
  "FILE:///etc/shadow",
  "file:/etc/shadow",
  "file:///etc",
];

describe("proxy: the README's resources/read rule", () => {
  it("still forwards an ordinary read", async () => {
    const { agent, forwarded } = await setUp(
      policyWith({ toolRules: README_URL_RULES, toolDefault: "deny" }),
    );
    await agent.readResource({ uri: "file:///srv/notes.txt" });
    expect(forwarded).toHaveLength(1);
  });

  it.each(systemFiles)("refuses %j and forwards nothing", async (uri) => {
    const { agent, forwarded } = await setUp(
      policyWith({ toolRules: README_URL_RULES, toolDefault: "deny" }),
    );
    const outcome = await agent.readResource({ uri }).then(
      (r) => `read: ${JSON.stringify(r)}`,
      (e: unknown) => e,
    );
    expect(outcome, `${uri} was forwarded`).toBeInstanceOf(Error);
    expect(forwarded).toEqual([]);
  });
});

describe("proxy: rules on list arguments see each element", () => {
  const envRules = (field: string): ToolRule[] =>
    denyElseAllow({
      id: "no-env",
      message: "No .env files",
      when: { field, op: "matches", value: "(^|/)\\.env$" },
    });
  const lists = [
    ["/srv/app/.env"],
    ["/srv/app/README.md", "/srv/app/.env"],
    ["/srv/app/.env/"],
    ["/srv/app/lib/../.env"],
    ["/srv/app/%2eenv"],
  ];

  for (const field of ["args.paths.*", "args:path"]) {
    it.each(lists)(`a .env regex on ${field} refuses read_multiple_files %j`, async (...paths) => {
      const { agent, forwarded } = await setUp(
        policyWith({ toolRules: envRules(field), toolDefault: "deny" }),
      );
      const result = await agent.callTool({ name: "read_multiple_files", arguments: { paths } });
      expect(result.isError, JSON.stringify(result)).toBe(true);
      expect(forwarded).toEqual([]);
    });
  }

  it("learns from the upstream's schema that an unnamed list holds file paths", async () => {
    const policy = policyWith({
      toolRules: envRules("args:path"),
      toolDefault: "deny",
      paths: { base: "/srv" },
    });
    const { agent, forwarded } = await setUp(policy);
    // Relative, under a name no rule knows: only the listed schema says these are paths.
    const ok = await agent.callTool({ name: "bundle", arguments: { items: ["notes.md"] } });
    expect(ok.isError, JSON.stringify(ok)).toBeFalsy();
    const result = await agent.callTool({ name: "bundle", arguments: { items: ["notes.md", "app/.env"] } });
    expect(result.isError, JSON.stringify(result)).toBe(true);
    expect(forwarded).toHaveLength(1);
  });
});

describe("proxy: a session's remembered work never loosens a later check", () => {
  // The filesystem policy's secret globs: one alternation of picomatch's expressions, found by the list's
  // identity; the steps and schemas frozen and measured once. Hundreds of allowed calls first, so every
  // memory is warm and the code optimised, then secrets each matched by one glob of the list alone.
  const secrets = [
    "**/.env",
    "**/.ssh/**",
    "**/id_ed25519",
    "**/*.pem",
    "**/.aws/credentials",
    "**/credentials.json",
  ];
  const rules = denyElseAllow({
    id: "no-secrets",
    message: "No secrets",
    when: { field: "args:path", op: "pathMatches", value: secrets, quantifier: "any" },
  });
  const refused = [
    ["/srv/app/.env"],
    ["/srv/notes.md", "/home/u/.ssh/config"],
    ["/home/u/.ssh/id_ed25519"],
    ["/srv/tls/server.pem"],
    ["/home/u/.aws/credentials"],
    ["/srv/app/lib/../credentials.json"],
    ["/srv/app/%2eenv"],
    // The policy does not say whether the file system folds case: read both ways, the strict one wins.
    ["/srv/app/.ENV"],
    ["/HOME/u/.SSH/config"],
  ];

  it("refuses each secret after 300 allowed calls", async () => {
    const { agent, forwarded } = await setUp(policyWith({ toolRules: rules, toolDefault: "deny" }));
    for (let i = 0; i < 300; i++) {
      const ok = await agent.callTool({
        name: "read_multiple_files",
        arguments: { paths: [`/srv/notes-${i}.md`] },
      });
      expect(ok.isError, JSON.stringify(ok)).toBeFalsy();
    }
    for (const paths of refused) {
      const result = await agent.callTool({ name: "read_multiple_files", arguments: { paths } });
      expect(result.isError, `${JSON.stringify(paths)} was forwarded`).toBe(true);
    }
    expect(forwarded).toHaveLength(300);
  });
});

/**
 * The front door: the proxy relays every message it need not check, so a tools/call that reaches the
 * upstream without being recognised as one would run unchecked. Each case is written as raw bytes on
 * the proxy's stdio face (the SDK's stdio transport, read as the CLI reads it), against an upstream SDK
 * server that runs any tools/call it receives, and asserts that the denied call never arrives.
 */
interface DoorRig {
  proxy: GuardedMcpProxy;
  handle: EngineHandle;
  /** Every message the upstream received. */
  received: Record<string, unknown>[];
  /** Tool calls the upstream ran. */
  ran: string[];
  /** Lines the proxy wrote to the agent, parsed. */
  answers: Record<string, unknown>[];
  write(line: string): void;
  answerTo(id: unknown): Promise<Record<string, unknown>>;
}
let door: DoorRig | undefined;
afterEach(async () => {
  await door?.proxy.close();
  await door?.handle.close();
  door = undefined;
});

const DOOR_POLICY = policyWith({
  toolRules: [
    { id: "no-wipe", tool: "wipe_disk", effect: "deny", message: "Never wipe the disk" },
    { id: "confirm-send", tool: "send_money", effect: "ask", message: "Sending money needs a human" },
  ],
  toolDefault: "allow",
});

async function openDoor(): Promise<DoorRig> {
  const ran: string[] = [];
  const upstream = new Server({ name: "runs-anything", version: "1.0.0" }, { capabilities: { tools: {} } });
  upstream.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: ["echo", "wipe_disk", "send_money"].map((name) => ({
      name,
      inputSchema: { type: "object" as const },
    })),
  }));
  upstream.setRequestHandler(CallToolRequestSchema, async (request) => {
    ran.push(request.params.name);
    return { content: [{ type: "text", text: `ran ${request.params.name}` }] };
  });
  const [toUpstream, upstreamSide] = InMemoryTransport.createLinkedPair();
  await upstream.connect(upstreamSide);
  const received: Record<string, unknown>[] = [];
  const send = toUpstream.send.bind(toUpstream);
  toUpstream.send = (message, options) => {
    received.push(structuredClone(message) as Record<string, unknown>);
    return send(message, options);
  };
  const handle = await createEngine({ engine: "compiled" });
  const proxy = await createGuardedMcpProxy({
    upstream: toUpstream,
    policy: DOOR_POLICY,
    engine: handle.engine,
  });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const answers: Record<string, unknown>[] = [];
  let pending = "";
  stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    for (let i = pending.indexOf("\n"); i >= 0; i = pending.indexOf("\n")) {
      answers.push(JSON.parse(pending.slice(0, i)) as Record<string, unknown>);
      pending = pending.slice(i + 1);
    }
  });
  const { transport, raw } = rawStdio(new StdioServerTransport(stdin, stdout));
  expect(raw).toBe(true);
  await proxy.connect({ transport });
  const write = (line: string) => stdin.write(`${line}\n`);
  write(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "attacker", version: "1" },
      },
    }),
  );
  const answerTo = async (id: unknown) => {
    await vi.waitFor(() => expect(answers.some((a) => a.id === id)).toBe(true));
    return answers.find((a) => a.id === id) as Record<string, unknown>;
  };
  await answerTo(0);
  write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  door = { proxy, handle, received, ran, answers, write, answerTo };
  return door;
}

const call = (id: unknown, name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} }, ...extra });

/** Sends a harmless call after the attack and waits for it: whatever the attack did has landed by then. */
async function settle(rig: DoorRig, id: string): Promise<void> {
  rig.write(call(id, "echo"));
  await rig.answerTo(id);
}

describe("proxy: the front door never lets a tools/call past the check", () => {
  it("forwards an allowed call and refuses a denied one and an ask (the baseline)", async () => {
    const rig = await openDoor();
    rig.write(call(1, "wipe_disk"));
    rig.write(call(2, "send_money"));
    const [denied, asked] = [await rig.answerTo(1), await rig.answerTo(2)];
    expect((denied.result as { isError?: boolean }).isError).toBe(true);
    expect((asked.result as { isError?: boolean }).isError).toBe(true);
    await settle(rig, "after");
    expect(rig.ran).toEqual(["echo"]);
  });

  it.each([
    "Tools/Call",
    "TOOLS/CALL",
    " tools/call",
    "tools/call ",
    "tools/call\n",
    "tools/call\u0000",
    "tools\u200b/call",
    "tools.call",
    "tools/call/",
    "ｔｏｏｌｓ/call",
  ])("refuses the method %j and forwards nothing", async (method) => {
    const rig = await openDoor();
    rig.write(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { name: "wipe_disk", arguments: {} } }),
    );
    const answer = await rig.answerTo(1);
    expect(answer.error).toMatchObject({ code: -32600 });
    await settle(rig, "after");
    expect(rig.ran).toEqual(["echo"]);
    expect(rig.received.some((m) => m.method === method)).toBe(false);
  });

  it("drops a tools/call sent as a notification (no id)", async () => {
    const rig = await openDoor();
    rig.write(
      JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { name: "wipe_disk", arguments: {} } }),
    );
    await settle(rig, "after");
    expect(rig.ran).toEqual(["echo"]);
    expect(rig.received.filter((m) => m.method === "tools/call")).toHaveLength(1);
  });

  it.each([
    ["a batch", `[${call(1, "wipe_disk")}]`],
    ["a batch of an allowed and a denied call", `[${call(1, "echo")},${call(2, "wipe_disk")}]`],
    ["a null id", call(null, "wipe_disk")],
    ["an object id", call({ x: 1 }, "wipe_disk")],
    ["an array id", call([1], "wipe_disk")],
    ["a boolean id", call(true, "wipe_disk")],
    ["jsonrpc 1.0", call(1, "wipe_disk", { jsonrpc: "1.0" })],
    ["no jsonrpc", JSON.stringify({ id: 1, method: "tools/call", params: { name: "wipe_disk" } })],
    ["a method that is not a string", JSON.stringify({ jsonrpc: "2.0", id: 1, method: ["tools/call"] })],
    ["a method with a result", call(1, "wipe_disk", { result: {} })],
    [
      "params that are an array",
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: ["wipe_disk"] }),
    ],
    [
      "a name that is not a string",
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: ["wipe_disk"] } }),
    ],
    [
      "arguments that are an array",
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "wipe_disk", arguments: [] },
      }),
    ],
  ])("forwards nothing of %s", async (_what, line) => {
    const rig = await openDoor();
    rig.write(line);
    await settle(rig, "after");
    expect(rig.ran).toEqual(["echo"]);
    expect(rig.received.filter((m) => m.method === "tools/call")).toHaveLength(1);
  });

  it("reads duplicate keys as JSON.parse does and forwards what it checked", async () => {
    const rig = await openDoor();
    // The last key wins: the check sees wipe_disk, and what would be forwarded is re-serialised from it.
    rig.write(
      '{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"echo","name":"wipe_disk"}}',
    );
    const answer = await rig.answerTo(1);
    expect((answer.result as { isError?: boolean }).isError).toBe(true);
    // And the other way round: an allowed last name is forwarded with that one name only.
    rig.write('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wipe_disk","name":"echo"}}');
    await rig.answerTo(2);
    expect(rig.ran).toEqual(["echo"]);
    expect(rig.received.filter((m) => m.method === "tools/call")).toEqual([
      {
        jsonrpc: "2.0",
        id: expect.stringMatching(/^warden-proxy-/),
        method: "tools/call",
        params: { name: "echo" },
      },
    ]);
  });

  it("refuses a request that reuses the id of one still in flight", async () => {
    const rig = await openDoor();
    // The check of the first call is still running when the second arrives (same tick).
    rig.write(`${call(7, "echo")}\n${call(7, "wipe_disk")}`);
    await vi.waitFor(() => expect(rig.answers.filter((a) => a.id === 7)).toHaveLength(2));
    await settle(rig, "after");
    expect(rig.ran).toEqual(["echo", "echo"]);
  });

  it("never relays an agent's response that answers no server request", async () => {
    const rig = await openDoor();
    rig.write(JSON.stringify({ jsonrpc: "2.0", id: "warden-proxy-1", result: { content: [] } }));
    rig.write(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [] } }));
    await settle(rig, "after");
    expect(rig.received.filter((m) => "result" in m || "error" in m)).toEqual([]);
  });

  it("a cancelled check forwards nothing", async () => {
    const rig = await openDoor();
    rig.write(
      `${call(5, "echo")}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } })}`,
    );
    await settle(rig, "after");
    expect(rig.ran).toEqual(["echo"]);
    expect(rig.answers.some((a) => a.id === 5)).toBe(false);
  });
});

describe("proxy: an in-process agent's argument values that JSON writes as something else", () => {
  // An agent on an in-memory transport hands the proxy its own objects; on a wire to the upstream, a URL,
  // a String object or a toJSON method becomes the string "/etc/shadow". The check must not read such a
  // value as "no path" and let the string through: anything but JSON's own values is undetermined.
  const values: [string, unknown][] = [
    ["a URL", new URL("file:///etc/shadow")],
    ["a String object", new String("/etc/shadow")],
    ["an object with toJSON", { toJSON: () => "/etc/shadow" }],
  ];
  /** A proxy whose policy refuses a call when `field` is a path under /etc, and allows every other. */
  const noEtc = (field: string) =>
    setUp(
      policyWith({
        toolRules: denyElseAllow({
          id: "no-etc",
          message: "Nothing under /etc",
          when: { field, op: "pathWithin", value: "/etc" },
        }),
      }),
    );
  it.each(values)("refuses a path given as %s and forwards nothing", async (_, value) => {
    const { agent, forwarded } = await noEtc("args:path");
    const result = await agent.callTool({ name: "read_file", arguments: { path: value } });
    expect(result.isError).toBe(true);
    expect(forwarded).toEqual([]);
  });

  it.each(values)("refuses a prompt argument path given as %s and forwards nothing", async (_, value) => {
    const { agent, forwarded } = await noEtc("args.arguments.path");
    // The SDK client types prompt arguments as strings; an in-process agent can still hand over objects.
    const args = { path: value } as unknown as Record<string, string>;
    await expect(agent.getPrompt({ name: "summarise", arguments: args })).rejects.toThrow(
      /Nothing under \/etc/,
    );
    expect(forwarded).toEqual([]);
  });

  it("refuses arguments JSON cannot write (a BigInt) and forwards nothing", async () => {
    const { agent, forwarded } = await setUp(policyWith({ toolRules: [], toolDefault: "allow" }));
    await expect(
      agent.callTool({ name: "read_file", arguments: { path: "/srv/a", size: 10n } }),
    ).rejects.toThrow(/params are not JSON/);
    expect(forwarded).toEqual([]);
  });
});
