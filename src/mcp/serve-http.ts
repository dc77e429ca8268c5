/**
 * The guard proxy's Streamable HTTP face (`warden mcp proxy --http <port>`): the same relay as on stdio,
 * served at `/mcp` by the SDK's StreamableHTTPServerTransport, for agents that reach MCP servers over
 * HTTP. One session, as on stdio: the upstream is one process with one client, so the first initialize
 * opens the session and a second is refused by the transport; the session's DELETE (or the upstream
 * ending) closes the proxy. It binds 127.0.0.1 by default, and answers only Host headers naming the bound
 * address (DNS-rebinding protection: a web page cannot reach it through a name of its own).
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { parseWith } from "../core/validate.js";
import type { GuardedMcpProxy } from "./guarded-mcp-proxy.js";

/** The path the MCP endpoint is served at. */
export const MCP_HTTP_PATH = "/mcp";

const OptionsSchema = z.object({
  port: z.number().int().min(0).max(65_535),
  host: z.string().min(1).default("127.0.0.1"),
});

export interface GuardedMcpHttpServer {
  /** The endpoint's URL, e.g. http://127.0.0.1:8808/mcp. */
  readonly url: URL;
  close(): Promise<void>;
}

function hostNames(options: { host: string; port: number }): string[] {
  const { host, port } = options;
  const names = new Set([host.includes(":") ? `[${host}]` : host]);
  if (["127.0.0.1", "::1", "localhost"].includes(host)) {
    for (const local of ["127.0.0.1", "localhost", "[::1]"]) names.add(local);
  }
  return [...names].map((name) => `${name}:${port}`);
}

/** Serves `proxy` over Streamable HTTP (it must not be connected yet). */
export async function serveGuardedMcpProxyHttp(options: {
  proxy: GuardedMcpProxy;
  port: number;
  host?: string;
}): Promise<GuardedMcpHttpServer> {
  const o = parseWith({
    schema: OptionsSchema,
    value: { port: options.port, host: options.host },
    what: "MCP HTTP options",
  });
  let transport: StreamableHTTPServerTransport | undefined;
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== MCP_HTTP_PATH || !transport) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
      return;
    }
    transport.handleRequest(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableDnsRebindingProtection: true,
    allowedHosts: hostNames({ host: o.host, port }),
  });
  await options.proxy.connect({ transport });
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  void options.proxy.closed.then(close);
  const shown = o.host.includes(":") ? `[${o.host}]` : o.host;
  return { url: new URL(`http://${shown}:${port}${MCP_HTTP_PATH}`), close };
}
