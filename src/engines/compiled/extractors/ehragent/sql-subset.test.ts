/**
 * The subset reader must answer exactly as node-sql-parser's walk does whenever it answers at all:
 * checked on generated queries (in and around the subset) and, when the data is present, on every gold
 * query of EICU-AC and every SQL string in the EHRAgent logs.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EICU_SCHEMA } from "./schema.js";
import { extractSqlAccess, readSqlWithParser } from "./sql-access.js";
import { readSqlSubset } from "./sql-subset.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../..");
const dataDir = resolve(repoRoot, "../shared/datasets/eicu-ac");
const present = existsSync(join(dataDir, "eicu_ac.json"));

function agree(sql: string): { fast: boolean } {
  const fast = readSqlSubset({ sql, schema: EICU_SCHEMA });
  if (fast !== null) expect(fast, sql).toEqual(readSqlWithParser({ sql, schema: EICU_SCHEMA }));
  return { fast: fast !== null };
}

const word = (...words: string[]) => fc.constantFrom(...words.flatMap((w) => [w, w.toUpperCase()]));
/** Mostly `usual`, now and then one of `odd` (words or forms node-sql-parser may read otherwise). */
function mostly<T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: usual, weight: 12 }, { arbitrary: odd, weight: 1 });
}
const table = mostly(
  word("patient", "lab", "medication", "diagnosis", "cost"),
  word("nosuch", "warden_hole_0"),
);
const column = mostly(
  word("uniquepid", "age", "labname", "labresult", "labresulttime", "drugname", "patientunitstayid", "cost"),
  word(
    "nope",
    "warden_hole_1",
    "date",
    "time",
    "key",
    "value",
    "year",
    "user",
    "cross",
    "natural",
    "over",
    "glob",
    "escape",
    "replace",
    "left",
    "count",
    "max",
    "constructor",
  ),
);
const alias = mostly(
  word("t1", "t2", "p", "x", "c1"),
  word("date", "cross", "natural", "over", "from", "where"),
);
const literal = mostly(
  fc.constantFrom("1", "2.5", "'x'", "'it''s'", "'%Y'"),
  fc.constantFrom("-1", "'a\\'b'", "1e5", ".5", "null", "true", "1.", "x'41'"),
);
const columnRef = fc.oneof(
  { arbitrary: column, weight: 30 },
  { arbitrary: fc.tuple(fc.oneof(table, alias), column).map(([t, c]) => `${t}.${c}`), weight: 30 },
  // Not valid in an expression: must be left to node-sql-parser.
  { arbitrary: fc.oneof(table, alias).map((t) => `${t}.*`), weight: 1 },
);
const usualFunction = fc.constantFrom(
  "strftime",
  "datetime",
  "date",
  "abs",
  "round",
  "max",
  "min",
  "sum",
  "avg",
);
const oddFunction = fc.constantFrom(
  "trim",
  "nosuchfn",
  "exists",
  "replace",
  "group_concat",
  "total",
  "random",
);

