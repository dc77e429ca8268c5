/**
 * The embedded Store: one SQLite file (better-sqlite3 through Kysely), the default for a single Warden
 * process. WAL mode lets readers run beside the writer, a busy timeout makes concurrent processes wait
 * for the lock instead of failing, and the schema is created or migrated when the file is opened.
 * `path: ":memory:"` gives a private in-memory database (tests, throwaway runs).
 *
 * addDemonstrationOnce's lock is the database's write lock, taken with BEGIN IMMEDIATE on the one
 * connection. better-sqlite3 waits for a busy lock synchronously, which would freeze the event loop, and
 * with it a second store on the same file in this process that holds the lock and needs the loop to
 * commit; so BEGIN IMMEDIATE is tried without the busy wait and retried after short async sleeps until
 * the busy timeout has passed.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type Database from "better-sqlite3";
import { CompiledQuery, Kysely, type SqliteDatabase, SqliteDialect, type SqliteStatement } from "kysely";
import { z } from "zod";
import { toWardenError } from "../core/errors.js";
import { parseWith } from "../core/validate.js";
import { loadBetterSqlite3 } from "./better-sqlite3.js";
import { createKyselyStore, type StoreTables } from "./kysely-store.js";
import { migrateSqlite } from "./migrations.js";
import { startCheckpointer } from "./sqlite-checkpointer.js";
import type { Store } from "./store.js";

export interface SqliteStoreOptions {
  /** File path, or ":memory:". Parent directories are created. */
  path: string;
  /** How long to wait for another process's lock, in milliseconds (default 5,000). */
  busyTimeoutMs?: number;
  /**
   * Checkpoint the write-ahead log on a thread of its own (./sqlite-checkpointer.ts) instead of inside
   * the commit that passes 1,000 pages: for long-running services that write on every request (`warden
   * serve`'s audit log). A file path only; ignored for ":memory:".
   */
  backgroundCheckpoints?: boolean;
}

const OptionsSchema = z.object({
  path: z.string().min(1, "must not be empty"),
  busyTimeoutMs: z.number().int().min(0).optional(),
  backgroundCheckpoints: z.boolean().optional(),
});

/**
 * `journal_mode = WAL`, retried while SQLite answers busy, up to the busy timeout: the pragma needs a
 * lock that the busy handler does not always wait for, e.g. while another process opening the same file
 * recovers the WAL a killed writer left behind.
 */
