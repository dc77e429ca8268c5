/**
 * The persistence contract: demonstrations for GuardAgent's memory, shielding workflows for the
 * shield's long-term memory, and the API keys that tell the HTTP service's callers apart (stored as
 * hashes; key-directory.ts makes and checks the secrets). SQLite (embedded, default) and PostgreSQL
 * (shared) implement it and pass the same conformance suite.
 */
import type { CallerScope } from "../core/caller.js";

export type DemonstrationOrigin = "seed" | "user" | "learned";

export interface Demonstration {
  id: string;
  /** Policy name the demonstration belongs to. */
  policy: string;
  /** I_i,D */
  input: string;
  /** I_o,D */
  output: string;
  /** P_D: the four-step plan. */
  plan: string;
  /** C_D: the guardrail code (JavaScript). */
  code: string;
  /** Label the demonstration's code produced (when known). */
  label?: 0 | 1;
  origin: DemonstrationOrigin;
  /** ISO time. */
  createdAt: string;
  /** Insertion sequence number: the stable tie-break of retrieval. */
  seq: number;
  meta?: Record<string, unknown>;
}

export type NewDemonstration = Omit<Demonstration, "id" | "createdAt" | "seq"> & { id?: string };

/** A shielding workflow that succeeded: reused as a plan for similar steps. */
export interface Workflow {
  id: string;
  policy: string;
  /** The action predicate it shielded. */
  action: string;
  /** Text the retrieval compares against (the step and its context). */
  query: string;
  /** The plan: which operations assigned which predicates. */
  plan: unknown;
  verdict: "allow" | "deny" | "ask";
  createdAt: string;
  seq: number;
}

export type NewWorkflow = Omit<Workflow, "id" | "createdAt" | "seq"> & { id?: string };

/** An API key as listed: never its secret, never its hash. */
export interface ApiKey {
  id: string;
  /** Unique among active (unrevoked) keys; the caller's name in decisions and logs. */
  name: string;
  scopes: CallerScope[];
  /** Policies the key may use; absent = every loaded policy. */
  policies?: string[];
  /** Requests per second this key may make (a token bucket in the HTTP service); absent = the server's default. */
  ratePerSecond?: number;
  /** ISO times. */
  createdAt: string;
  revokedAt?: string;
  /** Updated at most about once a minute (see key-directory.ts). */
  lastUsedAt?: string;
}

/** What createApiKey stores: the SHA-256 of the secret (64 lower-case hex digits), never the secret. */
export interface NewApiKey {
  name: string;
  scopes: CallerScope[];
  policies?: string[];
  ratePerSecond?: number;
  hash: string;
}

// ---- Server-side guard sessions (issue 14 item 4; migration 6; queries in session-queries.ts) ----

/** A guarded run opened over HTTP: its steps are decided one by one against the steps before them. */
export interface GuardSession {
  id: string;
  /** Who opened it (the API key's id, or a fixed caller name): only the same owner may use it. */
  owner: string;
  policy: string;
  /** What the agent was asked. */
  input: string;
  context?: Record<string, unknown>;
  createdAt: string;
  finishedAt?: string;
  /** Steps recorded so far (their indexes are 0 … stepCount - 1). */
  stepCount: number;
}

export type NewGuardSession = Pick<GuardSession, "owner" | "policy" | "input" | "context">;

/** One decided step of a session, in the Step shape of core/subject.ts. */
export interface GuardSessionStep {
  index: number;
  step: Record<string, unknown>;
  verdict: "allow" | "deny" | "ask";
  at: string;
}

/** Why appendSessionStep did not append: no such session, finished, or another step took that index. */
export type SessionAppendRefusal = "missing" | "finished" | "stale";
// ---- audit log (h1, issue 14): a hash chain of decisions, see audit-chain.ts ----

/** What a row records: a guard's decision, a human's approval decision, or a prune's checkpoint. */
export type AuditKind = "decision" | "approval" | "checkpoint";

/** One row of the audit log, as GET /v1/audit and `warden audit export --jsonl` give it. */
export interface AuditEntry {
  id: string;
  /** Position in the chain: 1, 2, 3... without gaps (pruning removes a prefix). */
  seq: number;
  kind: AuditKind;
  /** ISO time the row was written. */
  at: string;
  policy: string;
  policyVersion: string;
  engine: string;
  /** "none" on a checkpoint row. */
  verdict: "allow" | "deny" | "ask" | "none";
  allowed: boolean;
  /** Ids of the violated rules. */
  rules: string[];
  explanation: string;
  /** Who asked (an API key's name, "library", "cli"...) or, on an approval row, who decided. */
  caller: string;
  latencyMs: number;
  /** SHA-256 (hex) of the canonical JSON of what was checked; "" when there was none. */
  subjectDigest: string;
  /** What was checked, when the log is configured to keep it (auditSubjects). */
  subject?: unknown;
  approvalId?: string;
  /** Which face answered: "http", "mcp-server", "mcp-proxy", "cli-check", "cli-hook", "library"... */
  face: string;
  /** SHA-256 (hex) of prevHash + the canonical row JSON (audit-chain.ts). */
  hash: string;
  prevHash: string;
}

