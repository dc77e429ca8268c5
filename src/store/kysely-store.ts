/**
 * The Store implementation both backends share: every query is written once with Kysely, over the tables
 * that migrations.ts creates. The backend modules only open the connection, migrate, and say how to close,
 * how their driver reports a duplicate key, and how to hold a write lock across processes (the one part of
 * addDemonstrationOnce that SQL cannot say portably).
 */
import { randomUUID } from "node:crypto";
import type { Generated, Kysely } from "kysely";
import type { CallerScope } from "../core/caller.js";
import { toWardenError, WardenError } from "../core/errors.js";
import { type ApprovalRow, type ApprovalTables, approvalQueries } from "./approval-queries.js";
import type { AuditEntryRow, AuditHeadRow } from "./audit-queries.js";
import * as audit from "./audit-queries.js";
import { demonstrationContentHash } from "./content-hash.js";
import { createGroupCommit } from "./group-commit.js";
import {
  appendStepLocked,
  insertSession,
  markSessionFinished,
  parseSessionAppend,
  type SessionRow,
  type SessionStepRow,
  type SessionTables,
  selectSession,
  selectSessionSteps,
} from "./session-queries.js";
import type {
  ApiKey,
  AuditEntry,
  ChangeArea,
  Demonstration,
  NewDemonstration,
  Store,
  Workflow,
} from "./store.js";
import {
  ApiKeyHashSchema,
  ApiKeyNameSchema,
  parseApiKeyArgument,
  parseName,
  parseNewApiKey,
  parseNewDemonstration,
  parseNewWorkflow,
} from "./store-input.js";

export interface DemonstrationRow {
  seq: Generated<number | string | bigint>;
  id: string;
  policy: string;
  input: string;
  output: string;
  plan: string;
  code: string;
  label: number | null;
  origin: string;
  created_at: string;
  meta: string | null;
  /** demonstrationContentHash of input, output, plan and code (migration 2); indexed with policy. */
  content_hash: string | null;
}

export interface WorkflowRow {
  seq: Generated<number | string | bigint>;
  id: string;
  policy: string;
  action: string;
  query: string;
  plan: string;
  verdict: string;
  created_at: string;
}

export interface ApiKeyRow {
  seq: Generated<number | string | bigint>;
  id: string;
  name: string;
  /** SHA-256 (hex) of the secret; unique. */
  hash: string;
  /** JSON array of scopes. */
  scopes: string;
  /** JSON array of policy names; null = every policy. */
  policies: string | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  /** Requests per second (migration 6); null = the server's default. */
  rate_per_second: number | null;
}

export interface StoreTables {
  warden_demonstrations: DemonstrationRow;
  warden_workflows: WorkflowRow;
  warden_api_keys: ApiKeyRow;
  // Server-side guard sessions (migration 6, session-queries.ts).
  warden_sessions: SessionRow;
  warden_session_steps: SessionStepRow;
  // audit log (h1): audit-queries.ts
  warden_audit_entries: AuditEntryRow;
  warden_audit_head: AuditHeadRow;
  // Approvals (issue 14, h2): ./approval-queries.ts.
  warden_approvals: ApprovalRow;
}

