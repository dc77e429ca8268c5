/**
 * Checkpoints of a SQLite store's write-ahead log on a thread of their own, for long-running services.
 *
 * In WAL mode a commit appends to the log, and by default the connection that commits past 1,000 log
 * pages copies the log into the database then and there (an automatic checkpoint), fsyncs included: with
 * the audit log writing a row per decision, that made one commit in every few dozen take milliseconds,
 * on the event loop, and was most of what a decision's row cost the HTTP service. With the checkpointer
 * the server's connection checkpoints only as a backstop (BACKSTOP_PAGES, about 80 MB of log, which the
 * thread keeps it well below), and a worker thread with its own connection runs PASSIVE checkpoints
 * whenever the log passes `walBytes`. Durability is unchanged: a commit is as durable as before (WAL with
 * synchronous=NORMAL); only where the copying happens moves.
 *
 * The thread is unref'd (it never keeps a process alive) and closed with the store. If it cannot start,
 * or stops, the connection's automatic checkpoint returns to SQLite's default, as without it.
 */
import type { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { workerEntryUrl } from "../util/worker-entry.js";

/** Log pages after which the server's own connection checkpoints anyway (4 KiB pages: about 80 MB). */
const BACKSTOP_PAGES = 20_000;
/** SQLite's default automatic checkpoint, restored when the thread is gone. */
const DEFAULT_PAGES = 1_000;
/** How long close waits for the thread to finish a checkpoint in progress before stopping it. */
const CLOSE_WAIT_MS = 2_000;

export interface Checkpointer {
  /** Stops the thread (after a checkpoint in progress) and restores the connection's default. */
  close(): Promise<void>;
}

export interface CheckpointerOptions {
  /** The store's connection (its automatic checkpoint becomes a backstop). */
  database: Database.Database;
  /** The database file. */
  path: string;
  busyTimeoutMs: number;
  /** How often the thread looks at the log's size (default 200 ms). */
  everyMs?: number;
  /** Log size past which it checkpoints (default 4 MiB). */
  walBytes?: number;
  /** Told when a checkpoint fails or the thread stops (it is retried, or the default returns). */
  onWarning?: (options: { message: string }) => void;
  /** The thread's entry module (default: found beside this module). */
  workerUrl?: URL;
}

function defaultWorkerUrl(): URL {
  return workerEntryUrl({ here: import.meta.url, name: "sqlite-checkpoint-worker", folder: "store" });
}

export async function startCheckpointer(options: CheckpointerOptions): Promise<Checkpointer> {
  const { database } = options;
  const warn =
    options.onWarning ??
    (({ message }) => process.emitWarning(message, { code: "WARDEN_SQLITE_CHECKPOINT" }));
  const { Worker } = await import("node:worker_threads");
  let worker: Worker;
  try {
    worker = new Worker(options.workerUrl ?? defaultWorkerUrl(), {
      workerData: {
        path: options.path,
        busyTimeoutMs: options.busyTimeoutMs,
        everyMs: options.everyMs ?? 200,
        walBytes: options.walBytes ?? 4 * 1024 * 1024,
      },
    });
  } catch (error) {
    warn({
      message: `SQLite checkpointer did not start (${(error as Error).message}); checkpoints stay inline`,
    });
    return { close: async () => undefined };
  }
  worker.unref();
  database.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  let closing = false;
  let gone = false;
  const restore = () => {
    if (database.open) database.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
  };
  worker.on("message", (message: unknown) => {
    const warning = (message as { warning?: unknown } | undefined)?.warning;
    if (typeof warning === "string") warn({ message: `SQLite checkpoint failed: ${warning}` });
  });
  worker.on("error", (error) => {
    warn({ message: `SQLite checkpointer stopped (${error.message}); checkpoints are inline again` });
  });
  worker.once("exit", () => {
    gone = true;
    if (!closing) restore();
  });
  return {
    async close() {
      if (closing) return;
      closing = true;
      if (gone) return restore();
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      worker.postMessage("close");
      const timer = setTimeout(() => void worker.terminate(), CLOSE_WAIT_MS);
      await exited;
      clearTimeout(timer);
      restore();
    },
  };
}