/** What a caller appends; the store assigns id, seq, at and the hashes, and "" / [] / 0 where absent. */
export interface NewAuditEntry {
  kind: "decision" | "approval";
  policy: string;
  policyVersion?: string;
  engine?: string;
  verdict: "allow" | "deny" | "ask";
  allowed: boolean;
  rules?: string[];
  explanation?: string;
  caller?: string;
  latencyMs?: number;
  subjectDigest?: string;
  subject?: unknown;
  approvalId?: string;
  face: string;
}

/**
 * Where the chain starts and ends. `baseSeq`/`baseHash`: the last row removed by pruning (0 and the
 * genesis hash before any); `headSeq`/`headHash`: the last row written. Kept apart from the rows, so
 * deleting the newest rows is caught.
 */
export interface AuditHead {
  baseSeq: number;
  baseHash: string;
  headSeq: number;
  headHash: string;
}

// ---- Approvals (issue 14, h2): an `ask` waiting for a human; src/runtime/approvals.ts ----

/** pending → approved | denied by a human; a pending one past expiresAt reads as expired (a deny). */
export type ApprovalStatus = "pending" | "approved" | "denied" | "expired";

export interface Approval {
  id: string;
  policy: string;
  policyVersion?: string;
  /** sha256 (hex) of the canonical question (src/core/subject-digest.ts): what a re-check must match. */
  subjectDigest: string;
  /** The question as checked (subject or tool call), for the reviewer. */
  subject: unknown;
  /** Ids of the rules that asked. */
  rules: string[];
  explanation: string;
  /** Who asked (the API key's name, "anonymous", "library"): only they may use the approval. */
  caller: string;
  status: ApprovalStatus;
  /** ISO times. */
  createdAt: string;
  expiresAt: string;
  decidedAt?: string;
  /** Who approved or denied it (free text the approver gives, with their key's name). */
  decidedBy?: string;
  /** When a re-check of the same question was allowed by it (an approval allows one re-check). */
  usedAt?: string;
  seq: number;
}

export type NewApproval = Pick<
  Approval,
  "policy" | "subjectDigest" | "subject" | "rules" | "explanation" | "caller" | "expiresAt"
> & { policyVersion?: string };

/** The question an approval answers: a re-check uses one only when all three match. */
export interface ApprovalQuestion {
  policy: string;
  subjectDigest: string;
  caller: string;
}

export interface ApprovalStore {
  createApproval(options: { approval: NewApproval }): Promise<Approval>;
  getApproval(options: { id: string }): Promise<Approval | undefined>;
  /** Newest first; `status: "pending"` leaves out expired ones. At most `limit` (default 100, max 1000). */
  listApprovals(options: { status?: ApprovalStatus; limit?: number }): Promise<Approval[]>;
  /**
   * Approves or denies a pending, unexpired approval in one statement (two deciders cannot both win):
   * the approval as it now stands, with `decided` true only for the call that changed it; undefined
   * when no approval has that id.
   */
  decideApproval(options: {
    id: string;
    decision: "approve" | "deny";
    by: string;
  }): Promise<{ approval: Approval; decided: boolean } | undefined>;
  /** The newest pending, unexpired approval of the same question (so a repeated ask does not queue twice). */
  findPendingApproval(options: ApprovalQuestion): Promise<Approval | undefined>;
  /**
   * Marks used, and returns, an approved, unexpired, unused approval of exactly this question; each
   * approval is used once, by one caller, even with concurrent re-checks across processes.
   */
  useApproval(options: ApprovalQuestion): Promise<Approval | undefined>;
}

/**
 * What a change mark watches: `keys` moves when a key is created or revoked (not when its lastUsedAt is
 * rewritten), `approvals` when an approval is decided or used (a new pending one need not move it).
 * Commits by any other connection or process move every area.
 */
export type ChangeArea = "keys" | "approvals";

