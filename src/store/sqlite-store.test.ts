import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { Kysely, SqliteDialect } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import { loadBetterSqlite3 } from "./better-sqlite3.js";
import { demonstrationContentHash } from "./content-hash.js";
import { MIGRATIONS, migrateSqlite } from "./migrations.js";
import { createSqliteStore } from "./sqlite-store.js";
import type { Demonstration } from "./store.js";
import { describeStoreConformance } from "./store-conformance.js";

// The build the store itself uses on this Node (see better-sqlite3.ts).
const { Database } = loadBetterSqlite3();

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "warden-sqlite-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreConformance({
  name: "SQLite (file)",
  create: () => createSqliteStore({ path: join(dir, "shared.db") }),
  execute: async ({ sql }) => {
    const database = new Database(join(dir, "shared.db"));
    try {
      database.exec(sql);
    } finally {
      database.close();
    }
  },
});

describe("SQLite store", () => {
  it("also passes with an in-memory database (each store its own)", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const d = await store.addDemonstration({
      demonstration: { policy: "p", input: "i", output: "o", plan: "p", code: "c", origin: "user" },
    });
    expect(await store.listDemonstrations({ policy: "p" })).toEqual([d]);
    const other = await createSqliteStore({ path: ":memory:" });
    expect(await other.countDemonstrations({})).toBe(0);
    await Promise.all([store.close(), other.close()]);
  });

  it("keeps data across process restarts: one process writes, another reads", async () => {
    const path = join(dir, "restart", "nested", "warden.db");
    const moduleUrl = pathToFileURL(fileURLToPath(new URL("./sqlite-store.ts", import.meta.url))).href;
    const child = async (script: string): Promise<string> => {
      const { stdout } = await run(
        process.execPath,
        [
          "--import",
          "tsx",
          "--input-type=module",
          "-e",
          `const { createSqliteStore } = await import(${JSON.stringify(moduleUrl)});\n${script}`,
        ],
        { timeout: 30_000, env: { ...process.env, WARDEN_DB: path } },
      );
      return stdout;
    };
    const written = JSON.parse(
      await child(`
        const store = await createSqliteStore({ path: process.env.WARDEN_DB });
        const out = [];
        for (const input of ["første", "второй", "第三"]) {
          out.push(await store.addDemonstration({ demonstration: {
            policy: "eicu", input, output: "out " + input, plan: "plan", code: "code", label: 1,
            origin: "learned", meta: { k: [1, "two"] } } }));
        }
        await store.addWorkflow({ workflow: { policy: "eicu", action: "read", query: "q", plan: { a: 1 }, verdict: "allow" } });
        await store.close();
        console.log(JSON.stringify(out));
      `),
    ) as Demonstration[];
    const read = JSON.parse(
      await child(`
        const store = await createSqliteStore({ path: process.env.WARDEN_DB });
        const demos = await store.listDemonstrations({ policy: "eicu" });
        const flows = await store.listWorkflows({ policy: "eicu" });
        await store.close();
        console.log(JSON.stringify({ demos, flows }));
      `),
    ) as { demos: Demonstration[]; flows: unknown[] };
    expect(read.demos).toEqual(written);
    expect(read.flows).toHaveLength(1);

    // A third opening (this process) continues the sequence after what the others wrote.
    const store = await createSqliteStore({ path });
    const next = await store.addDemonstration({
      demonstration: { policy: "eicu", input: "fourth", output: "o", plan: "p", code: "c", origin: "user" },
    });
    expect(next.seq).toBeGreaterThan(Math.max(...written.map((d) => d.seq)));
    await store.close();
  });

  it("stores content once when several processes add the same demonstrations at once", async () => {
    const path = join(dir, "processes.db");
    // Create the file first so the children do not also race on creating the schema.
    await (await createSqliteStore({ path })).close();
    const moduleUrl = pathToFileURL(fileURLToPath(new URL("./sqlite-store.ts", import.meta.url))).href;
    const script = `
      const { createSqliteStore } = await import(${JSON.stringify(moduleUrl)});
      const store = await createSqliteStore({ path: process.env.WARDEN_DB });
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
        store.addDemonstrationOnce({ demonstration: {
          policy: "procs", input: "case " + (i % 10), output: "o", plan: "p", code: "c", origin: "seed" } })));
      await store.close();
      console.log(JSON.stringify(results.filter((r) => r.added).length));
    `;
    const outputs = await Promise.all(
      Array.from({ length: 3 }, () =>
        run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
          timeout: 60_000,
          env: { ...process.env, WARDEN_DB: path },
        }),
      ),
    );
    const addedPerProcess = outputs.map((o) => Number(o.stdout.trim()));
    expect(addedPerProcess.reduce((a, b) => a + b, 0)).toBe(10);
    const store = await createSqliteStore({ path });
    const listed = await store.listDemonstrations({ policy: "procs" });
    expect(listed.map((d) => d.input).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `case ${i}`).sort(),
    );
    await store.close();
  }, 90_000);

  it("backfills content hashes when a version-1 database is opened, so addDemonstrationOnce finds old rows", async () => {
    const path = join(dir, "version1.db");
    const raw = new Database(path);
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: raw }) });
    await migrateSqlite({ db: old, migrations: [MIGRATIONS[0] as (typeof MIGRATIONS)[number]] });
    // More rows than one backfill batch, with duplicate content (as version 1 allowed) and two policies.
    const insert = raw.prepare(
      "insert into warden_demonstrations (id, policy, input, output, plan, code, label, origin, created_at, meta) values (?, ?, ?, ?, ?, ?, null, 'seed', '2024-01-01T00:00:00.000Z', null)",
    );
    raw.transaction(() => {
      for (let i = 0; i < 1203; i++) {
        insert.run(`old-${i}`, i % 2 === 0 ? "even" : "odd", `input ${i % 600}`, "out", "plan", "code");
      }
    })();
    await old.destroy();
    const before = new Database(path, { readonly: true });
    expect(() => before.prepare("select content_hash from warden_demonstrations").all()).toThrow(
      /content_hash/,
    );
    before.close();

    const store = await createSqliteStore({ path });
    const check = new Database(path, { readonly: true });
    expect(check.prepare("select version from warden_migrations order by version").all()).toEqual(
      MIGRATIONS.map((m) => ({ version: m.version })),
    );
    const rows = check
      .prepare("select input, output, plan, code, content_hash from warden_demonstrations")
      .all() as { input: string; output: string; plan: string; code: string; content_hash: string | null }[];
    check.close();
    expect(rows).toHaveLength(1203);
    for (const row of rows) expect(row.content_hash).toBe(demonstrationContentHash({ demonstration: row }));

    // "input 0" was written as old-0 (even) and old-600 (even): the earliest is returned, nothing is added.
    const found = await store.addDemonstrationOnce({
      demonstration: {
        policy: "even",
        input: "input 0",
        output: "out",
        plan: "plan",
        code: "code",
        origin: "user",
      },
    });
    expect(found.added).toBe(false);
    expect(found.demonstration.id).toBe("old-0");
    const last = await store.addDemonstrationOnce({
      demonstration: {
        policy: "odd",
        input: "input 1",
        output: "out",
        plan: "plan",
        code: "code",
        origin: "user",
      },
    });
    expect(last).toMatchObject({ added: false, demonstration: { id: "old-1" } });
    expect(
      (
        await store.addDemonstrationOnce({
          demonstration: {
            policy: "odd",
            input: "input 0",
            output: "out",
            plan: "plan",
            code: "code",
            origin: "user",
          },
        })
      ).added,
    ).toBe(true);
    expect(await store.countDemonstrations({})).toBe(1204);
    await store.close();
  });

  it("opens in WAL mode and records the schema version", async () => {
    const path = join(dir, "wal.db");
    const store = await createSqliteStore({ path });
    await store.close();
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(raw.prepare("select version from warden_migrations order by version").all()).toEqual(
      MIGRATIONS.map((m) => ({ version: m.version })),
    );
    raw.close();
    // Opening again applies nothing new and keeps working.
    const again = await createSqliteStore({ path });
    expect(await again.countDemonstrations({})).toBe(0);
    await again.close();
  });

  it("refuses a database written by a newer schema version", async () => {
    const path = join(dir, "newer.db");
    await (await createSqliteStore({ path })).close();
    const raw = new Database(path);
    raw
      .prepare("insert into warden_migrations (version, name, applied_at) values (99, 'future', 'now')")
      .run();
    raw.close();
    const error = await createSqliteStore({ path }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isWardenError(error) && error.code === "STORE_ERROR" && /99/.test(error.message)).toBe(true);
  });

  it("rejects bad options naming the field", async () => {
    const error = await createSqliteStore({ path: "" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isWardenError(error) && error.code === "INVALID_INPUT" && error.message.includes("path")).toBe(
      true,
    );
  });
});