const select: fc.Arbitrary<string> = fc.letrec((tie) => ({
  expr: fc.oneof(
    { depthSize: "small" },
    { arbitrary: columnRef, weight: 8 },
    { arbitrary: literal, weight: 4 },
    { arbitrary: word("current_time", "current_date"), weight: 1 },
    {
      arbitrary: fc
        .tuple(
          tie("expr"),
          mostly(
            fc.constantFrom("=", "!=", "<>", "<", ">=", "+", "-", "*", "/", "||"),
            fc.constantFrom("==", "%", "&"),
          ),
          tie("expr"),
        )
        .map(([a, op, b]) => `${a} ${op} ${b}`),
      weight: 4,
    },
    {
      arbitrary: fc
        .tuple(tie("expr"), fc.constantFrom("and", "or", "AND"), tie("expr"))
        .map(([a, op, b]) => `${a} ${op} ${b}`),
      weight: 3,
    },
    { arbitrary: tie("expr").map((a) => `not ${a}`), weight: 1 },
    { arbitrary: tie("expr").map((a) => `(${a})`), weight: 1 },
    { arbitrary: tie("expr").map((a) => `-${a}`), weight: 1 },
    {
      arbitrary: fc
        .tuple(tie("expr"), fc.constantFrom("is null", "is not null", "IS NOT NULL"))
        .map(([a, s]) => `${a} ${s}`),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(tie("expr"), fc.boolean(), tie("select"))
        .map(([a, not, s]) => `${a} ${not ? "not " : ""}in (${s})`),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(tie("expr"), fc.array(literal, { minLength: 1, maxLength: 3 }))
        .map(([a, list]) => `${a} in (${list.join(", ")})`),
      weight: 1,
    },
    {
      arbitrary: fc.tuple(tie("expr"), fc.boolean()).map(([a, not]) => `${a} ${not ? "not " : ""}like '%x%'`),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(tie("expr"), tie("expr"), tie("expr"))
        .map(([a, b, c]) => `${a} between ${b} and ${c}`),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(mostly(usualFunction, oddFunction), fc.array(tie("expr"), { minLength: 1, maxLength: 2 }))
        .map(([f, args]) => `${f}(${args.join(", ")})`),
      weight: 3,
    },
    {
      arbitrary: mostly(
        fc.constantFrom("count(*)", "COUNT( * )"),
        fc.constantFrom("count()", "count(distinct *)"),
      ),
      weight: 1,
    },
    {
      arbitrary: fc.tuple(fc.boolean(), tie("expr")).map(([d, a]) => `count(${d ? "distinct " : ""}${a})`),
      weight: 1,
    },
    { arbitrary: tie("select").map((s) => `(${s})`), weight: 1 },
    {
      arbitrary: fc.oneof(
        tie("expr").map((a) => `dense_rank() over (order by ${a})`),
        tie("expr").map((a) => `case when ${a} then 1 else 0 end`),
        tie("expr").map((a) => `cast(${a} as int)`),
      ),
      weight: 1,
    },
  ),
  item: fc.oneof(
    { arbitrary: fc.constant("*"), weight: 1 },
    { arbitrary: fc.oneof(table, alias).map((t) => `${t}.*`), weight: 1 },
    { arbitrary: tie("expr"), weight: 6 },
    { arbitrary: fc.tuple(tie("expr"), alias).map(([e, a]) => `${e} as ${a}`), weight: 2 },
    { arbitrary: fc.tuple(tie("expr"), alias).map(([e, a]) => `${e} ${a}`), weight: 1 },
  ),
  source: fc.oneof(
    { arbitrary: table, weight: 4 },
    { arbitrary: fc.tuple(table, alias).map(([t, a]) => `${t} ${a}`), weight: 2 },
    { arbitrary: fc.tuple(table, alias).map(([t, a]) => `${t} as ${a}`), weight: 2 },
    {
      arbitrary: fc.tuple(tie("select"), fc.option(alias)).map(([s, a]) => `(${s})${a ? ` as ${a}` : ""}`),
      weight: 1,
    },
  ),
  from: fc.oneof(
    { arbitrary: tie("source"), weight: 5 },
    { arbitrary: fc.tuple(tie("source"), tie("source")).map(([a, b]) => `${a}, ${b}`), weight: 1 },
    {
      arbitrary: fc
        .tuple(
          tie("source"),
          mostly(
            fc.constantFrom("join", "inner join", "left join", "left outer join"),
            fc.constantFrom("cross join", "natural join"),
          ),
          tie("source"),
          fc.oneof(
            { arbitrary: tie("expr").map((e) => ` on ${e}`), weight: 4 },
            { arbitrary: column.map((c) => ` using (${c})`), weight: 1 },
            { arbitrary: fc.constant(""), weight: 1 },
          ),
        )
        .map(([a, j, b, on]) => `${a} ${j} ${b}${on}`),
      weight: 2,
    },
  ),
  select: fc
    .tuple(
      fc.boolean(),
      fc.array(tie("item"), { minLength: 1, maxLength: 3 }),
      fc.option(tie("from"), { freq: 6 }),
      fc.option(tie("expr"), { freq: 2 }),
      fc.option(fc.array(tie("expr"), { minLength: 1, maxLength: 2 }), { freq: 4 }),
      fc.option(tie("expr"), { freq: 6 }),
      fc.option(fc.tuple(tie("expr"), fc.constantFrom("", " asc", " desc", " DESC")), { freq: 3 }),
      mostly(
        fc.constantFrom("", " limit 1", " limit 1 offset 2"),
        fc.constantFrom(" limit 1, 2", ";", " -- note"),
      ),
    )
    .map(([distinct, items, from, where, group, having, order, tail]) =>
      [
        `select ${distinct ? "distinct " : ""}${items.join(", ")}`,
        from === null ? "" : ` from ${from}`,
        where === null ? "" : ` where ${where}`,
        group === null ? "" : ` group by ${group.join(", ")}`,
        having === null ? "" : ` having ${having}`,
        order === null ? "" : ` order by ${order[0]}${order[1]}`,
        tail,
      ].join(""),
    ),
})).select;

