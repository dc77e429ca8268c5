/**
 * The queries of server-side guard sessions (migration 6), written once for both backends and called by
 * kysely-store.ts. A step is appended only at the index equal to the session's step count, inside the
 * backend's locked transaction for that session: concurrent writers (other processes sharing the
 * database included) serialise, and one that decided against an older trajectory hears "stale".
 */
import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { z } from "zod";
import { parseWith } from "../core/validate.js";
import type { GuardSession, GuardSessionStep, NewGuardSession, SessionAppendRefusal } from "./store.js";
import { StorableTextSchema, storableText } from "./store-input.js";

export interface SessionRow {
  id: string;
  owner: string;
  policy: string;
  input: string;
  /** JSON object text; null = none. */
  context: string | null;
  step_count: number | string | bigint;
  created_at: string;
  finished_at: string | null;
}

export interface SessionStepRow {
  session_id: string;
  idx: number | string | bigint;
  /** The Step as JSON text. */
  step: string;
  verdict: string;
  created_at: string;
}

export interface SessionTables {
  warden_sessions: SessionRow;
  warden_session_steps: SessionStepRow;
}

const Name = storableText({ max: 500, nonEmpty: true });

const NewGuardSessionSchema = z.object({
  owner: Name,
  policy: Name,
  input: StorableTextSchema,
  context: z.record(z.string(), z.json()).optional(),
});

const AppendSchema = z.object({
  id: Name,
  index: z.number().int().min(0),
  step: z.record(z.string(), z.json()),
  verdict: z.enum(["allow", "deny", "ask"]),
});

type Db = Kysely<SessionTables>;

export async function insertSession(options: { db: Db; session: NewGuardSession }): Promise<GuardSession> {
  const s = parseWith({
    schema: NewGuardSessionSchema,
    value: options.session,
    what: "session",
    path: "session",
  });
  const row: SessionRow = {
    id: randomUUID(),
    owner: s.owner,
    policy: s.policy,
    input: s.input,
    context: s.context === undefined ? null : JSON.stringify(s.context),
    step_count: 0,
    created_at: new Date().toISOString(),
    finished_at: null,
  };
  await options.db.insertInto("warden_sessions").values(row).execute();
  return toSession(row);
}

export async function selectSession(options: { db: Db; id: string }): Promise<GuardSession | undefined> {
  const id = parseWith({ schema: Name, value: options.id, what: "store argument", path: "id" });
  const row = await options.db
    .selectFrom("warden_sessions")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  return row ? toSession(row) : undefined;
}

export async function selectSessionSteps(options: { db: Db; id: string }): Promise<GuardSessionStep[]> {
  const id = parseWith({ schema: Name, value: options.id, what: "store argument", path: "id" });
  const rows = await options.db
    .selectFrom("warden_session_steps")
    .selectAll()
    .where("session_id", "=", id)
    .orderBy("idx")
    .execute();
  return rows.map((r) => ({
    index: Number(r.idx),
    step: JSON.parse(r.step) as Record<string, unknown>,
    verdict: r.verdict as GuardSessionStep["verdict"],
    at: r.created_at,
  }));
}

/** Validates the append's arguments before the backend takes its lock. */
export function parseSessionAppend(options: unknown): z.output<typeof AppendSchema> {
  return parseWith({ schema: AppendSchema, value: options, what: "session step", path: "step" });
}

/** The append itself; `db` is the handle of the backend's locked transaction for this session. */
export async function appendStepLocked(options: {
  db: Db;
  append: z.output<typeof AppendSchema>;
}): Promise<{ appended: true; session: GuardSession } | { appended: false; reason: SessionAppendRefusal }> {
  const { db, append } = options;
  const row = await db
    .selectFrom("warden_sessions")
    .selectAll()
    .where("id", "=", append.id)
    .executeTakeFirst();
  if (!row) return { appended: false, reason: "missing" };
  if (row.finished_at !== null) return { appended: false, reason: "finished" };
  if (Number(row.step_count) !== append.index) return { appended: false, reason: "stale" };
  const at = new Date().toISOString();
  await db
    .insertInto("warden_session_steps")
    .values({
      session_id: append.id,
      idx: append.index,
      step: JSON.stringify(append.step),
      verdict: append.verdict,
      created_at: at,
    })
    .execute();
  // The count moves only if no one else moved it: the primary key and this guard both hold the order.
  await db
    .updateTable("warden_sessions")
    .set({ step_count: append.index + 1 })
    .where("id", "=", append.id)
    .where("step_count", "=", append.index)
    .execute();
  return { appended: true, session: toSession({ ...row, step_count: append.index + 1 }) };
}

export async function markSessionFinished(options: {
  db: Db;
  id: string;
}): Promise<GuardSession | undefined> {
  const id = parseWith({ schema: Name, value: options.id, what: "store argument", path: "id" });
  await options.db
    .updateTable("warden_sessions")
    .set({ finished_at: new Date().toISOString() })
    .where("id", "=", id)
    .where("finished_at", "is", null)
    .execute();
  return selectSession({ db: options.db, id });
}

function toSession(row: SessionRow): GuardSession {
  return {
    id: row.id,
    owner: row.owner,
    policy: row.policy,
    input: row.input,
    ...(row.context !== null ? { context: JSON.parse(row.context) as Record<string, unknown> } : {}),
    createdAt: row.created_at,
    ...(row.finished_at !== null ? { finishedAt: row.finished_at } : {}),
    stepCount: Number(row.step_count),
  };
}