async function walMode(o: { database: Database.Database; timeoutMs: number }): Promise<void> {
  const until = Date.now() + o.timeoutMs;
  for (;;) {
    try {
      o.database.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      const busy = String((error as { code?: unknown }).code ?? "").startsWith("SQLITE_BUSY");
      if (!busy || Date.now() >= until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

export async function createSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const { path, busyTimeoutMs, backgroundCheckpoints } = parseWith({
    schema: OptionsSchema,
    value: options,
    what: "SQLite store options",
  });
  const timeoutMs = busyTimeoutMs ?? 5000;
  let database: Database.Database;
  try {
    if (path !== ":memory:" && !path.startsWith("file:")) mkdirSync(dirname(path), { recursive: true });
    const { Database: SqliteDatabase } = loadBetterSqlite3();
    database = new SqliteDatabase(path);
    database.pragma(`busy_timeout = ${timeoutMs}`);
    if (path !== ":memory:") await walMode({ database, timeoutMs });
    // WAL + NORMAL is durable across application crashes; only an OS crash can lose the last commits.
    database.pragma("synchronous = NORMAL");
  } catch (error) {
    throw toWardenError({ error, code: "STORE_ERROR", message: `cannot open SQLite database ${path}` });
  }
  const db = new Kysely<StoreTables>({
    dialect: new SqliteDialect({ database: preparedOnce({ database }) }),
  });
  try {
    await migrateSqlite({ db });
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw toWardenError({ error, code: "STORE_ERROR", message: `cannot migrate SQLite database ${path}` });
  }
  const othersMark = otherWritersMarkFor({ database });
  const onFile = path !== ":memory:" && !path.startsWith("file:");
  const checkpointer =
    backgroundCheckpoints && onFile
      ? await startCheckpointer({ database, path, busyTimeoutMs: timeoutMs })
      : undefined;
  return createKyselyStore({
    db,
    backend: "SQLite",
    isUniqueViolation: (error) =>
      typeof error === "object" &&
      error !== null &&
      "code" in error &&
      (error.code === "SQLITE_CONSTRAINT_UNIQUE" || error.code === "SQLITE_CONSTRAINT_PRIMARYKEY"),
    // One write lock per database: the key is not needed to serialise.
    lockedTransaction: ({ run }) =>
      db.connection().execute(async (conn) => {
        await beginImmediate({ database, conn, timeoutMs });
        try {
          const result = await run(conn);
          await conn.executeQuery(COMMIT);
          return result;
        } catch (error) {
          await conn.executeQuery(ROLLBACK).catch(() => undefined);
          throw error;
        }
      }),
    close: async () => {
      await checkpointer?.close();
      await db.destroy();
    },
    otherWritersMark: othersMark,
  });
}

/** Statements kept per database; past this many distinct texts the cache starts over. */
const STATEMENT_CACHE_SIZE = 512;

/**
 * The database as Kysely's SQLite driver sees it, with each SQL text prepared once: the driver prepares
 * every query it runs, and preparing cost more than running on the audit log's hot path (a few
 * statements per decision). Kysely runs statements one at a time on this connection (.all / .run, no
 * streaming here), so a cached statement is never in use twice at once.
 *
 * Values are handed to better-sqlite3 as arguments rather than as one array when none is an object:
 * the same anonymous parameters in the same order, but an array is read element by element through V8's
 * object API, which cost half as much again as binding the values (the audit log binds 19 per row).
 * A value that is an object (a Buffer, or anything better-sqlite3 would refuse) keeps the array form,
 * where an argument that is an array or object would mean something else (a list, named parameters).
 */
function preparedOnce(options: { database: Database.Database }): SqliteDatabase {
  const { database } = options;
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare: (text: string) => {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statement = asArguments({ statement: database.prepare(text) });
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/** The statement as Kysely calls it, binding plain values as arguments (see preparedOnce). */
function asArguments(options: { statement: Database.Statement }): SqliteStatement {
  const { statement } = options;
  const plain = (values: ReadonlyArray<unknown>) => values.every((v) => v === null || typeof v !== "object");
  return {
    reader: statement.reader,
    all: (values) => (plain(values) ? statement.all(...values) : statement.all(values)),
    run: (values) => (plain(values) ? statement.run(...values) : statement.run(values)),
    iterate: (values) => (plain(values) ? statement.iterate(...values) : statement.iterate(values)),
  };
}

/**
 * SQLite's data_version: it moves when another connection (another store or process, `warden keys` and
 * `warden approvals` included) commits, never for this connection's own writes. Reading it takes a read
 * transaction (file locks: several µs), so it is read at most once per turn of the event loop: the
 * requests answered in one turn were all being read when it was, and a commit elsewhere counts from the
 * next turn.
 */
function otherWritersMarkFor(options: { database: Database.Database }): () => string {
  const versionOf = options.database.prepare("pragma data_version").pluck(true);
  let version: number | undefined;
  const forget = () => {
    version = undefined;
  };
  return () => {
    if (version === undefined) {
      version = versionOf.get() as number;
      setImmediate(forget);
    }
    return String(version);
  };
}

// The locked transaction's statements, compiled once: the audit log runs them for every batch it writes.
const BEGIN_IMMEDIATE = CompiledQuery.raw("begin immediate");
const COMMIT = CompiledQuery.raw("commit");
const ROLLBACK = CompiledQuery.raw("rollback");

/** BEGIN IMMEDIATE on `conn`, polled with async sleeps rather than a blocking busy wait (see the header). */
async function beginImmediate(options: {
  database: Database.Database;
  conn: Kysely<StoreTables>;
  timeoutMs: number;
}): Promise<void> {
  const { database, conn, timeoutMs } = options;
  const deadline = Date.now() + timeoutMs;
  // The connection is held exclusively (Kysely's connection()), so nothing else runs under this setting.
  // Through Database#exec, not a statement prepared once: SQLite applies busy_timeout when the pragma is
  // prepared, not when it runs. Not Database#pragma either, which makes a Statement object (freed by the
  // garbage collector) and an array of result rows every time: twice per audit batch, it cost five times
  // what exec does.
  database.exec("pragma busy_timeout = 0");
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await conn.executeQuery(BEGIN_IMMEDIATE);
        return;
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
      }
      // Jittered backoff from 1 ms to about 50 ms, so waiting callers do not retry in lockstep.
      await sleep(Math.min(2 ** attempt, 50) * (0.5 + Math.random()));
    }
  } finally {
    database.exec(`pragma busy_timeout = ${timeoutMs}`);
  }
}

function isBusy(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    typeof error.code === "string" &&
    error.code.startsWith("SQLITE_BUSY")
  );
}