export function createKyselyStore(options: {
  db: Kysely<StoreTables>;
  /** Backend name for error messages ("SQLite", "PostgreSQL"). */
  backend: string;
  /** Whether a driver error is a unique-key violation (a duplicate id). */
  isUniqueViolation: (error: unknown) => boolean;
  /**
   * Runs `run` in one transaction holding a write lock that serialises every caller with the same `key` on
   * this database, across store instances and processes; commits when `run` resolves, rolls back and
   * rethrows when it throws. `run` must issue its queries through the handle it is given.
   */
  lockedTransaction: <T>(options: {
    key: string;
    run: (db: Kysely<StoreTables>) => Promise<T>;
  }) => Promise<T>;
  /** Releases the connection(s); called once. */
  close: () => Promise<void>;
  /**
   * A mark that moves whenever another connection or process commits (not for this store's own writes),
   * when the backend has a cheap one: with this store's own count of changes per area it makes
   * Store.changeMark.
   */
  otherWritersMark?: () => string;
}): Store {
  const { db, backend } = options;
  // The session queries see only their own tables (StoreTables holds them).
  const sessions = db as unknown as Kysely<SessionTables>;
  let closed = false;
  let closing: Promise<void> | undefined;

  const guard = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    if (closed) {
      throw new WardenError({ code: "STORE_ERROR", message: `The ${backend} store is closed (${what}).` });
    }
    try {
      return await run();
    } catch (error) {
      throw toWardenError({ error, code: "STORE_ERROR", message: `${backend} store: ${what} failed` });
    }
  };

  // The audit queries see their own tables only (audit-queries.ts AuditTables): the same handle, narrowed.
  const auditLocked = <T>(o: { key: string; run: (db: Kysely<audit.AuditTables>) => Promise<T> }) =>
    options.lockedTransaction({ key: o.key, run: (trx) => o.run(asAudit(trx)) });
  // Sound: StoreTables holds the audit tables; Kysely's types are invariant in their tables.
  const auditDb = asAudit(db);
  const auditStatements = audit.auditStatements({ db: auditDb });
  const auditCommit = createGroupCommit<audit.ParsedAuditEntry, AuditEntry>({
    write: (entries) =>
      audit.appendAuditEntries({ lockedTransaction: auditLocked, statements: auditStatements, entries }),
  });

  const duplicate = (kind: "demonstration" | "workflow", id: string) =>
    new WardenError({
      code: "INVALID_INPUT",
      message: `Invalid ${kind}: ${kind}.id: "${id}" already exists`,
      details: { fields: [`${kind}.id`] },
    });

  const store: Store = {
    // Approvals (issue 14, h2).
    // Sound: StoreTables holds the approvals table; Kysely's types are invariant in their tables.
    ...approvalQueries({ db: db as unknown as Kysely<ApprovalTables>, guard }),

    async addDemonstration({ demonstration }) {
      const d = parseNewDemonstration({ demonstration });
      const id = d.id ?? randomUUID();
      const createdAt = new Date().toISOString();
      const seq = await guard("adding a demonstration", async () => {
        try {
          return await insertDemonstration({ db, demonstration: d, id, createdAt });
        } catch (error) {
          if (options.isUniqueViolation(error)) throw duplicate("demonstration", id);
          throw error;
        }
      });
      return toDemonstration({ ...d, id, createdAt, seq });
    },

    async addDemonstrationOnce({ demonstration }) {
      const d = parseNewDemonstration({ demonstration });
      const id = d.id ?? randomUUID();
      const hash = demonstrationContentHash({ demonstration: d });
      return guard("adding a demonstration once", async () => {
        try {
          // The hash has a fixed length, so putting it first keeps the key unambiguous for any policy.
          return await options.lockedTransaction({
            key: `warden.demonstration:${hash}:${d.policy}`,
            run: async (trx) => {
              const existing = await trx
                .selectFrom("warden_demonstrations")
                .selectAll()
                .where("policy", "=", d.policy)
                .where("content_hash", "=", hash)
                .orderBy("seq")
                .limit(1)
                .executeTakeFirst();
              if (existing) return { demonstration: fromDemonstrationRow(existing), added: false };
              const createdAt = new Date().toISOString();
              const seq = await insertDemonstration({ db: trx, demonstration: d, id, createdAt, hash });
              return { demonstration: toDemonstration({ ...d, id, createdAt, seq }), added: true };
            },
          });
        } catch (error) {
          if (options.isUniqueViolation(error)) throw duplicate("demonstration", id);
          throw error;
        }
      });
    },

    async listDemonstrations({ policy }) {
      const name = parseName({ value: policy, field: "policy" }) as string;
      const rows = await guard("listing demonstrations", () =>
        db
          .selectFrom("warden_demonstrations")
          .selectAll()
          .where("policy", "=", name)
          .orderBy("seq")
          .execute(),
      );
      return rows.map(fromDemonstrationRow);
    },

    async countDemonstrations({ policy } = {}) {
      const name = parseName({ value: policy, field: "policy", optional: true });
      const row = await guard("counting demonstrations", () => {
        let query = db.selectFrom("warden_demonstrations").select((eb) => eb.fn.countAll().as("count"));
        if (name !== undefined) query = query.where("policy", "=", name);
        return query.executeTakeFirstOrThrow();
      });
      return Number(row.count);
    },

    async deleteDemonstration({ id }) {
      const key = parseName({ value: id, field: "id" }) as string;
      const result = await guard("deleting a demonstration", () =>
        db.deleteFrom("warden_demonstrations").where("id", "=", key).executeTakeFirst(),
      );
      return Number(result.numDeletedRows) > 0;
    },

    async addWorkflow({ workflow }) {
      const w = parseNewWorkflow({ workflow });
      const id = w.id ?? randomUUID();
      const createdAt = new Date().toISOString();
      const plan = JSON.stringify(w.plan);
      const row = await guard("adding a workflow", async () => {
        try {
          return await db
            .insertInto("warden_workflows")
            .values({
              id,
              policy: w.policy,
              action: w.action,
              query: w.query,
              plan,
              verdict: w.verdict,
              created_at: createdAt,
            })
            .returning("seq")
            .executeTakeFirstOrThrow();
        } catch (error) {
          if (options.isUniqueViolation(error)) throw duplicate("workflow", id);
          throw error;
        }
      });
      // Read the plan back through JSON so the returned value equals what a later list returns.
      return {
        id,
        policy: w.policy,
        action: w.action,
        query: w.query,
        plan: JSON.parse(plan) as unknown,
        verdict: w.verdict,
        createdAt,
        seq: Number(row.seq),
      };
    },

    async listWorkflows({ policy, action }) {
      const name = parseName({ value: policy, field: "policy" }) as string;
      const act = parseName({ value: action, field: "action", optional: true });
      const rows = await guard("listing workflows", () => {
        let query = db.selectFrom("warden_workflows").selectAll().where("policy", "=", name);
        if (act !== undefined) query = query.where("action", "=", act);
        return query.orderBy("seq").execute();
      });
      return rows.map(
        (r): Workflow => ({
          id: r.id,
          policy: r.policy,
          action: r.action,
          query: r.query,
          plan: JSON.parse(r.plan) as unknown,
          verdict: r.verdict as Workflow["verdict"],
          createdAt: r.created_at,
          seq: Number(r.seq),
        }),
      );
    },

    async createApiKey({ key }) {
      const k = parseNewApiKey({ key });
      const id = randomUUID();
      const createdAt = new Date().toISOString();
      await guard("creating an API key", async () => {
        try {
          await db
            .insertInto("warden_api_keys")
            .values({
              id,
              name: k.name,
              hash: k.hash,
              scopes: JSON.stringify(k.scopes),
              policies: k.policies === undefined ? null : JSON.stringify(k.policies),
              created_at: createdAt,
              revoked_at: null,
              last_used_at: null,
              rate_per_second: k.ratePerSecond ?? null,
            })
            .execute();
        } catch (error) {
          if (options.isUniqueViolation(error)) throw await duplicateKey({ db, name: k.name });
          throw error;
        }
      });
      return toApiKey({
        id,
        name: k.name,
        scopes: JSON.stringify(k.scopes),
        policies: k.policies === undefined ? null : JSON.stringify(k.policies),
        created_at: createdAt,
        revoked_at: null,
        last_used_at: null,
        rate_per_second: k.ratePerSecond ?? null,
      });
    },

    async listApiKeys({ activeOnly } = {}) {
      const rows = await guard("listing API keys", () => {
        let query = db.selectFrom("warden_api_keys").select(API_KEY_COLUMNS);
        if (activeOnly) query = query.where("revoked_at", "is", null);
        return query.orderBy("seq").execute();
      });
      return rows.map(toApiKey);
    },

    async revokeApiKey({ name }) {
      const n = parseApiKeyArgument({ schema: ApiKeyNameSchema, value: name, field: "name" });
      const revokedAt = new Date().toISOString();
      // One statement: two revokers of the same key cannot both succeed.
      const row = await guard("revoking an API key", () =>
        db
          .updateTable("warden_api_keys")
          .set({ revoked_at: revokedAt })
          .where("name", "=", n)
          .where("revoked_at", "is", null)
          .returning(API_KEY_COLUMNS)
          .executeTakeFirst(),
      );
      return row ? toApiKey(row) : undefined;
    },

    async findApiKeyByHash({ hash }) {
      const h = parseApiKeyArgument({ schema: ApiKeyHashSchema, value: hash, field: "hash" });
      const row = await guard("looking up an API key", () =>
        db
          .selectFrom("warden_api_keys")
          .select([...API_KEY_COLUMNS, "hash"])
          .where("hash", "=", h)
          .where("revoked_at", "is", null)
          .executeTakeFirst(),
      );
      return row ? { ...toApiKey(row), hash: row.hash } : undefined;
    },

    async markApiKeyUsed({ id }) {
      const key = parseName({ value: id, field: "id" }) as string;
      const at = new Date().toISOString();
      await guard("recording an API key's use", () =>
        db.updateTable("warden_api_keys").set({ last_used_at: at }).where("id", "=", key).execute(),
      );
    },

    // ---- Server-side guard sessions (issue 14 item 4): queries in session-queries.ts ----
    createSession: ({ session }) =>
      guard("opening a session", () => insertSession({ db: sessions, session })),
    getSession: ({ id }) => guard("reading a session", () => selectSession({ db: sessions, id })),
    listSessionSteps: ({ id }) =>
      guard("reading a session's steps", () => selectSessionSteps({ db: sessions, id })),
    async appendSessionStep(append) {
      const parsed = parseSessionAppend(append);
      return guard("appending a session step", () =>
        options.lockedTransaction({
          key: `warden.session:${parsed.id}`,
          run: (trx) => appendStepLocked({ db: trx as unknown as Kysely<SessionTables>, append: parsed }),
        }),
      );
    },
    finishSession: ({ id }) => guard("finishing a session", () => markSessionFinished({ db: sessions, id })),
    // ---- audit log (h1): queries in audit-queries.ts ----
    // Validated on arrival (a bad entry is refused alone), then group-committed with whatever else arrived
    // while the last write was in flight: one transaction per batch, each caller answered after it commits.
    appendAuditEntry: ({ entry }) =>
      guard("appending an audit entry", async () => auditCommit.append(audit.parseAuditEntry({ entry }))),
    listAuditEntries: ({ limit, before } = {}) =>
      guard("listing audit entries", () => audit.listAuditEntries({ db: auditDb, limit, before })),
    getAuditEntry: ({ id }) =>
      guard("reading an audit entry", () => audit.getAuditEntry({ db: auditDb, id })),
    readAuditChain: ({ after, limit }) =>
      guard("reading the audit chain", () =>
        audit.readAuditChain({ db: auditDb, limit, ...(after !== undefined ? { after } : {}) }),
      ),
    auditHead: () => guard("reading the audit head", () => audit.readHead({ db: auditDb })),
    pruneAuditEntries: ({ olderThan, keep }) =>
      guard("pruning the audit log", () =>
        audit.pruneAuditEntries({
          lockedTransaction: auditLocked,
          statements: auditStatements,
          olderThan,
          keep,
        }),
      ),

    async close() {
      if (!closing) {
        closed = true;
        closing = options.close();
      }
      return closing;
    },
  };
  return options.otherWritersMark
    ? withChangeMarks({ store, otherWritersMark: options.otherWritersMark, closed: () => closed })
    : store;
}

