/**
 * The audit log's queries, shared by both backends through kysely-store.ts: appending a row to the hash
 * chain and pruning its oldest rows run under the store's locked transaction (one writer at a time across
 * processes, so concurrent writers still make one chain); reads are plain queries. Rows are converted
 * to AuditEntry exactly as they were hashed (audit-chain.ts), so verify recomputes the same hash.
 *
 * The statements that append (read the head, insert a batch of rows, move the head) are compiled by
 * Kysely once per store (auditStatements, through ./compiled-shape.ts) and run with each batch's values:
 * the same SQL text on both backends as before, without building and compiling an INSERT of every
 * batch's rows, which cost more main-thread time than SQLite took to store them.
 */
import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { z } from "zod";
import { WardenError } from "../core/errors.js";
import { parseWith } from "../core/validate.js";
import { auditRowHash } from "./audit-chain.js";
import { type CompiledShape, compileShape } from "./compiled-shape.js";
import type { AuditEntry, AuditHead, NewAuditEntry } from "./store.js";
import { storableText } from "./store-input.js";

export interface AuditEntryRow {
  seq: number | string | bigint;
  id: string;
  kind: string;
  at: string;
  policy: string;
  policy_version: string;
  engine: string;
  verdict: string;
  allowed: number;
  rules: string;
  explanation: string;
  caller: string;
  latency_ms: number;
  subject_digest: string;
  subject: string | null;
  approval_id: string | null;
  face: string;
  prev_hash: string;
  hash: string;
}

export interface AuditHeadRow {
  id: number;
  base_seq: number | string | bigint;
  base_hash: string;
  head_seq: number | string | bigint;
  head_hash: string;
}

/** The audit log's tables, a part of the store's (kysely-store.ts StoreTables). */
export interface AuditTables {
  warden_audit_entries: AuditEntryRow;
  warden_audit_head: AuditHeadRow;
}

type LockedTransaction = <T>(options: {
  key: string;
  run: (db: Kysely<AuditTables>) => Promise<T>;
}) => Promise<T>;

/** One lock for the whole log: the chain has one head. */
const AUDIT_LOCK = "warden.audit";
export const DEFAULT_AUDIT_LIST_LIMIT = 50;
export const MAX_AUDIT_LIST_LIMIT = 1000;

const Text = storableText({ max: 100_000 });
const Short = storableText({ max: 500 });

const NewAuditEntrySchema = z.object({
  kind: z.enum(["decision", "approval"]),
  policy: Short,
  policyVersion: Short.optional(),
  engine: Short.optional(),
  verdict: z.enum(["allow", "deny", "ask"]),
  allowed: z.boolean(),
  rules: z.array(Short).max(1000).optional(),
  explanation: Text.optional(),
  caller: Short.optional(),
  latencyMs: z.number().min(0).max(1e12).optional(),
  subjectDigest: Short.optional(),
  subject: z.json().optional(),
  approvalId: Short.optional(),
  face: Short,
});

/** An entry parseAuditEntry accepted: only those reach the chain. */
export type ParsedAuditEntry = NewAuditEntry & { readonly parsed: unique symbol };

/** The entries table's columns, in the order the compiled INSERT lists them. */
const AUDIT_COLUMNS = [
  "seq",
  "id",
  "kind",
  "at",
  "policy",
  "policy_version",
  "engine",
  "verdict",
  "allowed",
  "rules",
  "explanation",
  "caller",
  "latency_ms",
  "subject_digest",
  "subject",
  "approval_id",
  "face",
  "prev_hash",
  "hash",
] as const satisfies readonly (keyof AuditEntryRow)[];
// Every column of AuditEntryRow is listed: a column added to the row type and not here fails to compile.
const everyColumnListed: [Exclude<keyof AuditEntryRow, (typeof AUDIT_COLUMNS)[number]>] extends [never]
  ? true
  : never = true;
void everyColumnListed;

