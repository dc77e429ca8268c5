/**
 * Which build of better-sqlite3 the SQLite store opens its files with. better-sqlite3 12 is the last major
 * that runs on Node 20, but on Node 24 its statements can abort the process when the garbage collector
 * finalizes one (a CHECK in node::RemoveEnvironmentCleanupHook, from the ObjectWrap base it is built on);
 * better-sqlite3 13 (Node-API) fixes that and needs Node 22 or later, and crashes on Node 20. So both are
 * installed — 12 as `better-sqlite3`, 13 as the optional alias `better-sqlite3-v13` — and this picks 13
 * on Node 22 and later when it is there, 12 otherwise. Their JavaScript APIs are the same.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

export type SqliteDatabaseConstructor = typeof BetterSqlite3;

const require = createRequire(import.meta.url);
let loaded: { Database: SqliteDatabaseConstructor; module: string } | undefined;

/** The Database class to use on this Node, and the package it came from (for diagnostics). */
export function loadBetterSqlite3(): { Database: SqliteDatabaseConstructor; module: string } {
  if (loaded) return loaded;
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= 22) {
    try {
      loaded = {
        Database: require("better-sqlite3-v13") as SqliteDatabaseConstructor,
        module: "better-sqlite3-v13",
      };
      return loaded;
    } catch {
      // Not installed (an optional dependency): 12 still works on Node 22; on 24 it risks the abort above.
    }
  }
  loaded = { Database: require("better-sqlite3") as SqliteDatabaseConstructor, module: "better-sqlite3" };
  return loaded;
}
