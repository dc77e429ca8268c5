/**
 * The shared Store: PostgreSQL through pg + Kysely, for several Warden instances on one database. Ids
 * are unique across instances and `seq` comes from an identity column, so every instance sees the same
 * insertion order and retrieval breaks ties the same way. `schema` keeps a deployment's (or a test
 * run's) tables in their own PostgreSQL schema, created on open. addDemonstrationOnce serialises callers of
 * the same policy and content with a transaction-scoped advisory lock, which every connection to the
 * database sees.
 *
 * pg is an optional peer dependency, imported only when Warden opens a pool from a URL (a caller that
 * passes its own pool has pg already); without it the store fails with MISSING_DEPENDENCY naming it. The
 * public types name Kysely's PostgresPool, which a pg Pool satisfies, so they compile without pg's.
 */
import { Kysely, PostgresDialect, type PostgresPool, sql } from "kysely";
import type pg from "pg";
import { z } from "zod";
import { toWardenError, WardenError } from "../core/errors.js";
import { importOptional } from "../core/optional-import.js";
import { parseWith } from "../core/validate.js";
import { createKyselyStore, type StoreTables } from "./kysely-store.js";
import { migratePostgres } from "./migrations.js";
import type { Store } from "./store.js";

export type PostgresStoreOptions = (
  | {
      /** postgres://user:password@host:port/database */
      url: string;
      /** Pool size when Warden opens the pool itself (default 10). */
      maxConnections?: number;
    }
  | {
      /** A pool the caller owns (a pg Pool): Warden uses it and leaves it open on close(). */
      pool: PostgresPool;
    }
) & {
  /** PostgreSQL schema holding Warden's tables (default: the connection's search_path, usually public). */
  schema?: string;
};

/** Loads pg; the default imports it, tests pass one that fails. */
export type PgLoader = () => Promise<{ default: typeof pg }>;

/** Literal import(), so a bundler sees the package name and keeps it external. */
const importPg: PgLoader = () => import("pg");

/** A pool Warden opens itself: it also listens for idle clients' errors. */
type OwnedPool = pg.Pool;

async function openPool(options: { url: string; max: number; loadPg: PgLoader }): Promise<OwnedPool> {
  const { default: pgModule } = await importOptional({
    packageName: "pg",
    feature: "PostgreSQL stores",
    load: options.loadPg,
  });
  return new pgModule.Pool({ connectionString: options.url, max: options.max });
}

const SchemaName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,62}$/,
    "use letters, digits and _ (not starting with a digit), at most 63",
  );

const UrlOptionsSchema = z.object({
  url: z.string().min(1, "must not be empty"),
  maxConnections: z.number().int().min(1).optional(),
  schema: SchemaName.optional(),
});

const PoolOptionsSchema = z.object({
  pool: z.custom<PostgresPool>(
    (v) => typeof v === "object" && v !== null && typeof (v as { connect?: unknown }).connect === "function",
    "must be a pg Pool",
  ),
  schema: SchemaName.optional(),
});

export function createPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  return openPostgresStore({ options, loadPg: importPg });
}

/** createPostgresStore with the way pg is loaded given (tests: a package that is not installed). */
export async function openPostgresStore(o: {
  options: PostgresStoreOptions;
  loadPg: PgLoader;
}): Promise<Store> {
  const raw: unknown = o.options;
  const hasPool = typeof raw === "object" && raw !== null && "pool" in raw;
  const hasUrl = typeof raw === "object" && raw !== null && "url" in raw;
  if (hasPool === hasUrl) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "Invalid PostgreSQL store options: url: give exactly one of `url` and `pool`",
      details: { fields: ["url", "pool"] },
    });
  }
  const parsed = hasUrl
    ? parseWith({ schema: UrlOptionsSchema, value: raw, what: "PostgreSQL store options" })
    : parseWith({ schema: PoolOptionsSchema, value: raw, what: "PostgreSQL store options" });
  const owned =
    "url" in parsed
      ? await openPool({
          url: parsed.url,
          max: parsed.maxConnections ?? 10,
          loadPg: o.loadPg,
        })
      : undefined;
  const given = "pool" in parsed ? (parsed.pool as PostgresPool) : undefined;
  // An idle client losing its connection must not crash the host process.
  const onPoolError = () => undefined;
  owned?.on("error", onPoolError);
  const db = new Kysely<StoreTables>({
    dialect: new PostgresDialect({
      // Kysely ends the pool on destroy(); a caller-owned pool must stay open.
      pool: owned ?? { connect: () => (given as PostgresPool).connect(), end: async () => undefined },
    }),
  });
  try {
    await migratePostgres({ db, ...(parsed.schema ? { schema: parsed.schema } : {}) });
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw error instanceof WardenError
      ? error
      : toWardenError({
          error,
          code: "STORE_ERROR",
          message: "cannot open or migrate the PostgreSQL database",
        });
  }
  const scoped = parsed.schema ? db.withSchema(parsed.schema) : db;
  return createKyselyStore({
    db: scoped,
    backend: "PostgreSQL",
    isUniqueViolation: (error) =>
      typeof error === "object" && error !== null && "code" in error && error.code === "23505",
    // The transaction is opened on the unscoped handle and then scoped, as migratePostgres does, so its
    // queries reach this store's schema; the schema is part of the lock key (other schemas, other rows).
    lockedTransaction: ({ key, run }) =>
      db.transaction().execute(async (trx) => {
        const lockKey = `${parsed.schema ?? "public"}:${key}`;
        await sql`select pg_advisory_xact_lock(hashtext(${lockKey}))`.execute(trx);
        return run(parsed.schema ? trx.withSchema(parsed.schema) : trx);
      }),
    close: async () => {
      await db.destroy();
      owned?.off("error", onPoolError);
    },
  });
}
