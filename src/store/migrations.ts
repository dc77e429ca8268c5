/**
 * The versioned schema of both Store backends, applied on open. One list serves SQLite and PostgreSQL
 * (Kysely's schema builder writes each dialect's DDL); the only dialect difference is how `seq`, the
 * database-assigned insertion number, is declared. Applied versions are recorded in warden_migrations;
 * opening a database written by a newer Warden (an unknown version) is refused rather than guessed at.
 *
 * Version 2 adds `content_hash` (see content-hash.ts) with a non-unique (policy, content_hash) index, and
 * fills it for existing rows: Store.addDemonstrationOnce looks content up there, while plain
 * addDemonstration still accepts duplicate content (hence not unique).
 *
 * Version 3 adds `warden_api_keys`: one row per API key ever created, holding the SHA-256 of its secret
 * (unique), its scopes and policies as JSON text, and revoked_at once revoked (rows are never deleted, so a
 * revoked key stays on record). A partial unique index makes a name unique among active keys only.
 *
 * Version 4 adds the audit log (audit-chain.ts): `warden_audit_entries`, one row per decision, approval
 * or prune checkpoint, keyed by its chain position `seq` (assigned under the audit lock, not by the
 * database, so positions have no gaps), and `warden_audit_head`, one row (id 1) holding the chain's base
 * and head, inserted here so that writers only ever update it.
 * Version 6 (server-side sessions, issue 14; 4 and 5 belong to the audit log and approvals) adds
 * `warden_sessions` (one row per guarded run opened over HTTP: owner, policy, input, context as JSON text,
 * step count, finished_at) and `warden_session_steps` (one row per decided step, primary key (session_id,
 * idx), so two writers can never both append the same index), and `rate_per_second` on warden_api_keys
 * (a key's rate limit; null = the server's default).
 *
 * Migrations run under a lock — BEGIN IMMEDIATE on SQLite, a transaction-scoped advisory lock on
 * PostgreSQL — so processes opening the same database at once apply each version exactly once.
 */
import { type Kysely, sql } from "kysely";
import { WardenError } from "../core/errors.js";
import { AUDIT_GENESIS_HASH } from "./audit-chain.js";
import { demonstrationContentHash } from "./content-hash.js";

export type StoreDialect = "sqlite" | "postgres";

export interface Migration {
  version: number;
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: DDL runs before the typed tables exist.
  up(options: { db: Kysely<any>; dialect: StoreDialect }): Promise<void>;
}