/** Most rows one compiled INSERT takes; a bigger batch is inserted in several (one shape per size). */
const INSERT_CHUNK = 64;

/** The append's statements, compiled once per store (see the header). */
export interface AuditStatements {
  /** SELECT of the head record. */
  head: CompiledShape;
  /** UPDATE of the head: slots head_seq, head_hash. */
  moveHead: CompiledShape;
  /** INSERT of `rows` rows (1..INSERT_CHUNK): slots are AUDIT_COLUMNS, row after row. */
  insert(options: { rows: number }): CompiledShape;
}

const headQuery = (db: Kysely<AuditTables>) =>
  db.selectFrom("warden_audit_head").selectAll().where("id", "=", 1);

/** Compiles the append's statements with `db`'s dialect (no connection needed); INSERTs as first used. */
export function auditStatements(options: { db: Kysely<AuditTables> }): AuditStatements {
  const { db } = options;
  const inserts = new Map<number, CompiledShape>();
  const insertShape = (rows: number): CompiledShape =>
    compileShape({
      slots: rows * AUDIT_COLUMNS.length,
      build: (slots) =>
        db
          .insertInto("warden_audit_entries")
          .values(
            Array.from({ length: rows }, (_, i) =>
              Object.fromEntries(AUDIT_COLUMNS.map((c, j) => [c, slots[i * AUDIT_COLUMNS.length + j]])),
            ) as never,
          ),
    });
  return {
    head: compileShape({ slots: 0, build: () => headQuery(db) }),
    moveHead: compileShape({
      slots: 2,
      build: ([seq, hash]) =>
        db
          .updateTable("warden_audit_head")
          .set({ head_seq: seq as never, head_hash: hash as never })
          .where("id", "=", 1),
    }),
    insert: ({ rows }) => {
      let shape = inserts.get(rows);
      if (!shape) {
        shape = insertShape(rows);
        inserts.set(rows, shape);
      }
      return shape;
    },
  };
}

/**
 * Appends rows, in order, in one locked transaction: each chained to the one before, the head moved to
 * the last. Entries are validated before they get here (parseAuditEntry, as each arrives at the store's
 * group commit, see kysely-store.ts), so a bad one is refused alone and none is validated twice.
 */
export async function appendAuditEntries(options: {
  lockedTransaction: LockedTransaction;
  statements: AuditStatements;
  entries: readonly ParsedAuditEntry[];
}): Promise<AuditEntry[]> {
  const { statements, entries } = options;
  return options.lockedTransaction({
    key: AUDIT_LOCK,
    run: async (trx) => {
      const head = headOf({ row: (await trx.executeQuery(statements.head.with([]))).rows[0] });
      // One time for the batch: its rows are written, and committed, together.
      const now = Date.now();
      const at = new Date(now).toISOString();
      const contents = entries.map((e, i) => rowContent({ e, seq: head.headSeq + 1 + i, now, at }));
      return writeRows({ db: trx, statements, contents, prevHash: head.headHash });
    },
  });
}

/** One new entry, validated, its subject passed through JSON so the hash covers it as it reads back. */
export function parseAuditEntry(options: { entry: NewAuditEntry }): ParsedAuditEntry {
  const e = parseWith({ schema: NewAuditEntrySchema, value: options.entry, what: "audit entry" });
  const entry = e.subject === undefined ? e : { ...e, subject: JSON.parse(JSON.stringify(e.subject)) };
  return entry as ParsedAuditEntry;
}

/**
 * A row's id: a time-ordered UUID (RFC 9562 version 7: 48 bits of milliseconds, then 74 random bits), so
 * each new id lands at the end of the id index instead of at a random page of it; with random (version 4)
 * ids the index's inserts dirtied a page per row, which doubled what a row cost to insert and to commit.
 * The random bits are a version-4 UUID's (Node's randomUUID draws its entropy in batches; the `uuid`
 * package's v7 asks the OS for 16 bytes per id, which cost more than the row's insert here): its first 48
 * bits become the time and its version digit 7; the variant bits stay.
 */
