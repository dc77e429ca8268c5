/**
 * Item 7 of issue 14: no acknowledged decision's audit row is lost when the process is killed. Two writer
 * processes (audit-writer.fixture.ts) append to one store at once — SQLite in WAL mode, and PostgreSQL when
 * $WARDEN_TEST_PG_URL is set — and are killed with SIGKILL at a random moment, round after round. Then every
 * decision a writer printed as answered has its row, and the chain verifies as one.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { verifyAuditChain } from "../store/audit-chain.js";
import { createPostgresStore } from "../store/postgres-store.js";
import { createSqliteStore } from "../store/sqlite-store.js";
import type { Store } from "../store/store.js";

const fixture = resolve(import.meta.dirname, "audit-writer.fixture.ts");
const dir = mkdtempSync(join(tmpdir(), "warden-audit-kill-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ROUNDS = 4;

/** Starts a writer; resolves its acknowledged ids once it has been killed. */
function killedWriter(options: { args: string[]; afterAcks: number }): Promise<string[]> {
  return new Promise((done, fail) => {
    const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", fixture, ...options.args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const acked: string[] = [];
    let buffered = "";
    let stderr = "";
    const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) if (line.startsWith("ack ")) acked.push(line.slice(4));
      // Killed mid-stream, at a random point after a few acknowledgements.
      if (acked.length >= options.afterAcks) child.kill("SIGKILL");
    });
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (_code, signal) => {
      clearTimeout(guard);
      if (signal !== "SIGKILL") fail(new Error(`writer ended without being killed: ${stderr}`));
      else done(acked);
    });
  });
}

async function killLoop(options: { args: (writer: string) => string[]; open: () => Promise<Store> }) {
  const acked: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const ids = await Promise.all(
      ["a", "b"].map((w) =>
        killedWriter({ args: options.args(`${w}${round}`), afterAcks: 5 + Math.floor(Math.random() * 40) }),
      ),
    );
    acked.push(...ids.flat());
  }
  const store = await options.open();
  try {
    const verified = await verifyAuditChain({ store });
    expect(verified.problem).toBeUndefined();
    expect(verified.ok).toBe(true);
    const rows = await store.readAuditChain({ limit: 100_000 });
    const recorded = new Set(rows.map((r) => r.explanation));
    expect(acked.filter((id) => !recorded.has(id))).toEqual([]);
    expect(acked.length).toBeGreaterThanOrEqual(ROUNDS * 2 * 5);
  } finally {
    await store.close();
  }
}

describe("audit log durability under kill -9", () => {
  it("SQLite (WAL): every acknowledged decision has its row and the chain verifies", async () => {
    const db = join(dir, "kill.db");
    await killLoop({ args: (w) => [db, w], open: () => createSqliteStore({ path: db }) });
  }, 300_000);

  const url = process.env.WARDEN_TEST_PG_URL;
  it.skipIf(!url)(
    "PostgreSQL: every acknowledged decision has its row and the chain verifies",
    async () => {
      const schema = `warden_kill_${randomBytes(4).toString("hex")}`;
      // Created once before the writers race to migrate it.
      await (await createPostgresStore({ url: url as string, schema })).close();
      try {
        await killLoop({
          args: (w) => [url as string, w, schema],
          open: () => createPostgresStore({ url: url as string, schema }),
        });
      } finally {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`drop schema if exists "${schema}" cascade`);
        await client.end();
      }
    },
    300_000,
  );
});