/** Rows hashed per read in the content_hash backfill, so a large table is never held in memory at once. */
const BACKFILL_BATCH = 500;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "demonstrations and workflows",
    async up({ db, dialect }) {
      await db.schema
        .createTable("warden_demonstrations")
        .ifNotExists()
        .addColumn("seq", dialect === "sqlite" ? "integer" : "bigint", (c) =>
          dialect === "sqlite" ? c.primaryKey().autoIncrement() : c.primaryKey().generatedAlwaysAsIdentity(),
        )
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("policy", "text", (c) => c.notNull())
        .addColumn("input", "text", (c) => c.notNull())
        .addColumn("output", "text", (c) => c.notNull())
        .addColumn("plan", "text", (c) => c.notNull())
        .addColumn("code", "text", (c) => c.notNull())
        .addColumn("label", "integer")
        .addColumn("origin", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        // JSON text, not jsonb: jsonb reorders keys, and meta must read back exactly as written.
        .addColumn("meta", "text")
        .execute();
      await db.schema
        .createIndex("warden_demonstrations_policy_seq")
        .ifNotExists()
        .on("warden_demonstrations")
        .columns(["policy", "seq"])
        .execute();
      await db.schema
        .createTable("warden_workflows")
        .ifNotExists()
        .addColumn("seq", dialect === "sqlite" ? "integer" : "bigint", (c) =>
          dialect === "sqlite" ? c.primaryKey().autoIncrement() : c.primaryKey().generatedAlwaysAsIdentity(),
        )
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("policy", "text", (c) => c.notNull())
        .addColumn("action", "text", (c) => c.notNull())
        .addColumn("query", "text", (c) => c.notNull())
        .addColumn("plan", "text", (c) => c.notNull())
        .addColumn("verdict", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("warden_workflows_policy_action_seq")
        .ifNotExists()
        .on("warden_workflows")
        .columns(["policy", "action", "seq"])
        .execute();
    },
  },
  {
    version: 2,
    name: "demonstration content hash",
    async up({ db }) {
      await db.schema.alterTable("warden_demonstrations").addColumn("content_hash", "text").execute();
      await db.schema
        .createIndex("warden_demonstrations_policy_content_hash")
        .ifNotExists()
        .on("warden_demonstrations")
        .columns(["policy", "content_hash"])
        .execute();
      // SHA-256 is computed here rather than in SQL: SQLite has no built-in hash, and one implementation
      // guarantees the backfilled values equal what the store writes for new rows. Batches walk seq upwards.
      let after: number | string | bigint | undefined;
      for (;;) {
        let query = db
          .selectFrom("warden_demonstrations")
          .select(["seq", "input", "output", "plan", "code"])
          .where("content_hash", "is", null);
        if (after !== undefined) query = query.where("seq", ">", after);
        const rows = (await query.orderBy("seq").limit(BACKFILL_BATCH).execute()) as {
          seq: number | string | bigint;
          input: string;
          output: string;
          plan: string;
          code: string;
        }[];
        for (const row of rows) {
          await db
            .updateTable("warden_demonstrations")
            .set({ content_hash: demonstrationContentHash({ demonstration: row }) })
            .where("seq", "=", row.seq)
            .execute();
        }
        if (rows.length < BACKFILL_BATCH) break;
        after = rows[rows.length - 1]?.seq;
      }
    },
  },
  {
    version: 3,
    name: "api keys",
    async up({ db, dialect }) {
      await db.schema
        .createTable("warden_api_keys")
        .ifNotExists()
        .addColumn("seq", dialect === "sqlite" ? "integer" : "bigint", (c) =>
          dialect === "sqlite" ? c.primaryKey().autoIncrement() : c.primaryKey().generatedAlwaysAsIdentity(),
        )
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("hash", "text", (c) => c.notNull().unique())
        // JSON arrays as text, like meta: read back exactly as written on both backends.
        .addColumn("scopes", "text", (c) => c.notNull())
        .addColumn("policies", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("revoked_at", "text")
        .addColumn("last_used_at", "text")
        .execute();
      // Both dialects support partial indexes: a revoked key's name may be given to a new key.
      await db.schema
        .createIndex("warden_api_keys_active_name")
        .ifNotExists()
        .unique()
        .on("warden_api_keys")
        .column("name")
        .where(sql.ref("revoked_at"), "is", null)
        .execute();
    },
  },
  {
    version: 4,
    name: "audit log",
    async up({ db, dialect }) {
      const whole = dialect === "sqlite" ? "integer" : "bigint";
      await db.schema
        .createTable("warden_audit_entries")
        .ifNotExists()
        .addColumn("seq", whole, (c) => c.primaryKey())
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("at", "text", (c) => c.notNull())
        .addColumn("policy", "text", (c) => c.notNull())
        .addColumn("policy_version", "text", (c) => c.notNull())
        .addColumn("engine", "text", (c) => c.notNull())
        .addColumn("verdict", "text", (c) => c.notNull())
        .addColumn("allowed", "integer", (c) => c.notNull())
        // JSON text (rules array, subject): read back byte for byte on both backends.
        .addColumn("rules", "text", (c) => c.notNull())
        .addColumn("explanation", "text", (c) => c.notNull())
        .addColumn("caller", "text", (c) => c.notNull())
        .addColumn("latency_ms", "double precision", (c) => c.notNull())
        .addColumn("subject_digest", "text", (c) => c.notNull())
        .addColumn("subject", "text")
        .addColumn("approval_id", "text")
        .addColumn("face", "text", (c) => c.notNull())
        .addColumn("prev_hash", "text", (c) => c.notNull())
        .addColumn("hash", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("warden_audit_head")
        .ifNotExists()
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("base_seq", whole, (c) => c.notNull())
        .addColumn("base_hash", "text", (c) => c.notNull())
        .addColumn("head_seq", whole, (c) => c.notNull())
        .addColumn("head_hash", "text", (c) => c.notNull())
        .execute();
      await db
        .insertInto("warden_audit_head")
        .values({
          id: 1,
          base_seq: 0,
          base_hash: AUDIT_GENESIS_HASH,
          head_seq: 0,
          head_hash: AUDIT_GENESIS_HASH,
        })
        .execute();
    },
  },
  // Version 4 is the audit log (h1). Approvals (issue 14): an ask waiting for a human.
  {
    version: 5,
    name: "approvals",
    async up({ db, dialect }) {
      await db.schema
        .createTable("warden_approvals")
        .ifNotExists()
        .addColumn("seq", dialect === "sqlite" ? "integer" : "bigint", (c) =>
          dialect === "sqlite" ? c.primaryKey().autoIncrement() : c.primaryKey().generatedAlwaysAsIdentity(),
        )
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("policy", "text", (c) => c.notNull())
        .addColumn("policy_version", "text")
        .addColumn("subject_digest", "text", (c) => c.notNull())
        // JSON as text, like meta: read back exactly as written on both backends.
        .addColumn("subject", "text", (c) => c.notNull())
        .addColumn("rules", "text", (c) => c.notNull())
        .addColumn("explanation", "text", (c) => c.notNull())
        .addColumn("caller", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        // ISO times (same length, so text order is time order).
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .addColumn("decided_at", "text")
        .addColumn("decided_by", "text")
        .addColumn("used_at", "text")
        .execute();
      await db.schema
        .createIndex("warden_approvals_question")
        .ifNotExists()
        .on("warden_approvals")
        .columns(["subject_digest", "policy", "status"])
        .execute();
      await db.schema
        .createIndex("warden_approvals_status")
        .ifNotExists()
        .on("warden_approvals")
        .columns(["status", "seq"])
        .execute();
    },
  },
  {
    version: 6,
    name: "guard sessions and key rate limits",
    async up({ db, dialect }) {
      await db.schema
        .createTable("warden_sessions")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("owner", "text", (c) => c.notNull())
        .addColumn("policy", "text", (c) => c.notNull())
        .addColumn("input", "text", (c) => c.notNull())
        .addColumn("context", "text")
        .addColumn("step_count", "integer", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("finished_at", "text")
        .execute();
      await db.schema
        .createTable("warden_session_steps")
        .ifNotExists()
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("idx", "integer", (c) => c.notNull())
        .addColumn("step", "text", (c) => c.notNull())
        .addColumn("verdict", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("warden_session_steps_pk", ["session_id", "idx"])
        .execute();
      await db.schema
        .alterTable("warden_api_keys")
        .addColumn("rate_per_second", dialect === "sqlite" ? "real" : "double precision")
        .execute();
    },
  },
];

export const LATEST_SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/**
 * Applies every migration not yet recorded, in version order, inside `db` (which the caller has already
 * put in a locked transaction). Returns the versions applied now.
 */
export async function applyMigrations(options: {
  // biome-ignore lint/suspicious/noExplicitAny: see Migration.up.
  db: Kysely<any>;
  dialect: StoreDialect;
  migrations?: readonly Migration[];
}): Promise<number[]> {
  const { db, dialect } = options;
  const migrations = [...(options.migrations ?? MIGRATIONS)].sort((a, b) => a.version - b.version);
  await db.schema
    .createTable("warden_migrations")
    .ifNotExists()
    .addColumn("version", "integer", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("applied_at", "text", (c) => c.notNull())
    .execute();
  const rows = (await db.selectFrom("warden_migrations").select("version").execute()) as {
    version: number;
  }[];
  const applied = new Set(rows.map((r) => Number(r.version)));
  const known = new Set(migrations.map((m) => m.version));
  const unknown = [...applied].filter((v) => !known.has(v));
  if (unknown.length > 0) {
    throw new WardenError({
      code: "STORE_ERROR",
      message: `The database has schema version(s) ${unknown.join(", ")}, newer than this Warden knows (up to ${Math.max(...known)}); upgrade Warden to open it.`,
      details: { unknownVersions: unknown },
    });
  }
  const now: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    await migration.up({ db, dialect });
    await db
      .insertInto("warden_migrations")
      .values({ version: migration.version, name: migration.name, applied_at: new Date().toISOString() })
      .execute();
    now.push(migration.version);
  }
  return now;
}

/** Runs applyMigrations on SQLite under BEGIN IMMEDIATE (one writer at a time across processes). */
export async function migrateSqlite(options: {
  // biome-ignore lint/suspicious/noExplicitAny: see Migration.up.
  db: Kysely<any>;
  migrations?: readonly Migration[];
}): Promise<number[]> {
  return options.db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const applied = await applyMigrations({
        db: conn,
        dialect: "sqlite",
        ...(options.migrations ? { migrations: options.migrations } : {}),
      });
      await sql`commit`.execute(conn);
      return applied;
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw error;
    }
  });
}

/**
 * Runs applyMigrations on PostgreSQL in one transaction holding an advisory lock keyed by the schema, so
 * concurrent instances wait for each other; DDL is transactional there, so a failure leaves no trace.
 */
export async function migratePostgres(options: {
  // biome-ignore lint/suspicious/noExplicitAny: see Migration.up.
  db: Kysely<any>;
  schema?: string;
  migrations?: readonly Migration[];
}): Promise<number[]> {
  const lockKey = `warden.migrations:${options.schema ?? "public"}`;
  return options.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${lockKey}))`.execute(trx);
    if (options.schema) await trx.schema.createSchema(options.schema).ifNotExists().execute();
    const scoped = options.schema ? trx.withSchema(options.schema) : trx;
    return applyMigrations({
      db: scoped,
      dialect: "postgres",
      ...(options.migrations ? { migrations: options.migrations } : {}),
    });
  });
}
