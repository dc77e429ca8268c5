/**
 * Red team, paths on disk: symbolic links already inside the workspace. Warden's canonical paths are
 * lexical (pure, no I/O), while the filesystem server follows links that stay inside its allowed
 * directories: `tmp/link -> ../app` would let a write "under tmp/" land in app/, and `app/config.txt ->
 * .env` a read of an ordinary name return the secret. With `realPaths` (`--real-paths`) the proxy checks
 * and forwards each path argument's real path, so both are refused; a link that stays inside tmp/ still
 * works. The real server behind the proxy, checked on disk.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuardedMcpProxy, type GuardedMcpProxy } from "../../src/mcp/guarded-mcp-proxy.js";
import { loadPolicy } from "../../src/policies/load-policy.js";
import { createEngine, type EngineHandle } from "../../src/runtime/create-engine.js";
import { REPO_ROOT } from "./redteam.fixture.js";

const SERVER = join(
  REPO_ROOT,
  "node_modules",
  "@modelcontextprotocol",
  "server-filesystem",
  "dist",
  "index.js",
);
const textOf = (result: unknown) =>
  ((result as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("\n");

describe("symbolic links inside the workspace (real filesystem server behind the proxy with realPaths)", () => {
  let root = "";
  let proxy: GuardedMcpProxy | undefined;
  let handle: EngineHandle | undefined;
  let agent: Client | undefined;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), "warden-fs-links-")));
    mkdirSync(join(root, "app"));
    mkdirSync(join(root, "tmp"));
    writeFileSync(join(root, "app", ".env"), "SECRET_TOKEN=hunter2-links\n");
    symlinkSync("../app", join(root, "tmp", "link"));
    symlinkSync(".env", join(root, "app", "config.txt"));
    mkdirSync(join(root, "tmp", "sub"));
    symlinkSync("sub", join(root, "tmp", "inner"));
    symlinkSync("../app/new.txt", join(root, "tmp", "dangling"));
    const { policy } = loadPolicy({ ref: "mcp-filesystem" });
    handle = await createEngine({ engine: "auto" });
    proxy = await createGuardedMcpProxy({
      upstream: { command: process.execPath, args: [SERVER, root] },
      policy: JSON.parse(JSON.stringify(policy).replaceAll("/workspace", root)),
      engine: handle.engine,
      realPaths: true,
      requestTimeoutMs: 20_000,
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

  it("writes nothing outside tmp/ through a link under tmp/", async () => {
    const result = await agent!.callTool({
      name: "write_file",
      arguments: { path: `${root}/tmp/link/c.txt`, content: "pwned" },
    });
    expect(existsSync(join(root, "app", "c.txt")), textOf(result)).toBe(false);
  });

  it("writes nothing outside tmp/ through a dangling link under tmp/", async () => {
    const result = await agent!.callTool({
      name: "write_file",
      arguments: { path: `${root}/tmp/dangling`, content: "pwned" },
    });
    expect(result.isError, textOf(result)).toBe(true);
    expect(existsSync(join(root, "app", "new.txt"))).toBe(false);
  });

  it("still writes through a link that stays inside tmp/, and reads what it wrote", async () => {
    const result = await agent!.callTool({
      name: "write_file",
      arguments: { path: `${root}/tmp/inner/ok.txt`, content: "fine" },
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(readFileSync(join(root, "tmp", "sub", "ok.txt"), "utf8")).toBe("fine");
    const read = await agent!.callTool({ name: "read_text_file", arguments: { path: "tmp/inner/ok.txt" } });
    expect(textOf(read)).toBe("fine");
  });

  it("never returns the secret through a link with an ordinary name", async () => {
    const result = await agent!.callTool({
      name: "read_text_file",
      arguments: { path: `${root}/app/config.txt` },
    });
    expect(textOf(result)).not.toContain("hunter2");
  });
});
