/**
 * The approval queue's queries (issue 14), written once with Kysely for both backends over the table of
 * migration 5. Every state change is one conditional UPDATE, so two deciders, or two re-checks using the
 * same approval, cannot both succeed — in one process or across processes sharing the database. Expiry
 * is read, not written: a pending row past `expires_at` is "expired" to every reader (a deny).
 */
import { randomUUID } from "node:crypto";
import type { Generated, Kysely } from "kysely";
import { z } from "zod";
import { parseWith } from "../core/validate.js";
import type { Approval, ApprovalStatus, ApprovalStore, NewApproval } from "./store.js";
import { storableText } from "./store-input.js";

export interface ApprovalRow {
  seq: Generated<number | string | bigint>;
  id: string;
  policy: string;
  policy_version: string | null;
  subject_digest: string;
  /** JSON text. */
  subject: string;
  /** JSON array of rule ids. */
  rules: string;
  explanation: string;
  caller: string;
  /** "pending" | "approved" | "denied" (expired is derived). */
  status: string;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  used_at: string | null;
}

/** The one table these queries touch (kysely-store.ts adds it to StoreTables). */
export type ApprovalTables = { warden_approvals: ApprovalRow };
type Db = Kysely<ApprovalTables>;

const Text = (max: number) => storableText({ max, nonEmpty: true });
const IsoTimeSchema = z.iso.datetime();
const DigestSchema = z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lower-case hex");

const NewApprovalSchema = z.object({
  policy: Text(500),
  policyVersion: Text(200).optional(),
  subjectDigest: DigestSchema,
  subject: z.json(),
  rules: z.array(Text(500)).max(1000),
  explanation: storableText({ max: 100_000 }),
  caller: Text(500),
  expiresAt: IsoTimeSchema,
});

const QuestionSchema = z.object({ policy: Text(500), subjectDigest: DigestSchema, caller: Text(500) });

const DecideSchema = z.object({
  id: Text(200),
  decision: z.enum(["approve", "deny"]),
  by: Text(500),
});

const ListSchema = z.object({
  status: z.enum(["pending", "approved", "denied", "expired"]).optional(),
  limit: z.number().int().min(1).max(1000).default(100),
});

const parse = <S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> =>
  parseWith({ schema, value, what });

function toApproval(
  row: Omit<ApprovalRow, "seq"> & { seq: number | string | bigint },
  now: string,
): Approval {
  const expired = row.status === "pending" && row.expires_at <= now;
  const approval: Approval = {
    id: row.id,
    policy: row.policy,
    ...(row.policy_version !== null ? { policyVersion: row.policy_version } : {}),
    subjectDigest: row.subject_digest,
    subject: JSON.parse(row.subject) as unknown,
    rules: JSON.parse(row.rules) as string[],
    explanation: row.explanation,
    caller: row.caller,
    status: (expired ? "expired" : row.status) as ApprovalStatus,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    seq: Number(row.seq),
  };
  if (row.decided_at !== null) approval.decidedAt = row.decided_at;
  if (row.decided_by !== null) approval.decidedBy = row.decided_by;
  if (row.used_at !== null) approval.usedAt = row.used_at;
  return approval;
}

/**
 * The ApprovalStore methods over `db`; `guard` maps failures to STORE_ERROR as the rest of the store
 * does. Input is validated here (INVALID_INPUT naming the field).
 */
export function approvalQueries(options: {
  db: Db;
  guard: <T>(what: string, run: () => Promise<T>) => Promise<T>;
}): ApprovalStore {
  const { db, guard } = options;
  const now = () => new Date().toISOString();
  const byId = (id: string) =>
    db.selectFrom("warden_approvals").selectAll().where("id", "=", id).executeTakeFirst();

  return {
    async createApproval({ approval }) {
      const a = parse(NewApprovalSchema, approval, "approval") as NewApproval;
      const row = {
        id: randomUUID(),
        policy: a.policy,
        policy_version: a.policyVersion ?? null,
        subject_digest: a.subjectDigest,
        subject: JSON.stringify(a.subject),
        rules: JSON.stringify(a.rules),
        explanation: a.explanation,
        caller: a.caller,
        status: "pending",
        created_at: now(),
        expires_at: a.expiresAt,
        decided_at: null,
        decided_by: null,
        used_at: null,
      };
      const { seq } = await guard("creating an approval", () =>
        db.insertInto("warden_approvals").values(row).returning("seq").executeTakeFirstOrThrow(),
      );
      return toApproval({ ...row, seq }, now());
    },

    async getApproval({ id }) {
      const key = parse(Text(200), id, "approval id");
      const row = await guard("reading an approval", () => byId(key));
      return row ? toApproval(row, now()) : undefined;
    },

    async listApprovals(input) {
      const { status, limit } = parse(ListSchema, input ?? {}, "approval list options");
      const at = now();
      const rows = await guard("listing approvals", () => {
        let query = db.selectFrom("warden_approvals").selectAll();
        if (status === "pending") query = query.where("status", "=", "pending").where("expires_at", ">", at);
        else if (status === "expired")
          query = query.where("status", "=", "pending").where("expires_at", "<=", at);
        else if (status) query = query.where("status", "=", status);
        return query.orderBy("seq", "desc").limit(limit).execute();
      });
      return rows.map((row) => toApproval(row, at));
    },

    async decideApproval(input) {
      const { id, decision, by } = parse(DecideSchema, input, "approval decision");
      const at = now();
      return guard("deciding an approval", async () => {
        // One statement: only a pending, unexpired row changes, and only once.
        const changed = await db
          .updateTable("warden_approvals")
          .set({ status: decision === "approve" ? "approved" : "denied", decided_at: at, decided_by: by })
          .where("id", "=", id)
          .where("status", "=", "pending")
          .where("expires_at", ">", at)
          .returningAll()
          .executeTakeFirst();
        if (changed) return { approval: toApproval(changed, at), decided: true };
        const row = await byId(id);
        return row ? { approval: toApproval(row, at), decided: false } : undefined;
      });
    },

    async findPendingApproval(input) {
      const q = parse(QuestionSchema, input, "approval question");
      const at = now();
      const row = await guard("finding a pending approval", () =>
        db
          .selectFrom("warden_approvals")
          .selectAll()
          .where("subject_digest", "=", q.subjectDigest)
          .where("policy", "=", q.policy)
          .where("caller", "=", q.caller)
          .where("status", "=", "pending")
          .where("expires_at", ">", at)
          .orderBy("seq", "desc")
          .executeTakeFirst(),
      );
      return row ? toApproval(row, at) : undefined;
    },

    async useApproval(input) {
      const q = parse(QuestionSchema, input, "approval question");
      const at = now();
      return guard("using an approval", async () => {
        const candidates = await db
          .selectFrom("warden_approvals")
          .select("id")
          .where("subject_digest", "=", q.subjectDigest)
          .where("policy", "=", q.policy)
          .where("caller", "=", q.caller)
          .where("status", "=", "approved")
          .where("used_at", "is", null)
          .where("expires_at", ">", at)
          .orderBy("seq")
          .execute();
        for (const { id } of candidates) {
          // Conditional on still being unused: a concurrent re-check that got there first wins.
          const row = await db
            .updateTable("warden_approvals")
            .set({ used_at: at })
            .where("id", "=", id)
            .where("status", "=", "approved")
            .where("used_at", "is", null)
            .returningAll()
            .executeTakeFirst();
          if (row) return toApproval(row, at);
        }
        return undefined;
      });
    },
  };
}
