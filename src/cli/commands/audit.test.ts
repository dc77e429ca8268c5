/**
 * The audit log end to end, as issue 14's "done when" reads: checks through the HTTP service with a
 * store, rows read back over GET /v1/audit with a key holding audit:read, then `warden audit verify
 * --store <db>` (the real CLI in a child process) passes, and fails with exit 1 naming the row after one
 * row is edited in the database. tail/show/export/prune/head run through the same CLI.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Decision } from "../../core/decision.js";
import { startServer } from "../../server/start-server.js";
import { loadBetterSqlite3 } from "../../store/better-sqlite3.js";
import { createKeyDirectory, issueApiKey } from "../../store/key-directory.js";
import { createSqliteStore } from "../../store/sqlite-store.js";
import type { AuditEntry } from "../../store/store.js";
import { olderThanTime } from "./audit.js";

const root = resolve(import.meta.dirname, "..", "..", "..");
const bin = join(root, "bin", "warden.js");
const dir = mkdtempSync(join(tmpdir(), "warden-audit-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function warden(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", WARDEN_STORE: ":memory:" },
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

const call = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ method: "tools/call", params: { name, arguments: args } });

describe("warden audit", () => {
  it("records HTTP checks; verify passes, then fails naming the row edited in the database", async () => {
    const db = join(dir, "serve.db");
    const store = await createSqliteStore({ path: db });
    const reader = await issueApiKey({ store, name: "reviewer", scopes: ["audit:read"] });
    const agent = await issueApiKey({ store, name: "agent", scopes: ["check"] });
    const server = await startServer({
      port: 0,
      policyRefs: ["mcp-tools"],
      engine: "compiled",
      logger: false,
      keys: createKeyDirectory({ store }),
      auditStore: store,
    });
    const get = (path: string, token: string) =>
      fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    try {
      const verdicts: string[] = [];
      for (const [tool, args] of [
        ["filesystem.delete_file", { path: "/tmp/x.log" }],
        ["filesystem.delete_file", { path: "/home/me/notes" }],
        ["deploy.production", {}],
      ] as const) {
        const res = await post("/v1/check", {
          policy: "mcp-tools",
          subject: { input: "", output: call(tool, args) },
        });
        verdicts.push(((await res.json()) as Decision).verdict);
      }
      const tool = await post("/v1/check/tool-call", {
        policy: "mcp-tools",
        call: { name: "github_delete_repository", arguments: { repo: "acme/api" } },
      });
      const toolDecision = (await tool.json()) as Decision;
      expect(verdicts).toEqual(["allow", "deny", "ask"]);

      expect((await get("/v1/audit", agent.token)).status).toBe(403);
      const listed = (await (await get("/v1/audit?limit=3", reader.token)).json()) as {
        entries: AuditEntry[];
      };
      expect(listed.entries.map((e) => e.seq)).toEqual([4, 3, 2]);
      const [newest] = listed.entries;
      expect(newest).toMatchObject({
        kind: "decision",
        policy: "mcp-tools",
        verdict: toolDecision.verdict,
        rules: toolDecision.violations.map((v) => v.ruleId),
        caller: "agent",
        face: "http",
        engine: "compiled",
      });
      expect(newest?.subjectDigest).toMatch(/^[0-9a-f]{64}$/);
      expect(newest?.subject).toBeUndefined();
      expect(newest?.policyVersion).not.toBe("");
      const older = (await (await get("/v1/audit?before=2", reader.token)).json()) as {
        entries: AuditEntry[];
      };
      expect(older.entries.map((e) => e.verdict)).toEqual(["allow"]);
      const one = await get(`/v1/audit/${newest?.id}`, reader.token);
      expect(await one.json()).toEqual(newest);
      expect((await get("/v1/audit/999", reader.token)).status).toBe(404);
      expect((await get("/v1/audit?limit=0", reader.token)).status).toBe(400);
    } finally {
      await server.close();
      await store.close();
    }

    const ok = await warden(["audit", "verify", "--store", db]);
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^audit log OK: 4 rows \(1\.\.4\), head 4:[0-9a-f]{64}\n$/);

    // An attacker with SQL access turns the deny of row 2 into an allow.
    const { Database } = loadBetterSqlite3();
    const raw = new Database(db);
    const row2 = raw.prepare("select id from warden_audit_entries where seq = 2").get() as { id: string };
    raw.prepare("update warden_audit_entries set verdict = 'allow', allowed = 1 where seq = 2").run();
    raw.close();
    const bad = await warden(["audit", "verify", "--store", db]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`audit log BROKEN at row 2 (id ${row2.id})`);
    expect(bad.stderr).toContain("edited");
  }, 120_000);

  it("tails, shows, exports, prunes and anchors through the CLI", async () => {
    const db = join(dir, "cli.db");
    const store = await createSqliteStore({ path: db });
    for (const verdict of ["allow", "deny", "ask"] as const) {
      await store.appendAuditEntry({
        entry: {
          kind: "decision",
          policy: "p",
          verdict,
          allowed: verdict === "allow",
          face: "cli-check",
          caller: "cli",
        },
      });
    }
    await store.close();
    const tail = await warden(["audit", "tail", "-n", "2", "--store", db]);
    expect(tail.code).toBe(0);
    expect(
      tail.stdout
        .trim()
        .split("\n")
        .map((l) => l.split("\t")[0]),
    ).toEqual(["2", "3"]);
    const shown = await warden(["audit", "show", "3", "--store", db]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ seq: 3, verdict: "ask" });
    const head = (await warden(["audit", "head", "--store", db])).stdout.trim();
    expect(head).toMatch(/^3:[0-9a-f]{64}$/);
    const pruned = await warden(["audit", "prune", "--keep", "1", "--store", db]);
    expect(pruned.stdout).toBe("pruned 2 rows; checkpoint row 4\n");
    const exported = await warden(["audit", "export", "--jsonl", "--store", db]);
    expect(
      exported.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as AuditEntry).kind),
    ).toEqual(["decision", "checkpoint"]);
    const anchored = await warden(["audit", "verify", "--anchor", head, "--store", db]);
    expect(anchored.code).toBe(0);
    const wrong = await warden(["audit", "verify", "--anchor", `3:${"c".repeat(64)}`, "--store", db]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("BROKEN at row 3");
  }, 180_000);

  it("reads durations for --older-than", () => {
    expect(olderThanTime({ duration: "30d", now: Date.parse("2026-02-01T00:00:00Z") })).toBe(
      "2026-01-02T00:00:00.000Z",
    );
    expect(() => olderThanTime({ duration: "30 days" })).toThrow(/not a duration/);
  });
});
