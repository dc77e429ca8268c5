import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import { createPostgresStore } from "./postgres-store.js";
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
      const versions = await client.query(`select version from "${shared}".warden_migrations`);
      expect(versions.rows).toEqual([{ version: 1 }]);
      await client.query(`drop schema "${shared}" cascade`);
      await client.end();
    } finally {
      await Promise.all(stores.map((s) => s.close()));
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
