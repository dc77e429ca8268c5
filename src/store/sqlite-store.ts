/**
 * The embedded Store: one SQLite file (better-sqlite3 through Kysely), the default for a single Warden
 * process. WAL mode lets readers run beside the writer, a busy timeout makes concurrent processes wait
 * for the lock instead of failing, and the schema is created or migrated when the file is opened.
 * `path: ":memory:"` gives a private in-memory database (tests, throwaway runs).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { z } from "zod";
import { toWardenError } from "../core/errors.js";
import { parseWith } from "../core/validate.js";
import { createKyselyStore, type StoreTables } from "./kysely-store.js";
import { migrateSqlite } from "./migrations.js";
import type { Store } from "./store.js";

export interface SqliteStoreOptions {
  /** File path, or ":memory:". Parent directories are created. */
  path: string;
  /** How long to wait for another process's lock, in milliseconds (default 5,000). */
  busyTimeoutMs?: number;
}

const OptionsSchema = z.object({
  path: z.string().min(1, "must not be empty"),
  busyTimeoutMs: z.number().int().min(0).optional(),
});

export async function createSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const { path, busyTimeoutMs } = parseWith({
    schema: OptionsSchema,
    value: options,
    what: "SQLite store options",
  });
  let database: Database.Database;
  try {
    if (path !== ":memory:" && !path.startsWith("file:")) mkdirSync(dirname(path), { recursive: true });
    database = new Database(path);
    database.pragma(`busy_timeout = ${busyTimeoutMs ?? 5000}`);
    if (path !== ":memory:") database.pragma("journal_mode = WAL");
    // WAL + NORMAL is durable across application crashes; only an OS crash can lose the last commits.
    database.pragma("synchronous = NORMAL");
  } catch (error) {
    throw toWardenError({ error, code: "STORE_ERROR", message: `cannot open SQLite database ${path}` });
  }
  const db = new Kysely<StoreTables>({ dialect: new SqliteDialect({ database }) });
  try {
    await migrateSqlite({ db });
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw toWardenError({ error, code: "STORE_ERROR", message: `cannot migrate SQLite database ${path}` });
  }
  return createKyselyStore({
    db,
    backend: "SQLite",
    isUniqueViolation: (error) =>
      typeof error === "object" &&
      error !== null &&
      "code" in error &&
      (error.code === "SQLITE_CONSTRAINT_UNIQUE" || error.code === "SQLITE_CONSTRAINT_PRIMARYKEY"),
    close: () => db.destroy(),
  });
}
