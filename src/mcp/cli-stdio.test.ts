/**
 * The commands as a user runs them: `warden mcp proxy` in front of an upstream server started as a child
 * process, `warden mcp serve` and `warden serve`, each in its own process, talking over stdio or a socket.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, vi } from "vitest";
import type { Decision } from "../core/decision.js";
import { issueApiKey } from "../store/key-directory.js";
import { createSqliteStore } from "../store/sqlite-store.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const upstream = join(here, "stdio-upstream.fixture.ts");
const node = [process.execPath, "--import", "tsx"];
/**
 * The `warden` command as a user starts it: bin/warden.js runs the build when it is fresh (as after
 * `npm ci`, which builds) and the sources through tsx otherwise, so on a loaded machine each start takes
 * a fraction of a second rather than compiling the CLI again.
 */
const warden = [process.execPath, join(here, "..", "..", "bin", "warden.js")];
const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

function env(extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (typeof v === "string") out[k] = v;
  return { ...out, ...extra };
}

/** `warden serve --port 0 --policy mcp-tools [flags]` as a child process, and the URL it prints. */
function startServe(options: { flags: string[]; store: string }) {
  const child = spawn(
    warden[0]!,
    [...warden.slice(1), "serve", "--port", "0", "--policy", "mcp-tools", ...options.flags],
    { env: env({ WARDEN_STORE: options.store }), stdio: ["ignore", "ignore", "pipe"] },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`no URL within 60 s: ${seen}`)), 60_000);
    child.stderr.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /serving (http:\/\/\S+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once("exit", () => reject(new Error(`exited early: ${seen}`)));
  });
  return { child, exited, url };
}

/** `warden mcp proxy --policy mcp-tools [flags] -- <the fake upstream>`, as a child process on stdio. */
function proxyTransport(options: { flags: string[]; env?: Record<string, string> }): StdioClientTransport {
  return new StdioClientTransport({
    command: warden[0]!,
    args: [
      ...warden.slice(1),
      "mcp",
      "proxy",
      "--policy",
      "mcp-tools",
      ...options.flags,
      "--",
      ...node,
      upstream,
    ],
    env: env(options.env),
    stderr: "pipe",
  });
}

