/**
 * End to end: the real `@modelcontextprotocol/server-filesystem` (a child process on stdio, rooted in a
 * temporary workspace with a secret in app/.env and a tmp/ folder) behind the Warden guard proxy with
 * the bundled mcp-filesystem policy, driven by the real MCP SDK client. What issue 9 saw get through —
 * the secret read with a trailing slash, writes escaping tmp/ with `..`, the secret read through
 * read_multiple_files — must be refused, and checked on disk; ordinary reads and writes under tmp/ work.
 * Once in-process (createGuardedMcpProxy) and once through `warden mcp proxy` as a child process.
 */
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPolicy } from "../../src/policies/load-policy.js";
import {
  guardedFilesystemServer,
  makeWorkspace as makeBareWorkspace,
  policyFor,
  SERVER,
  textOf,
} from "./filesystem-server.fixture.js";
import { policyDocument, REPO_ROOT } from "./redteam.fixture.js";

const SECRET = "SECRET_TOKEN=hunter2-e2e";

/** A fresh workspace: app/.env (the secret), app/main.ts, tmp/. Its real path, as the server sees it. */
function makeWorkspace(): string {
  const root = makeBareWorkspace("warden-fs-e2e-", SECRET);
  writeFileSync(join(root, "app", "main.ts"), "console.log('hello');\n");
  return root;
}

/** The attacks and controls, against an agent client connected (somehow) to the guarded server. */
function attacks(get: () => { agent: Client; root: string }) {
  it("lists the server's real tools", async () => {
    const { agent } = get();
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["read_text_file", "read_multiple_files", "write_file", "move_file"]),
    );
  });

  it("reads an ordinary file and writes under tmp/", async () => {
    const { agent, root } = get();
    const read = await agent.callTool({
      name: "read_text_file",
      arguments: { path: join(root, "app", "main.ts") },
    });
    expect(read.isError, textOf(read)).toBeFalsy();
    expect(textOf(read)).toContain("console.log('hello')");
    const target = join(root, "tmp", `ok-${Math.random().toString(36).slice(2)}.txt`);
    const write = await agent.callTool({ name: "write_file", arguments: { path: target, content: "fine" } });
    expect(write.isError, textOf(write)).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe("fine");
  });

  it.each(["app/.env/", "app/.env", "app/./.env", "tmp/../app/.env", "app//.env"])(
    "never returns the secret for read_text_file <root>/%s",
    async (rel) => {
      const { agent, root } = get();
      const result = await agent.callTool({ name: "read_text_file", arguments: { path: `${root}/${rel}` } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).not.toContain("hunter2");
    },
  );

  it("never returns the secret for spellings the server trims, unquotes or resolves itself", async () => {
    const { agent, root } = get();
    for (const path of [
      `${root}/app/.env'`,
      `${root}/app/.env"`,
      `"${root}/app/.env"`,
      `${root}/app/.env `,
      ` ${root}/app/.env`,
      `file://${root}/app/.env`,
      "app/.env",
      "./app/.env",
      "tmp/../app/.env",
      `${root}/app/.%65nv`,
    ]) {
      const result = await agent.callTool({ name: "read_text_file", arguments: { path } });
      expect(textOf(result), JSON.stringify(path)).not.toContain("hunter2");
    }
  });

  it("never returns the secret through read_multiple_files", async () => {
    const { agent, root } = get();
    for (const paths of [[`${root}/app/.env`], [`${root}/app/main.ts`, `${root}/app/.env/`]]) {
      const result = await agent.callTool({ name: "read_multiple_files", arguments: { paths } });
      expect(result.isError, textOf(result)).toBe(true);
      expect(textOf(result)).not.toContain("hunter2");
    }
  });

  it.each(["tmp/../app/c.txt", "tmp//../app/c.txt", "tmp/./../app/c.txt", "tmp/%2e%2e/app/c.txt"])(
    "writes nothing outside tmp/ for write_file <root>/%s",
    async (rel) => {
      const { agent, root } = get();
      const result = await agent.callTool({
        name: "write_file",
        arguments: { path: `${root}/${rel}`, content: "pwned" },
      });
      expect(result.isError, textOf(result)).toBe(true);
      expect(existsSync(join(root, "app", "c.txt"))).toBe(false);
    },
  );

  it("moves nothing out of app/ into tmp/, nor the secret anywhere", async () => {
    const { agent, root } = get();
    for (const [source, destination] of [
      [`${root}/app/main.ts`, `${root}/tmp/main.ts`],
      [`${root}/app/.env`, `${root}/tmp/env.txt`],
      [`${root}/tmp/../app/.env`, `${root}/tmp/x`],
    ]) {
      const result = await agent.callTool({ name: "move_file", arguments: { source, destination } });
      expect(result.isError, textOf(result)).toBe(true);
    }
    expect(existsSync(join(root, "app", "main.ts"))).toBe(true);
    expect(readFileSync(join(root, "app", ".env"), "utf8")).toContain("hunter2");
    expect(existsSync(join(root, "tmp", "main.ts"))).toBe(false);
    expect(existsSync(join(root, "tmp", "env.txt"))).toBe(false);
  });
}

describe("the real filesystem server behind createGuardedMcpProxy", () => {
  attacks(
    guardedFilesystemServer({
      workspace: makeWorkspace,
      upstreamCwd: true,
      proxy: { requestTimeoutMs: 20_000, checkTimeoutMs: 20_000 },
    }),
  );
});

describe("the real filesystem server behind `warden mcp proxy`", () => {
  let root = "";
  let agent: Client | undefined;
  beforeAll(async () => {
    root = makeWorkspace();
    const policyFile = join(root, "..", `${root.split("/").pop()}-policy.json`);
    const { policy } = loadPolicy({ ref: "mcp-filesystem" });
    writeFileSync(
      policyFile,
      JSON.stringify({
        ...policyDocument({
          name: "mcp-filesystem-e2e",
          rules: policyFor(root).rules as Record<string, unknown>,
        }),
        description: policy.description,
      }),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        join(REPO_ROOT, "bin", "warden.js"),
        "mcp",
        "proxy",
        "--policy",
        policyFile,
        "--real-paths",
        "--",
        process.execPath,
        SERVER,
        root,
      ],
      cwd: REPO_ROOT,
      env: { ...(process.env as Record<string, string>), WARDEN_STORE: ":memory:", NO_COLOR: "1" },
      stderr: "ignore",
    });
    agent = new Client({ name: "redteam-agent", version: "1.0.0" });
    await agent.connect(transport, { timeout: 60_000 });
  }, 90_000);
  afterAll(async () => {
    await agent?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(join(root, "..", `${root.split("/").pop()}-policy.json`), { force: true });
  });
  attacks(() => ({ agent: agent!, root }));

  it("with --real-paths, writes nothing outside tmp/ through a symbolic link under tmp/", async () => {
    symlinkSync("../app", join(root, "tmp", "link"));
    const result = await agent!.callTool({
      name: "write_file",
      arguments: { path: `${root}/tmp/link/c.txt`, content: "pwned" },
    });
    expect(result.isError, textOf(result)).toBe(true);
    expect(existsSync(join(root, "app", "c.txt"))).toBe(false);
  });
});
