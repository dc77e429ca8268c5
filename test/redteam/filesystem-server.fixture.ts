/**
 * Shared pieces of the red-team tests against the real `@modelcontextprotocol/server-filesystem`: where
 * its entry point is, a temporary workspace with a secret in app/.env and a tmp/ folder, the bundled
 * mcp-filesystem policy rooted there, and the server (a child process on stdio) behind
 * createGuardedMcpProxy with an agent client connected in memory, opened in beforeAll and closed in
 * afterAll.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll } from "vitest";
import {
  createGuardedMcpProxy,
  type GuardedMcpProxy,
  type GuardedMcpProxyOptions,
} from "../../src/mcp/guarded-mcp-proxy.js";
import { loadPolicy } from "../../src/policies/load-policy.js";
import { createEngine, type EngineHandle } from "../../src/runtime/create-engine.js";
import { REPO_ROOT } from "./redteam.fixture.js";

/** The filesystem server's entry point, run with `node SERVER <allowed directory>`. */
export const SERVER = join(
  REPO_ROOT,
  "node_modules",
  "@modelcontextprotocol",
  "server-filesystem",
  "dist",
  "index.js",
);

/** A tool result's text, other content shown by its type. */
export const textOf = (result: unknown) =>
  ((result as CallToolResult).content ?? [])
    .map((c) => (c.type === "text" ? c.text : `[${c.type}]`))
    .join("\n");

/** A fresh workspace (its real path, as the server sees it): app/.env holding `secret`, an empty tmp/. */
export function makeWorkspace(prefix: string, secret: string): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  mkdirSync(join(root, "app"));
  mkdirSync(join(root, "tmp"));
  writeFileSync(join(root, "app", ".env"), `${secret}\n`);
  return root;
}

/** The bundled policy with its /workspace placeholder set to this workspace. */
export function policyFor(root: string) {
  const { policy } = loadPolicy({ ref: "mcp-filesystem" });
  return JSON.parse(JSON.stringify(policy).replaceAll("/workspace", root)) as typeof policy;
}

/**
 * Registers beforeAll/afterAll hooks that make a workspace (`workspace()`), start the filesystem server
 * rooted there behind createGuardedMcpProxy (engine `auto`, the policy from policyFor, `proxy` added to
 * its options; `upstreamCwd` runs the server in the workspace) and connect an agent client in memory;
 * afterAll closes all and removes the workspace. Returns a getter for the client and the workspace.
 */
export function guardedFilesystemServer(options: {
  workspace: () => string;
  proxy?: Partial<Omit<GuardedMcpProxyOptions, "upstream" | "policy" | "engine">>;
  upstreamCwd?: boolean;
}): () => { agent: Client; root: string } {
  let root = "";
  let proxy: GuardedMcpProxy | undefined;
  let handle: EngineHandle | undefined;
  let agent: Client | undefined;
  beforeAll(async () => {
    root = options.workspace();
    handle = await createEngine({ engine: "auto" });
    proxy = await createGuardedMcpProxy({
      upstream: {
        command: process.execPath,
        args: [SERVER, root],
        ...(options.upstreamCwd ? { cwd: root } : {}),
      },
      policy: policyFor(root),
      engine: handle.engine,
      ...options.proxy,
    });
    const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
    await proxy.connect({ transport: proxySide });
    agent = new Client({ name: "redteam-agent", version: "1.0.0" });
    await agent.connect(agentSide);
  }, 60_000);
  afterAll(async () => {
    await agent?.close();
    await proxy?.close();
    await handle?.close();
    rmSync(root, { recursive: true, force: true });
  });
  return () => ({ agent: agent!, root });
}