// Each test starts one to four CLI processes (and the upstream fixture through tsx); on a loaded 2-core
// machine that can take most of the default 30 s, so these get more room (the bounds inside each test are
// unchanged).
describe("CLI commands over stdio and HTTP", { timeout: 90_000 }, () => {
  it.concurrent("warden mcp proxy forwards allowed calls to the upstream process and blocks the rest", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-proxy-"));
    const log = join(dir, "calls.jsonl");
    const transport = proxyTransport({ flags: ["--log-level", "info"], env: { FAKE_UPSTREAM_LOG: log } });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: "agent", version: "1.0.0" });
    try {
      await client.connect(transport, { timeout: 30_000 });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("filesystem.delete_file");
      const allowed = await client.callTool({
        name: "filesystem.delete_file",
        arguments: { path: "/tmp/old.log" },
      });
      expect(text(allowed)).toBe("deleted /tmp/old.log");
      const denied = await client.callTool({
        name: "github.delete_repository",
        arguments: { repo: "acme/api" },
      });
      expect(denied.isError).toBe(true);
      expect(text(denied)).toContain("[tool.no-repo-deletion]");
      const ask = await client.callTool({
        name: "github.merge_pull_request",
        arguments: { repo: "acme/api", number: 1 },
      });
      expect(ask.isError).toBe(true);
      expect(text(ask)).toContain("A human must confirm");
      const received = readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(received).toEqual([{ name: "filesystem.delete_file", args: { path: "/tmp/old.log" } }]);
      // The log line is written after the answer goes out, so it may arrive just after it.
      await vi.waitFor(() => expect(stderr).toContain('"msg":"blocked"'));
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.concurrent("warden mcp proxy warms its check path once the tools are listed (--warm-up)", async () => {
    const transport = proxyTransport({ flags: ["--log-level", "debug", "--warm-up", "50"] });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: "agent", version: "1.0.0" });
    try {
      await client.connect(transport, { timeout: 30_000 });
      await client.listTools();
      await vi.waitFor(() => expect(stderr).toMatch(/"checks":50,.*"msg":"warmed the check path"/), {
        timeout: 10_000,
      });
      // The made-up calls were neither forwarded nor logged as calls.
      expect(stderr).not.toMatch(/"msg":"(forwarded|blocked)"/);
      const allowed = await client.callTool({
        name: "filesystem.delete_file",
        arguments: { path: "/tmp/old.log" },
      });
      expect(text(allowed)).toBe("deleted /tmp/old.log");
    } finally {
      await client.close();
    }
  });

  it.concurrent("warden mcp proxy checks resource reads, and --no-guard-content forwards them", async () => {
    const proxy = (...flags: string[]) => proxyTransport({ flags: ["--log-level", "silent", ...flags] });
    const guarded = new Client({ name: "agent", version: "1.0.0" });
    const open = new Client({ name: "agent", version: "1.0.0" });
    try {
      await Promise.all([
        guarded.connect(proxy(), { timeout: 30_000 }),
        open.connect(proxy("--no-guard-content"), { timeout: 30_000 }),
      ]);
      expect(guarded.getServerCapabilities()?.resources).toBeDefined();
      // mcp-tools has no rule for resources/read, so its default ("ask") holds the read.
      await expect(guarded.readResource({ uri: "file:///tmp/notes.txt" })).rejects.toThrow(/confirm|ask/i);
      const read = await open.readResource({ uri: "file:///tmp/notes.txt" });
      expect(read.contents[0]).toMatchObject({ text: "remember the milk" });
    } finally {
      await Promise.all([guarded.close(), open.close()]);
    }
  });

  it.concurrent("warden mcp serve answers warden_check on stdio", async () => {
    const transport = new StdioClientTransport({
      command: warden[0]!,
      args: [...warden.slice(1), "mcp", "serve", "--policy", "mcp-tools", "--log-level", "silent"],
      env: env(),
      stderr: "pipe",
    });
    const client = new Client({ name: "host", version: "1.0.0" });
    try {
      await client.connect(transport, { timeout: 30_000 });
      const result = await client.callTool({
        name: "warden_check",
        arguments: {
          policy: "mcp-tools",
          input: "",
          output: JSON.stringify({ name: "email.send", arguments: { to: "someone@evil.test" } }),
        },
      });
      expect((result.structuredContent as Decision).violations[0]?.ruleId).toBe("tool.email-internal-only");
    } finally {
      await client.close();
    }
  });

  it.concurrent("warden serve listens on 127.0.0.1 and stops on SIGTERM", async () => {
    const { child, exited, url: serving } = startServe({ flags: [], store: ":memory:" });
    try {
      const url = await serving;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${url}/v1/check`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          policy: "mcp-tools",
          subject: {
            input: "",
            output: JSON.stringify({ name: "shell.run", arguments: { command: "rm -rf /" } }),
          },
        }),
        signal: AbortSignal.timeout(10_000),
      });
      expect(((await res.json()) as Decision).verdict).toBe("deny");
      child.kill("SIGTERM");
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 10_000))]);
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 120_000);
  it.concurrent("warden serve asks for an API key once its store holds one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-serve-keys-"));
    const storePath = join(dir, "warden.db");
    const store = await createSqliteStore({ path: storePath });
    const { token } = await issueApiKey({ store, name: "ci" });
    await store.close();
    const { child, exited, url: serving } = startServe({ flags: [], store: storePath });
    try {
      const url = await serving;
      const check = (headers: Record<string, string>) =>
        fetch(`${url}/v1/check`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify({ policy: "mcp-tools", subject: { input: "", output: "" } }),
          signal: AbortSignal.timeout(10_000),
        });
      expect((await check({})).status).toBe(401);
      expect((await check({ authorization: "Bearer wdn_not-a-key" })).status).toBe(401);
      const keyed = await check({ authorization: `Bearer ${token}` });
      expect(keyed.status).toBe(200);
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
