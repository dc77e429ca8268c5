/**
 * A compiled shape runs Kysely's own SQL text with each call's values in the slots Kysely put them in,
 * keeps the query's constants, and refuses a shape whose slots it cannot place.
 */
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import { compileShape } from "./compiled-shape.js";

interface Tables {
  t: { id: number; a: string; b: string | null };
}

// Compiling needs the dialect only: the database is never opened.
const db = new Kysely<Tables>({
  dialect: new SqliteDialect({ database: async () => ({}) as never }),
});

describe("compileShape", () => {
  it("gives the SQL Kysely compiles, with the values where Kysely puts them", () => {
    const shape = compileShape({
      slots: 4,
      build: (s) =>
        db.insertInto("t").values([
          { id: s[0] as never, a: s[1] as never },
          { id: s[2] as never, a: s[3] as never },
        ]),
    });
    const direct = db
      .insertInto("t")
      .values([
        { id: 1, a: "x" },
        { id: 2, a: "y" },
      ])
      .compile();
    const query = shape.with([1, "x", 2, "y"]);
    expect(query.sql).toBe(direct.sql);
    expect(query.parameters).toEqual(direct.parameters);
  });

  it("keeps the query's constants and places slots around them", () => {
    const shape = compileShape({
      slots: 2,
      build: ([a, b]) =>
        db
          .updateTable("t")
          .set({ a: a as never })
          .where("id", "=", 7)
          .where("b", "=", b as never),
    });
    const direct = db.updateTable("t").set({ a: "new" }).where("id", "=", 7).where("b", "=", "old").compile();
    const query = shape.with(["new", "old"]);
    expect(query.sql).toBe(direct.sql);
    expect(query.parameters).toEqual(direct.parameters);
  });

  it("refuses a slot that is not a parameter, one used twice, and the wrong number of values", () => {
    const refused = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return isWardenError(error) && error.code === "STORE_ERROR";
      }
      return false;
    };
    expect(
      refused(() => compileShape({ slots: 2, build: ([a]) => db.updateTable("t").set({ a: a as never }) })),
    ).toBe(true);
    expect(
      refused(() =>
        compileShape({
          slots: 1,
          build: ([a]) => db.updateTable("t").set({ a: a as never, b: a as never }),
        }),
      ),
    ).toBe(true);
    const shape = compileShape({ slots: 1, build: ([a]) => db.updateTable("t").set({ a: a as never }) });
    expect(refused(() => shape.with([]))).toBe(true);
  });
});
