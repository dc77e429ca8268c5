/**
 * Red team, the MCP guard proxy: what the README and the issue showed passing through the proxy. The
 * README's own resources/read rule (read as the url kind, or as a path) must refuse every spelling of a
 * system file; a rule on `args.paths` must see each element of the list, not its JSON text; the schema
 * the upstream lists makes its path arguments known. The upstream here is a recording MCP server that
 * answers every request, so anything forwarded shows.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { Policy, ToolRule } from "../../src/core/policy.js";
import { createGuardedMcpProxy, type GuardedMcpProxy } from "../../src/mcp/guarded-mcp-proxy.js";
import { createEngine, type EngineHandle } from "../../src/runtime/create-engine.js";

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
    { capabilities: { tools: {}, resources: {} } },
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
  const envRules = (field: string): ToolRule[] => [
    {
      id: "no-env",
      tool: "*",
      effect: "deny",
      message: "No .env files",
      when: { field, op: "matches", value: "(^|/)\\.env$" },
    },
    { id: "allow", tool: "*", effect: "allow", message: "Other calls are allowed" },
  ];
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
