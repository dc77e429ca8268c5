import { randomBytes } from "node:crypto";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import { demonstrationContentHash } from "./content-hash.js";
import { MIGRATIONS, migratePostgres } from "./migrations.js";
import { createPostgresStore, openPostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
import { describeStoreConformance } from "./store-conformance.js";

// Runs against a real server when WARDEN_TEST_PG_URL is set, e.g.
//   export WARDEN_TEST_PG_URL=$(bash scripts/start-test-postgres.sh)
const url = process.env.WARDEN_TEST_PG_URL;
if (!url) {
  console.warn(
    "[postgres-store.test] skipped: WARDEN_TEST_PG_URL is not set (start one with `bash scripts/start-test-postgres.sh`)",
  );
}

// Every run works in its own schema, dropped at the end, so runs never collide.
const schema = `warden_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;

describe.skipIf(!url)("PostgreSQL store", () => {
  afterAll(async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  });

  describeStoreConformance({
    name: "PostgreSQL",
    create: () => createPostgresStore({ url: url as string, schema }),
    execute: async ({ sql }) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`set search_path to "${schema}"`);
        await client.query(sql);
      } finally {
        await client.end();
      }
    },
  });

  it("lets concurrent instances open and migrate one schema at once, with unique ids and ordered seq", async () => {
    const shared = `${schema}_race`;
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => createPostgresStore({ url: url as string, schema: shared })),
    );
    try {
      const added = await Promise.all(
        stores.flatMap((store, i) =>
          Array.from({ length: 10 }, (_, j) =>
            store.addDemonstration({
              demonstration: {
                policy: "race",
                input: `${i}-${j}`,
                output: "o",
                plan: "p",
                code: "c",
                origin: "user",
              },
            }),
          ),
        ),
      );
      expect(new Set(added.map((d) => d.id)).size).toBe(40);
      expect(new Set(added.map((d) => d.seq)).size).toBe(40);
      const listed = await stores[0]?.listDemonstrations({ policy: "race" });
      expect(listed?.map((d) => d.seq)).toEqual([...added.map((d) => d.seq)].sort((a, b) => a - b));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const versions = await client.query(
        `select version from "${shared}".warden_migrations order by version`,
      );
      expect(versions.rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
      await client.query(`drop schema "${shared}" cascade`);
      await client.end();
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("backfills content hashes when a version-1 schema is opened, so addDemonstrationOnce finds old rows", async () => {
    const v1 = `${schema}_v1`;
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const old = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: { connect: () => pool.connect(), end: async () => undefined } }),
    });
    await migratePostgres({
      db: old,
      schema: v1,
      migrations: [MIGRATIONS[0] as (typeof MIGRATIONS)[number]],
    });
    await old.destroy();
    // More rows than one backfill batch, with duplicate content (as version 1 allowed).
    await pool.query(
      `insert into "${v1}".warden_demonstrations (id, policy, input, output, plan, code, origin, created_at)
       select 'old-' || i, 'p', 'input ' || (i % 700), 'out', 'plan', 'code', 'seed', '2024-01-01T00:00:00.000Z'
       from generate_series(0, 1100) as i`,
    );
    try {
      const store = await createPostgresStore({ pool, schema: v1 });
      const { rows } = await pool.query(
        `select input, output, plan, code, content_hash from "${v1}".warden_demonstrations`,
      );
      expect(rows).toHaveLength(1101);
      for (const row of rows) expect(row.content_hash).toBe(demonstrationContentHash({ demonstration: row }));
      const found = await store.addDemonstrationOnce({
        demonstration: {
          policy: "p",
          input: "input 5",
          output: "out",
          plan: "plan",
          code: "code",
          origin: "user",
        },
      });
      expect(found).toMatchObject({ added: false, demonstration: { id: "old-5" } });
      const versions = await pool.query(`select version from "${v1}".warden_migrations order by version`);
      expect(versions.rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version })));
      await store.close();
    } finally {
      await pool.query(`drop schema if exists "${v1}" cascade`);
      await pool.end();
    }
  });

  it("uses a caller-owned pool without ending it", async () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const store = await createPostgresStore({ pool, schema });
    expect(await store.countDemonstrations({ policy: "nobody" })).toBe(0);
    await store.close();
    const { rows } = await pool.query("select 1 as one");
    expect(rows).toEqual([{ one: 1 }]);
    await pool.end();
  });
});

describe("PostgreSQL store options", () => {
  it("rejects options without url or pool, and bad schema names, naming the field", async () => {
    const missing = await createPostgresStore({} as { url: string }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(
      isWardenError(missing) && missing.code === "INVALID_INPUT" && missing.message.includes("url"),
    ).toBe(true);
    const badSchema = await createPostgresStore({ url: "postgres://127.0.0.1:1/x", schema: "x; drop" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(
      isWardenError(badSchema) && badSchema.code === "INVALID_INPUT" && badSchema.message.includes("schema"),
    ).toBe(true);
  });
});

describe("PostgreSQL store without pg installed", () => {
  it("fails with MISSING_DEPENDENCY naming pg and its install command", async () => {
    const error = await openPostgresStore({
      options: { url: "postgres://127.0.0.1:9/none" },
      loadPg: () =>
        Promise.reject(
          Object.assign(new Error("Cannot find package 'pg' imported from /app/dist/index.js"), {
            code: "ERR_MODULE_NOT_FOUND",
          }),
        ),
    }).catch((e: unknown) => e);
    expect(isWardenError(error)).toBe(true);
    expect(error).toMatchObject({
      code: "MISSING_DEPENDENCY",
      details: { package: "pg", install: "npm install pg" },
    });
    expect((error as Error).message).toContain("PostgreSQL stores need the optional package pg");
  });

  it("takes a pg Pool as the caller's pool (its public type is Kysely's PostgresPool, not pg's)", async () => {
    const pool = new pg.Pool({ connectionString: "postgres://127.0.0.1:9/none", max: 1 });
    const options: PostgresStoreOptions = { pool };
    expect(options.pool).toBe(pool);
    await pool.end();
  });
});
