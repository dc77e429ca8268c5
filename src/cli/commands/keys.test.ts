/**
 * `warden keys` as a user runs it: the real CLI in child processes on a temporary store file, and a key
 * directory in this process on the same file standing in for a running `warden serve`. The many ways to
 * get the input wrong run through the CLI's entry in this process (a process start costs seconds).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Command } from "commander";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createKeyDirectory } from "../../store/key-directory.js";
import { createSqliteStore } from "../../store/sqlite-store.js";
import { runCli } from "../run-cli.js";

const root = resolve(import.meta.dirname, "..", "..", "..");
const bin = join(root, "bin", "warden.js");
const dir = mkdtempSync(join(tmpdir(), "warden-keys-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function warden(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", WARDEN_STORE: ":memory:", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

describe("warden keys", () => {
  it("creates a key printed once, which a running server's directory accepts until it is revoked", async () => {
    const db = join(dir, "serve.db");
    const created = await warden(["keys", "create", "--name", "ci", "--store", db]);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(created.stdout).toMatch(/^wdn_[A-Za-z0-9_-]{43}\n$/);
    expect(created.stderr).toContain("will not be shown again");
    expect(created.stderr).not.toContain(token);

    const server = await createSqliteStore({ path: db });
    try {
      const directory = createKeyDirectory({ store: server });
      expect(await directory.hasKeys()).toBe(true);
      expect(await directory.authenticate({ token })).toMatchObject({ name: "ci", scopes: ["check"] });

      const listed = await warden(["keys", "list", "--store", db]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/^NAME\s+SCOPES\s+POLICIES\s+RATE\s+CREATED\s+LAST USED\s+REVOKED\n/);
      expect(listed.stdout).toMatch(/\nci\s+check\s+all\s+default\s+\S+Z\s+\S+Z\s+-\n$/);
      expect(listed.stdout).not.toContain(token.slice(4));

      const revoked = await warden(["keys", "revoke", "ci", "--store", db]);
      expect(revoked).toMatchObject({ code: 0, stdout: "revoked key 'ci' (scopes check; policies all)\n" });
      // The same running directory refuses the key on its next call.
      expect(await directory.authenticate({ token })).toBeUndefined();
      expect(await directory.hasKeys()).toBe(true);

      const again = await warden(["keys", "revoke", "ci", "--store", db]);
      expect(again.code).toBe(2);
      expect(again.stderr).toBe(
        "warden: INVALID_INPUT: <name>: no active key named 'ci' (see `warden keys list`)\n",
      );
    } finally {
      await server.close();
    }
  }, 240_000);

  it("takes scopes and policies, reads $WARDEN_STORE, and lists as JSON without secrets or hashes", async () => {
    const db = join(dir, "env.db");
    const created = await warden(
      [
        "keys",
        "create",
        "--name",
        "agent",
        "--scopes",
        "check, facts,check",
        "--policies",
        "mcp-tools",
        "--rate",
        "2.5/s",
        "--json",
      ],
      { WARDEN_STORE: db },
    );
    expect(created.code).toBe(0);
    const { key, token } = JSON.parse(created.stdout);
    expect(key).toMatchObject({
      name: "agent",
      scopes: ["check", "facts"],
      policies: ["mcp-tools"],
      ratePerSecond: 2.5,
    });
    const listed = await warden(["keys", "list", "--json"], { WARDEN_STORE: db });
    expect(listed.code).toBe(0);
    const keys = JSON.parse(listed.stdout);
    expect(keys).toEqual([key]);
    expect(listed.stdout).not.toContain(token.slice(4));
    expect(listed.stdout).not.toContain("hash");
    const duplicate = await warden(["keys", "create", "--name", "agent"], { WARDEN_STORE: db });
    expect(duplicate.code).toBe(2);
    expect(duplicate.stdout).toBe("");
    expect(duplicate.stderr).toContain('key.name: an active key named "agent" already exists');
  }, 240_000);

  it("refuses an unknown scope with exit 2 naming it", async () => {
    const r = await warden([
      "keys",
      "create",
      "--name",
      "x",
      "--scopes",
      "check,admin",
      "--store",
      join(dir, "x.db"),
    ]);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'warden: INVALID_INPUT: Invalid keys create options: --scopes.1: unknown scope "admin" (expected one of check, facts, policies:read, memory:write, audit:read, approvals:read, approvals:write)\n',
    });
  }, 240_000);
});

/** The CLI's own entry (runCli) in this process: the same parsing and error path, without a process start. */
async function wardenHere(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  const saved = process.exitCode;
  process.exitCode = undefined;
  try {
    await runCli({ program: new Command("warden"), argv: ["node", "warden", ...args] });
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } finally {
    process.exitCode = saved;
    out.mockRestore();
    err.mockRestore();
  }
}

describe("warden keys (in process)", () => {
  it("refuses bad names, scopes, policies, unknown keys and a throwaway store with exit 2 naming the problem", async () => {
    const db = join(dir, "bad.db");
    const cases: [string[], string][] = [
      [["keys", "create", "--name", "has space", "--store", db], "--name: use 1 to 64 letters"],
      [["keys", "create", "--name", "anonymous", "--store", db], "--name: is reserved"],
      [["keys", "create", "--name", "x", "--scopes", "", "--store", db], "--scopes: give at least one scope"],
      [
        ["keys", "create", "--name", "x", "--policies", ",", "--store", db],
        "--policies: give at least one policy",
      ],
      [["keys", "create", "--name", "x", "--store", ":memory:"], "--store: ':memory:' keeps nothing"],
      [["keys", "create", "--name", "x", "--rate", "fast", "--store", db], "--rate: requests per second"],
      [["keys", "create", "--name", "x", "--rate", "0", "--store", db], "--rate: "],
      [["keys", "revoke", "nobody", "--store", db], "<name>: no active key named 'nobody'"],
      [["keys", "revoke", "a/b", "--store", db], "<name>: use 1 to 64 letters"],
    ];
    for (const [args, message] of cases) {
      const r = await wardenHere(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/^warden: INVALID_INPUT: /);
      expect(r.stderr).toContain(message);
    }
    const listed = await wardenHere(["keys", "list", "--json", "--store", db]);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  }, 120_000);

  it("lists nothing politely, and reports a store that cannot be opened as a store error", async () => {
    const empty = await wardenHere(["keys", "list", "--store", join(dir, "empty.db")]);
    expect(empty).toEqual({ code: 0, stdout: "", stderr: "warden: no keys in this store\n" });
    const notADatabase = join(dir, "not-a-db.db");
    writeFileSync(notADatabase, "plain text, not SQLite ".repeat(100));
    const r = await wardenHere(["keys", "list", "--store", notADatabase]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^warden: STORE_ERROR: /);
    expect(r.stderr).not.toContain("    at ");
    const underAFile = await wardenHere(["keys", "list", "--store", join(notADatabase, "w.db")]);
    expect(underAFile.code).toBe(2);
    expect(underAFile.stderr).toMatch(/^warden: STORE_ERROR: store \S*not-a-db\.db\S* \(--store\): /);
  }, 60_000);
});
