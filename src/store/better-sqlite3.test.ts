import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { loadBetterSqlite3 } from "./better-sqlite3.js";

const major = Number(process.versions.node.split(".")[0]);
const hasV13 = (() => {
  try {
    createRequire(import.meta.url).resolve("better-sqlite3-v13");
    return true;
  } catch {
    return false;
  }
})();

describe("loadBetterSqlite3", () => {
  it("uses better-sqlite3 13 on Node 22 and later when it is installed, 12 otherwise", () => {
    const { module } = loadBetterSqlite3();
    expect(module).toBe(major >= 22 && hasV13 ? "better-sqlite3-v13" : "better-sqlite3");
  });

  it("gives a working Database class", () => {
    const { Database } = loadBetterSqlite3();
    const db = new Database(":memory:");
    try {
      db.exec("create table t (x integer)");
      db.prepare("insert into t values (?)").run(41);
      expect(db.prepare("select x + 1 as y from t").get()).toEqual({ y: 42 });
    } finally {
      db.close();
    }
  });
});