export function rowId(options: { now?: number } = {}): string {
  const random = randomUUID();
  const ms = (options.now ?? Date.now()).toString(16).padStart(12, "0");
  return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${random.slice(15)}`;
}

/** The row's content at chain position `seq`, "" / [] / 0 where the entry says nothing. */
function rowContent(options: {
  e: NewAuditEntry;
  seq: number;
  /** The write's time, in ms and as ISO text. */
  now: number;
  at: string;
}): Omit<AuditEntry, "hash" | "prevHash"> {
  const { e, seq } = options;
  return {
    id: rowId({ now: options.now }),
    seq,
    kind: e.kind,
    at: options.at,
    policy: e.policy,
    policyVersion: e.policyVersion ?? "",
    engine: e.engine ?? "",
    verdict: e.verdict,
    allowed: e.allowed,
    rules: e.rules ?? [],
    explanation: e.explanation ?? "",
    caller: e.caller ?? "",
    // Rounded to a microsecond: a double that reads back identically from both backends.
    latencyMs: Math.round((e.latencyMs ?? 0) * 1000) / 1000,
    subjectDigest: e.subjectDigest ?? "",
    ...(e.subject !== undefined ? { subject: e.subject } : {}),
    ...(e.approvalId !== undefined ? { approvalId: e.approvalId } : {}),
    face: e.face,
  };
}

/** Inserts a row chained to `prevHash` and moves the head to it (inside the caller's locked transaction). */
async function writeRow(options: {
  db: Kysely<AuditTables>;
  statements: AuditStatements;
  content: Omit<AuditEntry, "hash" | "prevHash">;
  prevHash: string;
}): Promise<AuditEntry> {
  const { content, ...rest } = options;
  const [row] = await writeRows({ ...rest, contents: [content] });
  return row as AuditEntry;
}

/**
 * Inserts rows chained one to the next from `prevHash` and moves the head to the last (inside the
 * caller's locked transaction), with the compiled statements: a batch costs the same few statements
 * whatever its size (one INSERT per INSERT_CHUNK rows). The contents become the rows (chainedRow).
 */
async function writeRows(options: {
  db: Kysely<AuditTables>;
  statements: AuditStatements;
  contents: readonly Omit<AuditEntry, "hash" | "prevHash">[];
  prevHash: string;
}): Promise<AuditEntry[]> {
  const { db, statements, contents } = options;
  let prevHash = options.prevHash;
  const rows = contents.map((content) => {
    const row = chainedRow({ content, prevHash });
    prevHash = row.hash;
    return row;
  });
  const last = rows.at(-1);
  if (!last) return [];
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    const chunk = rows.slice(start, start + INSERT_CHUNK);
    const values: unknown[] = [];
    for (const row of chunk) {
      const stored = storedRow({ row });
      for (const column of AUDIT_COLUMNS) values.push(stored[column]);
    }
    await db.executeQuery(statements.insert({ rows: chunk.length }).with(values));
  }
  await db.executeQuery(statements.moveHead.with([last.seq, last.hash]));
  return rows;
}

/**
 * `content` chained to `prevHash`: the same object with hash and prevHash added last (the keys and order a
 * copy `{ ...content, hash, prevHash }` had). Each content is built for its row alone (rowContent, or
 * prune's checkpoint), so it becomes the row instead of being copied: on Node 20 an object literal that
 * starts with a spread and then adds keys cost about 8 µs per row (measured), more than hashing it.
 */
function chainedRow(options: {
  content: Omit<AuditEntry, "hash" | "prevHash">;
  prevHash: string;
}): AuditEntry {
  const { content, prevHash } = options;
  const row = content as AuditEntry;
  row.hash = auditRowHash({ prevHash, entry: content });
  row.prevHash = prevHash;
  return row;
}

/** A chained row as the entries table stores it (JSON text for rules and subject, 0/1 for allowed). */
function storedRow(options: { row: AuditEntry }): AuditEntryRow {
  const { row } = options;
  return {
    seq: row.seq,
    id: row.id,
    kind: row.kind,
    at: row.at,
    policy: row.policy,
    policy_version: row.policyVersion,
    engine: row.engine,
    verdict: row.verdict,
    allowed: row.allowed ? 1 : 0,
    rules: JSON.stringify(row.rules),
    explanation: row.explanation,
    caller: row.caller,
    latency_ms: row.latencyMs,
    subject_digest: row.subjectDigest,
    subject: row.subject === undefined ? null : JSON.stringify(row.subject),
    approval_id: row.approvalId ?? null,
    face: row.face,
    prev_hash: row.prevHash,
    hash: row.hash,
  };
}

export async function readHead(options: { db: Kysely<AuditTables> }): Promise<AuditHead> {
  return headOf({ row: await headQuery(options.db).executeTakeFirst() });
}

/** The head record as AuditHead; refuses a missing one (the log cannot be trusted or extended). */
function headOf(options: { row: AuditHeadRow | unknown }): AuditHead {
  const row = options.row as AuditHeadRow | undefined;
  if (!row) {
    throw new WardenError({
      code: "STORE_ERROR",
      message:
        "the audit log's head record is missing (warden_audit_head row 1); the log cannot be trusted or extended",
    });
  }
  return {
    baseSeq: Number(row.base_seq),
    baseHash: row.base_hash,
    headSeq: Number(row.head_seq),
    headHash: row.head_hash,
  };
}

export async function listAuditEntries(options: {
  db: Kysely<AuditTables>;
  limit?: number;
  before?: number;
}): Promise<AuditEntry[]> {
  const { limit, before } = parseWith({
    schema: z.object({
      limit: z.number().int().min(1).max(MAX_AUDIT_LIST_LIMIT).default(DEFAULT_AUDIT_LIST_LIMIT),
      before: z.number().int().min(1).optional(),
    }),
    value: { limit: options.limit, before: options.before },
    what: "audit listing",
  });
  let query = options.db.selectFrom("warden_audit_entries").selectAll();
  if (before !== undefined) query = query.where("seq", "<", before);
  const rows = await query.orderBy("seq", "desc").limit(limit).execute();
  return rows.map(fromAuditRow);
}

export async function getAuditEntry(options: {
  db: Kysely<AuditTables>;
  id: string;
}): Promise<AuditEntry | undefined> {
  const id = parseWith({ schema: Short.pipe(z.string().min(1)), value: options.id, what: "audit entry id" });
  let query = options.db.selectFrom("warden_audit_entries").selectAll();
  query = /^[1-9][0-9]{0,15}$/.test(id) ? query.where("seq", "=", Number(id)) : query.where("id", "=", id);
  const row = await query.executeTakeFirst();
  return row ? fromAuditRow(row) : undefined;
}

export async function readAuditChain(options: {
  db: Kysely<AuditTables>;
  after?: number;
  limit: number;
}): Promise<AuditEntry[]> {
  const rows = await options.db
    .selectFrom("warden_audit_entries")
    .selectAll()
    .where("seq", ">", options.after ?? 0)
    .orderBy("seq")
    .limit(options.limit)
    .execute();
  return rows.map(fromAuditRow);
}

const PruneSchema = z
  .object({
    olderThan: z.iso.datetime({ offset: true }).optional(),
    keep: z.number().int().min(0).optional(),
  })
  .refine((o) => (o.olderThan === undefined) !== (o.keep === undefined), {
    message: "give exactly one of olderThan and keep",
  });

export async function pruneAuditEntries(options: {
  lockedTransaction: LockedTransaction;
  statements: AuditStatements;
  olderThan?: string;
  keep?: number;
}): Promise<{ pruned: number; checkpoint?: AuditEntry }> {
  const o = parseWith({
    schema: PruneSchema,
    value: { olderThan: options.olderThan, keep: options.keep },
    what: "audit prune options",
  });
  return options.lockedTransaction({
    key: AUDIT_LOCK,
    run: async (trx) => {
      const head = await readHead({ db: trx });
      const through = await pruneThrough({ db: trx, head, ...o });
      if (through <= head.baseSeq) return { pruned: 0 };
      const last = await trx
        .selectFrom("warden_audit_entries")
        .select(["hash"])
        .where("seq", "=", through)
        .executeTakeFirst();
      if (!last) {
        throw new WardenError({
          code: "STORE_ERROR",
          message: `audit row ${through} is missing; run warden audit verify`,
        });
      }
      const deleted = await trx
        .deleteFrom("warden_audit_entries")
        .where("seq", "<=", through)
        .executeTakeFirst();
      await trx
        .updateTable("warden_audit_head")
        .set({ base_seq: through, base_hash: last.hash })
        .where("id", "=", 1)
        .execute();
      const pruned = Number(deleted.numDeletedRows);
      const checkpoint = await writeRow({
        db: trx,
        statements: options.statements,
        prevHash: head.headHash,
        content: {
          id: rowId(),
          seq: head.headSeq + 1,
          kind: "checkpoint",
          at: new Date().toISOString(),
          policy: "",
          policyVersion: "",
          engine: "",
          verdict: "none",
          allowed: false,
          rules: [],
          explanation: `pruned rows ${head.baseSeq + 1}..${through} (${pruned} rows${o.olderThan ? `, written before ${o.olderThan}` : `, keeping the newest ${o.keep}`}); the chain now starts after row ${through}, hash ${last.hash}`,
          caller: "",
          latencyMs: 0,
          subjectDigest: "",
          subject: { prunedThrough: through, baseHash: last.hash },
          face: "prune",
        },
      });
      return { pruned, checkpoint };
    },
  });
}

/** The last seq to remove: every row written before `olderThan`, or all but the newest `keep`. */
async function pruneThrough(options: {
  db: Kysely<AuditTables>;
  head: AuditHead;
  olderThan?: string;
  keep?: number;
}): Promise<number> {
  const { head } = options;
  if (options.keep !== undefined) return Math.max(head.baseSeq, head.headSeq - options.keep);
  // ISO times in UTC compare as text; the newest row before the cut bounds the prefix.
  const cut = new Date(options.olderThan as string).toISOString();
  const row = await options.db
    .selectFrom("warden_audit_entries")
    .select((eb) => eb.fn.max("seq").as("seq"))
    .where("at", "<", cut)
    .executeTakeFirst();
  return row?.seq === null || row?.seq === undefined ? head.baseSeq : Number(row.seq);
}

export function fromAuditRow(r: AuditEntryRow): AuditEntry {
  const out: AuditEntry = {
    id: r.id,
    seq: Number(r.seq),
    kind: r.kind as AuditEntry["kind"],
    at: r.at,
    policy: r.policy,
    policyVersion: r.policy_version,
    engine: r.engine,
    verdict: r.verdict as AuditEntry["verdict"],
    allowed: Number(r.allowed) === 1,
    rules: parseStored(r.rules) as string[],
    explanation: r.explanation,
    caller: r.caller,
    latencyMs: Number(r.latency_ms),
    subjectDigest: r.subject_digest,
    face: r.face,
    hash: r.hash,
    prevHash: r.prev_hash,
  };
  if (r.subject !== null && r.subject !== undefined) out.subject = parseStored(r.subject);
  if (r.approval_id !== null && r.approval_id !== undefined) out.approvalId = r.approval_id;
  return out;
}

/** JSON text as stored; text that is not JSON (edited by hand) reads as itself, so its hash fails verify. */
function parseStored(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