function asAudit(db: Kysely<StoreTables>): Kysely<audit.AuditTables> {
  return db as unknown as Kysely<audit.AuditTables>;
}

/**
 * The store with Store.changeMark: what other connections committed (the backend's mark) with this
 * store's own count of changes per area, bumped when each change finishes (a reader that read the mark
 * before it sees a new one after). Counted: keys created or revoked, approvals decided or used; not
 * lastUsedAt, a new pending approval or anything else this store writes (the audit log's rows above all,
 * one per decision, which would otherwise empty every reader's memory on every request).
 */
function withChangeMarks(options: {
  store: Store;
  otherWritersMark: () => string;
  closed: () => boolean;
}): Store {
  const { store, otherWritersMark } = options;
  const own: Record<ChangeArea, number> = { keys: 0, approvals: 0 };
  // Counted when it finishes having changed something, or failed (which may have): a use that found
  // nothing changed nothing, and counting it would empty withApprovals' index on every new ask.
  const counted =
    <A, R>(o: { area: ChangeArea; run: (a: A) => Promise<R>; changed: (r: R) => boolean }) =>
    async (a: A): Promise<R> => {
      let result: R;
      try {
        result = await o.run(a);
      } catch (error) {
        own[o.area]++;
        throw error;
      }
      if (o.changed(result)) own[o.area]++;
      return result;
    };
  let afterClose = 0;
  return {
    ...store,
    createApiKey: counted({ area: "keys", run: (a) => store.createApiKey(a), changed: () => true }),
    revokeApiKey: counted({
      area: "keys",
      run: (a) => store.revokeApiKey(a),
      changed: (r) => r !== undefined,
    }),
    decideApproval: counted({
      area: "approvals",
      run: (a) => store.decideApproval(a),
      changed: (r) => r?.decided === true,
    }),
    useApproval: counted({
      area: "approvals",
      run: (a) => store.useApproval(a),
      changed: (r) => r !== undefined,
    }),
    // A closed store's mark never repeats, so a reader asks the store and hears that it is closed.
    changeMark: ({ area }) =>
      options.closed() ? `closed:${++afterClose}` : `${otherWritersMark()}:${own[area]}`,
  };
}

