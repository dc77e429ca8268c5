import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import { createSqliteStore } from "./sqlite-store.js";
import type { Demonstration } from "./store.js";
import { describeStoreConformance } from "./store-conformance.js";

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "warden-sqlite-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreConformance({
  name: "SQLite (file)",
  create: () => createSqliteStore({ path: join(dir, "shared.db") }),
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

  it("opens in WAL mode and records the schema version", async () => {
    const path = join(dir, "wal.db");
    const store = await createSqliteStore({ path });
    await store.close();
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(raw.prepare("select version from warden_migrations").all()).toEqual([{ version: 1 }]);
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
