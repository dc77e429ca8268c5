/**
 * A stand-in for real MCP tool servers in tests: filesystem and GitHub tools that only record the calls
 * they receive and answer what they would have done. Used in-process (in-memory transport) and, through
 * ./stdio-upstream.fixture.ts, as a child process on stdio.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export interface FakeUpstream {
  server: McpServer;
  /** Every call the server received, in order. */
  calls: { name: string; args: Record<string, unknown> }[];
}

export function createFakeUpstreamServer(
  options: { namespaced?: boolean; onCall?: (call: FakeUpstream["calls"][number]) => void } = {},
): FakeUpstream {
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
  return { server, calls };
}