/** Inserts one validated demonstration (its content hash included) and returns the seq it was given. */
async function insertDemonstration(options: {
  db: Kysely<StoreTables>;
  demonstration: NewDemonstration;
  id: string;
  createdAt: string;
  hash?: string;
}): Promise<number> {
  const { db, demonstration: d } = options;
  const row = await db
    .insertInto("warden_demonstrations")
    .values({
      id: options.id,
      policy: d.policy,
      input: d.input,
      output: d.output,
      plan: d.plan,
      code: d.code,
      label: d.label ?? null,
      origin: d.origin,
      created_at: options.createdAt,
      meta: d.meta === undefined ? null : JSON.stringify(d.meta),
      content_hash: options.hash ?? demonstrationContentHash({ demonstration: d }),
    })
    .returning("seq")
    .executeTakeFirstOrThrow();
  return Number(row.seq);
}

function toDemonstration(
  d: NewDemonstration & { id: string; createdAt: string; seq: number },
): Demonstration {
  const out: Demonstration = {
    id: d.id,
    policy: d.policy,
    input: d.input,
    output: d.output,
    plan: d.plan,
    code: d.code,
    origin: d.origin,
    createdAt: d.createdAt,
    seq: d.seq,
  };
  if (d.label !== undefined) out.label = d.label;
  // Through JSON, as a later list would return it.
  if (d.meta !== undefined) out.meta = JSON.parse(JSON.stringify(d.meta)) as Record<string, unknown>;
  return out;
}

