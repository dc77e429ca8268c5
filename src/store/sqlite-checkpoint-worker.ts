/**
 * The SQLite checkpointer's thread (./sqlite-checkpointer.ts): its own connection to the store's file,
 * copying the write-ahead log into the database (a PASSIVE checkpoint, which never blocks the writer or
 * the readers) whenever the log has grown past `walBytes`, checked every `everyMs`. The checkpoint's
 * fsyncs happen here, on this thread, instead of stalling the server's event loop in the middle of a
 * commit. On "close" it stops, closes its connection and says "closed".
 */
import { statSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { loadBetterSqlite3 } from "./better-sqlite3.js";

interface CheckpointerData {
  path: string;
  busyTimeoutMs: number;
  everyMs: number;
  walBytes: number;
}

const data = workerData as CheckpointerData;
const { Database } = loadBetterSqlite3();
const db = new Database(data.path);
db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
const checkpoint = db.prepare("pragma wal_checkpoint(PASSIVE)");

const walSize = (): number => {
  try {
    return statSync(`${data.path}-wal`).size;
  } catch {
    return 0;
  }
};

const tick = () => {
  if (walSize() < data.walBytes) return;
  try {
    checkpoint.run();
  } catch (error) {
    // A busy or failed checkpoint is tried again on the next tick; the writer's own backstop
    // (its wal_autocheckpoint) keeps the log bounded meanwhile.
    parentPort?.postMessage({ warning: String((error as Error).message ?? error) });
  }
};

const timer = setInterval(tick, data.everyMs);
parentPort?.on("message", (message: unknown) => {
  if (message !== "close") return;
  clearInterval(timer);
  db.close();
  parentPort?.postMessage("closed");
  parentPort?.close();
});
