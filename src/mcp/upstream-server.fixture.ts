/**
 * A stand-in for real MCP tool servers in tests: filesystem and GitHub tools that only record the calls
 * they receive and answer what they would have done, plus (unless `content: false`) two file resources,
 * a resource template with completions and a prompt, each counting what was fetched, and optionally
 * resource subscriptions. Used in-process (in-memory transport) and, through
 * ./stdio-upstream.fixture.ts, as a child process on stdio.
 */
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

export interface FakeUpstream {
  server: McpServer;
  /** Every call the server received, in order. */
  calls: { name: string; args: Record<string, unknown> }[];
  /** Every resource URI read, in order. */
  reads: string[];
  /** Every prompt fetched, in order. */
  promptGets: { name: string; args: Record<string, unknown> }[];
  /** URIs currently subscribed to (only with `subscriptions: true`). */
  subscriptions: Set<string>;
}

export interface FakeUpstreamOptions {
  namespaced?: boolean;
  onCall?: (call: FakeUpstream["calls"][number]) => void;
  /** Offer resources and prompts (default true); false gives a tools-only server. */
  content?: boolean;
  /** Offer resource subscriptions (default false; McpServer has none of its own). */
  subscriptions?: boolean;
}

export function createFakeUpstreamServer(options: FakeUpstreamOptions = {}): FakeUpstream {
  const ns = (space: string, tool: string) => (options.namespaced === false ? tool : `${space}.${tool}`);
  const server = new McpServer(
    { name: "fake-upstream", version: "1.2.3" },
    { instructions: "Fake tools for tests." },
  );
  const calls: FakeUpstream["calls"] = [];
  const record = (name: string, args: Record<string, unknown>) => {
    const call = { name, args };
    calls.push(call);
    options.onCall?.(call);
  };
  const tools: [string, string, z.ZodRawShape, (args: Record<string, unknown>) => string][] = [
    [ns("filesystem", "delete_file"), "Delete a file", { path: z.string() }, (a) => `deleted ${a.path}`],
    [
      ns("filesystem", "read_file"),
      "Read a file",
      { path: z.string() },
      (a) => {
        if (String(a.path).includes("missing")) throw new Error(`no such file: ${a.path}`);
        return `contents of ${a.path}`;
      },
    ],
    [
      ns("github", "merge_pull_request"),
      "Merge a pull request",
      { repo: z.string(), number: z.number().int() },
      (a) => `merged ${a.repo}#${a.number}`,
    ],
    [
      ns("github", "create_issue"),
      "Open an issue",
      { repo: z.string(), title: z.string() },
      (a) => `opened issue "${a.title}" in ${a.repo}`,
    ],
    [
      ns("github", "delete_repository"),
      "Delete a repository",
      { repo: z.string() },
      (a) => `deleted ${a.repo}`,
    ],
  ];
  for (const [name, description, shape, run] of tools) {
    server.registerTool(
      name,
      { description, inputSchema: shape, annotations: { title: description } },
      async (args) => {
        record(name, args as Record<string, unknown>);
        return { content: [{ type: "text", text: run(args as Record<string, unknown>) }] };
      },
    );
  }
  const upstream: FakeUpstream = { server, calls, reads: [], promptGets: [], subscriptions: new Set() };
  if (options.content !== false) addContent(upstream);
  if (options.subscriptions) addSubscriptions(upstream);
  return upstream;
}

const FILES: Record<string, string> = {
  "file:///tmp/notes.txt": "remember the milk",
  "file:///etc/passwd": "root:x:0:0:root:/root:/bin/bash",
};

function addContent(upstream: FakeUpstream): void {
  const { server, reads, promptGets } = upstream;
  const text = (uri: string, body: string) => ({ contents: [{ uri, mimeType: "text/plain", text: body }] });
  for (const [uri, body] of Object.entries(FILES)) {
    const name = uri.split("/").at(-1)!;
    server.registerResource(
      name,
      uri,
      {
        title: `The file ${name}`,
        description: `Contents of ${uri}`,
        mimeType: "text/plain",
        annotations: { audience: ["assistant"], priority: 0.5 },
        _meta: { "fake/size": body.length },
      },
      async (url) => {
        reads.push(url.href);
        return text(url.href, body);
      },
    );
  }
  server.registerResource(
    "srv-file",
    new ResourceTemplate("file:///srv/{name}", {
      list: undefined,
      complete: { name: (value) => ["app.log", "access.log"].filter((n) => n.startsWith(value)) },
    }),
    { title: "A file under /srv", description: "Any file under /srv", mimeType: "text/plain" },
    async (url, variables) => {
      reads.push(url.href);
      return text(url.href, `contents of /srv/${variables.name}`);
    },
  );
  server.registerPrompt(
    "review_code",
    {
      title: "Code review",
      description: "Ask for a review of a piece of code",
      argsSchema: { code: z.string(), language: z.string().optional() },
    },
    async (args) => {
      promptGets.push({ name: "review_code", args });
      return {
        description: "A code review request",
        messages: [
          {
            role: "user",
            content: { type: "text", text: `Review this ${args.language ?? "code"}:\n${args.code}` },
          },
        ],
      };
    },
  );
}

/** Subscriptions on the low-level server: capabilities must be registered before it connects. */
function addSubscriptions(upstream: FakeUpstream): void {
  const low = upstream.server.server;
  low.registerCapabilities({ resources: { subscribe: true } });
  low.setRequestHandler(SubscribeRequestSchema, (request) => {
    upstream.subscriptions.add(request.params.uri);
    return {};
  });
  low.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    upstream.subscriptions.delete(request.params.uri);
    return {};
  });
}