function fromDemonstrationRow(r: {
  seq: number | string | bigint;
  id: string;
  policy: string;
  input: string;
  output: string;
  plan: string;
  code: string;
  label: number | null;
  origin: string;
  created_at: string;
  meta: string | null;
}): Demonstration {
  const out: Demonstration = {
    id: r.id,
    policy: r.policy,
    input: r.input,
    output: r.output,
    plan: r.plan,
    code: r.code,
    origin: r.origin as Demonstration["origin"],
    createdAt: r.created_at,
    seq: Number(r.seq),
  };
  if (r.label !== null && r.label !== undefined) out.label = Number(r.label) === 1 ? 1 : 0;
  if (r.meta !== null && r.meta !== undefined) out.meta = JSON.parse(r.meta) as Record<string, unknown>;
  return out;
}

/** Every column of an API key row but its hash, which only findApiKeyByHash returns. */
const API_KEY_COLUMNS = [
  "id",
  "name",
  "scopes",
  "policies",
  "created_at",
  "revoked_at",
  "last_used_at",
  "rate_per_second",
] as const;

/** The error for a unique violation on insert: an active key holds the name, else the hash is taken. */
async function duplicateKey(options: { db: Kysely<StoreTables>; name: string }): Promise<WardenError> {
  const active = await options.db
    .selectFrom("warden_api_keys")
    .select("id")
    .where("name", "=", options.name)
    .where("revoked_at", "is", null)
    .executeTakeFirst()
    .catch(() => undefined);
  return active
    ? new WardenError({
        code: "INVALID_INPUT",
        message: `Invalid API key: key.name: an active key named "${options.name}" already exists (revoke it first, or choose another name)`,
        details: { fields: ["key.name"] },
      })
    : new WardenError({
        code: "INVALID_INPUT",
        message: "Invalid API key: key.hash: a key with this hash already exists",
        details: { fields: ["key.hash"] },
      });
}

function toApiKey(r: {
  id: string;
  name: string;
  scopes: string;
  policies: string | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  rate_per_second: number | string | null;
}): ApiKey {
  // Fields in the order a reader expects them in `warden keys list --json`.
  const out: ApiKey = {
    id: r.id,
    name: r.name,
    scopes: JSON.parse(r.scopes) as CallerScope[],
    ...(r.policies !== null && r.policies !== undefined
      ? { policies: JSON.parse(r.policies) as string[] }
      : {}),
    ...(r.rate_per_second !== null && r.rate_per_second !== undefined
      ? { ratePerSecond: Number(r.rate_per_second) }
      : {}),
    createdAt: r.created_at,
  };
  if (r.revoked_at !== null && r.revoked_at !== undefined) out.revokedAt = r.revoked_at;
  if (r.last_used_at !== null && r.last_used_at !== undefined) out.lastUsedAt = r.last_used_at;
  return out;
}
