/**
 * The background checkpointer: its thread copies the log into the database while the writer's own
 * automatic checkpoint is only a backstop; closing restores SQLite's default; a thread that cannot run
 * leaves checkpoints inline, as without it. And a store opened with it reads back what it wrote.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadBetterSqlite3 } from "./better-sqlite3.js";
import { startCheckpointer } from "./sqlite-checkpointer.js";
import { createSqliteStore } from "./sqlite-store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "warden-checkpointer-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function openDatabase(path: string) {
  const { Database } = loadBetterSqlite3();
  const database = new Database(path);
  database.pragma("journal_mode = WAL");
  database.exec("create table t (id integer primary key, body text not null)");
  return database;
}

async function until(condition: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

describe("startCheckpointer", () => {
  it("checkpoints the log on its thread, the writer's own checkpoint a backstop, and restores the default on close", async () => {
    const path = join(dir, "db.sqlite");
    const database = openDatabase(path);
    const checkpointer = await startCheckpointer({
      database,
      path,
      busyTimeoutMs: 1000,
      everyMs: 20,
      walBytes: 64 * 1024,
    });
    expect(database.pragma("wal_autocheckpoint", { simple: true })).toBeGreaterThan(1000);
    const before = statSync(path).size;
    const insert = database.prepare("insert into t (body) values (?)");
    database.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run("x".repeat(1000));
    })();
    // Committed pages reach the database file only through a checkpoint, which only the thread runs.
    expect(await until(() => statSync(path).size > before + 256 * 1024)).toBe(true);
    await checkpointer.close();
    await checkpointer.close();
    expect(database.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    expect(database.prepare("select count(*) from t").pluck().get()).toBe(500);
    database.close();
  });

  it("leaves checkpoints inline when its thread cannot run", async () => {
    const path = join(dir, "db.sqlite");
    const database = openDatabase(path);
    const warnings: string[] = [];
    const checkpointer = await startCheckpointer({
      database,
      path,
      busyTimeoutMs: 1000,
      workerUrl: new URL(`file://${join(dir, "no-such-worker.js")}`),
      onWarning: ({ message }) => warnings.push(message),
    });
    expect(await until(() => database.pragma("wal_autocheckpoint", { simple: true }) === 1000)).toBe(true);
    expect(warnings.join("\n")).toMatch(/checkpoint/);
    await checkpointer.close();
    database.close();
  });
});

describe("createSqliteStore with backgroundCheckpoints", () => {
  it("writes, closes and reads back, on a file; is ignored in memory", async () => {
    const path = join(dir, "warden.db");
    const store = await createSqliteStore({ path, backgroundCheckpoints: true });
    for (let i = 0; i < 50; i++) {
      await store.appendAuditEntry({
        entry: { kind: "decision", policy: "p", verdict: "allow", allowed: true, face: "test" },
      });
    }
    await store.close();
    const again = await createSqliteStore({ path });
    expect((await again.auditHead()).headSeq).toBe(50);
    await again.close();
    const memory = await createSqliteStore({ path: ":memory:", backgroundCheckpoints: true });
    await memory.close();
  });
});