describe("readSqlSubset", () => {
  it("answers as node-sql-parser's walk on generated queries, or not at all", () => {
    let fast = 0;
    fc.assert(
      fc.property(select, (sql) => {
        if (agree(sql).fast) fast++;
      }),
      { numRuns: Number(process.env.WARDEN_SQL_FUZZ_RUNS ?? 2000) },
    );
    // The generator stays close enough to the subset for the comparison to mean something.
    if (process.env.WARDEN_SQL_FUZZ_RUNS) console.log("subset", fast);
    expect(fast).toBeGreaterThan(80);
  });

  it("leaves window functions, comments, CASE and unknown functions to node-sql-parser", () => {
    for (const sql of [
      "select dense_rank() over (order by count(*) desc) from lab",
      "select labname from lab -- note",
      "select case when age > 1 then 1 end from patient",
      "select nosuchfn(age) from patient",
      "select labname from lab union select drugname from medication",
      'select "labname" from lab',
    ]) {
      expect(readSqlSubset({ sql, schema: EICU_SCHEMA }), sql).toBeNull();
    }
  });

  it("is what extractSqlAccess uses for the subset", () => {
    const sql =
      "select distinct p.age, l.labresult from patient p join lab l on p.patientunitstayid = l.patientunitstayid where l.labname = 'bun' order by l.labresulttime desc limit 1";
    expect(readSqlSubset({ sql, schema: EICU_SCHEMA })).toEqual(
      extractSqlAccess({ sql, schema: EICU_SCHEMA }),
    );
  });
});

describe.skipIf(!present)(
  `readSqlSubset on EICU-AC${present ? "" : ` (skipped: no data at ${dataDir})`}`,
  () => {
    it("agrees with node-sql-parser on every gold query and every SQL string in the logs", () => {
      const records = JSON.parse(readFileSync(join(dataDir, "eicu_ac.json"), "utf8")) as { query?: string }[];
      const queries = new Set<string>();
      for (const record of records) if (record.query) queries.add(record.query);
      const logDir = join(dataDir, "ehragent_logs");
      for (const file of existsSync(logDir) ? readdirSync(logDir) : []) {
        const text = readFileSync(join(logDir, file), "utf8");
        for (const match of text.matchAll(/(['"])((?:(?!\1)[^\n\\])*\bselect\b(?:(?!\1)[^\n\\])*)\1/gi)) {
          queries.add(match[2]!);
        }
      }
      let fast = 0;
      for (const sql of queries) {
        if (agree(sql).fast) fast++;
        if (agree(sql.toUpperCase()).fast) fast++;
      }
      expect(queries.size).toBeGreaterThan(100);
      // Most of them are in the subset (window functions are not).
      expect(fast).toBeGreaterThan(queries.size);
    });
  },
);