export interface Store extends ApprovalStore {
  /** Appends a demonstration; duplicate content is allowed (only a duplicate id is refused). */
  addDemonstration(options: { demonstration: NewDemonstration }): Promise<Demonstration>;
  /**
   * Appends a demonstration unless one of the same policy with the same content (content-hash.ts: input,
   * output, plan, code) is stored, in which case that one (the earliest by seq) is returned with
   * `added: false`. The lookup and the insert are one locked transaction, so concurrent callers — other
   * store instances and other processes on the same database included — store given content once.
   * Input is validated as addDemonstration validates it; a duplicate id is refused the same way.
   */
  addDemonstrationOnce(options: {
    demonstration: NewDemonstration;
  }): Promise<{ demonstration: Demonstration; added: boolean }>;
  /** All demonstrations of a policy, in insertion order. */
  listDemonstrations(options: { policy: string }): Promise<Demonstration[]>;
  countDemonstrations(options: { policy?: string }): Promise<number>;
  deleteDemonstration(options: { id: string }): Promise<boolean>;
  addWorkflow(options: { workflow: NewWorkflow }): Promise<Workflow>;
  listWorkflows(options: { policy: string; action?: string }): Promise<Workflow[]>;
  /**
   * Stores a key. A name already held by an active key, or a hash already stored, is refused with
   * INVALID_INPUT naming the field (a revoked key's name may be reused).
   */
  createApiKey(options: { key: NewApiKey }): Promise<ApiKey>;
  /**
   * Keys in creation order, revoked ones included (they stay on record) unless `activeOnly`; hashes are
   * never listed.
   */
  listApiKeys(options: { activeOnly?: boolean }): Promise<ApiKey[]>;
  /** Revokes the active key of that name; the key revoked, or undefined when no active key has the name. */
  revokeApiKey(options: { name: string }): Promise<ApiKey | undefined>;
  /** The active (unrevoked) key with that hash, with its stored hash for a constant-time comparison. */
  findApiKeyByHash(options: { hash: string }): Promise<(ApiKey & { hash: string }) | undefined>;
  /** Sets the key's lastUsedAt to now (bookkeeping for `warden keys list`). */
  markApiKeyUsed(options: { id: string }): Promise<void>;
  /**
   * A mark that differs from the last one read whenever the area's data may have changed in between, by
   * this store or by any other connection or process; absent where the backend cannot tell cheaply (then
   * a reader that wants current data asks the store every time). Lets the key directory and the approval
   * queue answer from what they read last without ever serving a key revoked, or missing an approval
   * decided, since; the audit log's own writes move neither.
   */
  changeMark?(options: { area: ChangeArea }): string;

  // ---- Server-side guard sessions (issue 14 item 4) ----
  /** Opens a session with a fresh id and no steps. */
  createSession(options: { session: NewGuardSession }): Promise<GuardSession>;
  getSession(options: { id: string }): Promise<GuardSession | undefined>;
  /** The session's steps, oldest first (empty for an unknown session). */
  listSessionSteps(options: { id: string }): Promise<GuardSessionStep[]>;
  /**
   * Appends a decided step at `index`, which must be the session's current step count: the check and the
   * append are one locked transaction, so of two writers (any process) that decided against the same
   * steps one appends and the other hears "stale" and decides again against the longer trajectory.
   */
  appendSessionStep(options: {
    id: string;
    index: number;
    step: Record<string, unknown>;
    verdict: GuardSessionStep["verdict"];
  }): Promise<{ appended: true; session: GuardSession } | { appended: false; reason: SessionAppendRefusal }>;
  /** Marks the session finished (idempotent); undefined for an unknown session. */
  finishSession(options: { id: string }): Promise<GuardSession | undefined>;
  // ---- audit log (h1) ----
  /**
   * Appends a row to the hash chain: in one transaction under the audit lock (across processes), reads the
   * head, writes the row with the next seq and its hash, and moves the head. Resolves once committed.
   */
  appendAuditEntry(options: { entry: NewAuditEntry }): Promise<AuditEntry>;
  /** Rows newest first, at most `limit` (default 50, at most 1000), only those with seq < `before`. */
  listAuditEntries(options: { limit?: number; before?: number }): Promise<AuditEntry[]>;
  /** The row with that id, or with that seq when `id` is a whole number. */
  getAuditEntry(options: { id: string }): Promise<AuditEntry | undefined>;
  /** Rows oldest first with seq > `after` (default 0), at most `limit`: what verify walks. */
  readAuditChain(options: { after?: number; limit: number }): Promise<AuditEntry[]>;
  auditHead(): Promise<AuditHead>;
  /**
   * Removes the oldest rows — those written before `olderThan` (ISO time), or all but the newest `keep` —
   * moves the chain's base to the last removed row and appends a checkpoint row recording it, all in one
   * locked transaction. Exactly one of the two options.
   */
  pruneAuditEntries(options: { olderThan?: string; keep?: number }): Promise<{
    pruned: number;
    checkpoint?: AuditEntry;
  }>;

  close(): Promise<void>;
}
