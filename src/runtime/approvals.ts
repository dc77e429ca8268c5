/**
 * Approvals (issue 14): an `ask` becomes a request a human approves or denies, never an allow by itself.
 *
 * - `withApprovals` wraps a GuardService (inside the audit wrapper, so the audit row sees the approval):
 *   a check answered `ask` (a real ask, never a failure) is queued in the store and the decision carries
 *   `approval: { id, status: "pending", expiresAt }`; the same question asked again while pending gets
 *   the same approval. A re-check of exactly the same question — same policy, same canonical subject
 *   digest (src/core/subject-digest.ts), same caller — after a human approved it is an allow naming the
 *   approval, once; anything else (another question, another caller, a second re-check, an expired or
 *   denied approval) never reuses it. The inner check always runs first: a deny stays a deny, approved
 *   or not, and only an `ask` can become an allow.
 * - `createApprovalDesk` is what the faces (HTTP routes, CLI, review page) use to list, read, decide and
 *   wait for approvals; a wait is bounded and wakes at once on a decision made in this process, and by
 *   polling the store for one made elsewhere (another server sharing PostgreSQL, `warden approvals`).
 *
 * Expiry ends in deny: a pending approval past its time reads as "expired" and can no longer be decided
 * or used; the caller's re-check is then a new ask.
 */
import type { Caller } from "../core/caller.js";
import type { Decision } from "../core/decision.js";
import { WardenError } from "../core/errors.js";
import { subjectDigest } from "../core/subject-digest.js";
import { toolCallSubject } from "../core/tool-call.js";
import type { Approval, ApprovalStore, Store } from "../store/store.js";
import { withFields } from "../util/with-fields.js";
import { recordAuditEvent } from "./audit-log.js";
import type { CheckOptions, GuardService } from "./guard-service.js";

/** How long a pending approval waits for a human, and an approved one for its re-check (15 minutes). */
export const DEFAULT_APPROVAL_TTL_MS = 15 * 60_000;
/** The longest a single wait for a decision may last (a client wanting longer asks again). */
export const MAX_APPROVAL_WAIT_MS = 60_000;
/** How often a wait reads the store for decisions made by other processes. */
const DEFAULT_POLL_MS = 250;

/** The name an approval records for a caller without a key (the library's own checks). */
const callerName = (caller: Caller | undefined) => caller?.name ?? "library";

/** The question as identified for reuse: the caller's per-check id is bookkeeping, not content. */
function questionOf(value: { id?: string | undefined } & Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...question } = value;
  return question;
}

/** The allow a re-check gets from a used approval: the ask's rules named, none violated. */
function approvedDecision(options: { decision: Decision; approval: Approval; output: unknown }): Decision {
  const { decision, approval } = options;
  const rules = approval.rules.length > 0 ? ` (${approval.rules.join(", ")})` : "";
  return {
    ...decision,
    allowed: true,
    label: 0,
    verdict: "allow",
    violations: [],
    explanation: `Approved by ${approval.decidedBy ?? "a reviewer"} at ${approval.decidedAt ?? "?"}: the rules that asked${rules} were confirmed by a human for this exact question.`,
    output: options.output,
    approval: { id: approval.id, status: "approved", expiresAt: approval.expiresAt },
  };
}

/** The approval queue, with the store's change mark where it has one (Store.changeMark). */
export type MarkedApprovalStore = ApprovalStore & Pick<Store, "changeMark">;

const asPending = (o: { decision: Decision; approval: Approval }): Decision =>
  withFields({
    base: o.decision,
    fields: { approval: { id: o.approval.id, status: "pending", expiresAt: o.approval.expiresAt } },
  });

/** Questions remembered at most (past this the index starts over: a miss only costs a store read). */
const PENDING_INDEX_SIZE = 10_000;

/**
 * The pending approval each recent question got, valid while the store's change mark of approvals stays
 * what it was when the store was read: an ask repeated while its approval waits is answered without
 * reading the store (a read and a write transaction per ask were most of an ask's cost in the HTTP service). Only
 * pending approvals are kept, so the index can never produce an allow: an approve or a use, here or in
 * any other process, moves the mark and empties it, and the next ask reads the store again. The mark is
 * read before the store is, so a decision made while the store was being read moves it too. Without a
 * mark (a backend that cannot tell cheaply) nothing is kept.
 */
function pendingIndex(options: { store: MarkedApprovalStore }) {
  const { store } = options;
  const entries = new Map<string, Approval>();
  let entriesMark: string | undefined;
  const keyOf = (q: { policy: string; subjectDigest: string; caller: string }) =>
    `${q.policy}\u0000${q.subjectDigest}\u0000${q.caller}`;
  return {
    mark: (): string | undefined => store.changeMark?.({ area: "approvals" }),
    get(o: { question: Parameters<typeof keyOf>[0]; mark: string | undefined }): Approval | undefined {
      if (o.mark === undefined || o.mark !== entriesMark) return undefined;
      const approval = entries.get(keyOf(o.question));
      return approval && Date.parse(approval.expiresAt) > Date.now() ? approval : undefined;
    },
    set(o: { question: Parameters<typeof keyOf>[0]; mark: string | undefined; approval: Approval }): void {
      if (o.mark === undefined) return;
      if (o.mark !== entriesMark || entries.size >= PENDING_INDEX_SIZE) {
        entries.clear();
        entriesMark = o.mark;
      }
      entries.set(keyOf(o.question), o.approval);
    },
  };
}

export function withApprovals(options: {
  service: GuardService;
  store: MarkedApprovalStore;
  /** How long an approval stays open (default 15 minutes). */
  ttlMs?: number;
}): GuardService {
  const { service, store } = options;
  const ttlMs = options.ttlMs ?? DEFAULT_APPROVAL_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "approval ttlMs must be a positive whole number of milliseconds",
      details: { field: "ttlMs" },
    });
  }

  const known = pendingIndex({ store });

  /** An ask queued, or allowed by an approval of the same question; every other decision unchanged. */
  const settle = async (o: {
    decision: Decision;
    policy: string;
    question: Record<string, unknown>;
    caller: Caller | undefined;
    output: unknown;
  }): Promise<Decision> => {
    const { decision } = o;
    if (decision.verdict !== "ask" || decision.failure) return decision;
    const asked = {
      policy: o.policy,
      subjectDigest: subjectDigest({ subject: o.question }),
      caller: callerName(o.caller),
    };
    const mark = known.mark();
    const cached = known.get({ question: asked, mark });
    if (cached) return asPending({ decision, approval: cached });
    const used = await store.useApproval(asked);
    if (used) return approvedDecision({ decision, approval: used, output: o.output });
    const pending =
      (await store.findPendingApproval(asked)) ??
      (await store.createApproval({
        approval: {
          ...asked,
          ...(decision.policy ? { policyVersion: decision.policy.version } : {}),
          subject: o.question,
          rules: decision.violations.map((v) => v.ruleId),
          explanation: decision.explanation,
          expiresAt: new Date(Date.now() + ttlMs).toISOString(),
        },
      }));
    known.set({ question: asked, mark, approval: pending });
    return asPending({ decision, approval: pending });
  };

  return {
    defaultEngine: service.defaultEngine,
    listPolicies: () => service.listPolicies(),
    getPolicy: (o) => service.getPolicy(o),
    getEngine: (o) => service.getEngine(o),
    async check(o: CheckOptions) {
      const decision = await service.check(o);
      return settle({
        decision,
        policy: o.policy,
        question: { check: questionOf(o.subject as Record<string, unknown>) },
        caller: o.caller,
        output: o.subject.output,
      });
    },
    async checkToolCall(o) {
      const decision = await service.checkToolCall(o);
      return settle({
        decision,
        policy: o.policy,
        question: { toolCall: questionOf(o.call as Record<string, unknown>) },
        caller: o.caller,
        output: toolCallSubject({ tool: o.call.name, args: o.call.arguments }).output,
      });
    },
    feedback: (o) => service.feedback(o),
    stats: () => service.stats(),
    close: () => service.close(),
  };
}

/** A human's decision on an approval, as the desk reports it to `onDecided` (the audit log). */
export interface ApprovalDecidedEvent {
  approval: Approval;
  decision: "approve" | "deny";
  /** The caller (API key) that carried the decision. */
  caller: Caller;
}

/**
 * The audit log's record of a human's decision (h1's AuditEvent, kind "approval"): who decided, the
 * approval and the question's digest. The faces pass it to the audit log's recordAuditEvent.
 */
export function approvalAuditEvent(options: ApprovalDecidedEvent & { face: string }) {
  const { approval, decision } = options;
  return {
    kind: "approval" as const,
    policy: approval.policy,
    ...(approval.policyVersion !== undefined ? { policyVersion: approval.policyVersion } : {}),
    verdict: decision === "approve" ? ("allow" as const) : ("deny" as const),
    allowed: decision === "approve",
    rules: approval.rules,
    explanation: `${decision === "approve" ? "approved" : "denied"} by ${approval.decidedBy ?? options.caller.name} at ${approval.decidedAt ?? "?"} (asked by ${approval.caller})`,
    caller: approval.decidedBy ?? options.caller.name,
    subjectDigest: approval.subjectDigest,
    approvalId: approval.id,
    face: options.face,
  };
}

/** An `onDecided` that writes each human decision to the audit log of `store` (an "approval" row). */
export function auditApprovalDecisions(options: {
  store: Store;
  face: string;
}): (event: ApprovalDecidedEvent) => Promise<void> {
  return async (event) => {
    await recordAuditEvent({
      store: options.store,
      event: approvalAuditEvent({ ...event, face: options.face }),
    });
  };
}

export interface ApprovalDesk {
  list(options: { status?: Approval["status"]; limit?: number }): Promise<Approval[]>;
  /** The approval, or throws INVALID_INPUT with reason "approval-not-found" (404). */
  get(options: { id: string }): Promise<Approval>;
  /**
   * Approves or denies a pending approval; an approval no longer pending (decided, expired) is refused
   * with INVALID_INPUT reason "approval-not-pending" (409), naming its status.
   */
  decide(options: {
    id: string;
    decision: "approve" | "deny";
    by: string;
    caller: Caller;
  }): Promise<Approval>;
  /** The approval once it is no longer pending, or as it stands after `waitMs` (bounded by MAX_APPROVAL_WAIT_MS). */
  wait(options: { id: string; waitMs: number; signal?: AbortSignal }): Promise<Approval>;
}

/** INVALID_INPUT with reason "approval-not-found" (404): unknown, or not the caller's to see. */
export function approvalNotFound(options: { id: string }): WardenError {
  return new WardenError({
    code: "INVALID_INPUT",
    message: `no approval with id "${options.id.slice(0, 200)}"`,
    details: { reason: "approval-not-found", field: "id" },
  });
}

export function createApprovalDesk(options: {
  store: ApprovalStore;
  /** Called after each decision is stored (the audit log's approval events). */
  onDecided?: (event: ApprovalDecidedEvent) => Promise<void> | void;
  pollMs?: number;
}): ApprovalDesk {
  const { store } = options;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  /** Waits in this process, by approval id: woken at once by a decision made here. */
  const waiters = new Map<string, Set<() => void>>();

  const get = async ({ id }: { id: string }) => {
    const approval = await store.getApproval({ id });
    if (!approval) throw approvalNotFound({ id });
    return approval;
  };

  return {
    list: (o) => store.listApprovals(o),
    get,
    async decide({ id, decision, by, caller }) {
      const outcome = await store.decideApproval({ id, decision, by });
      if (!outcome) throw approvalNotFound({ id });
      const { approval } = outcome;
      if (!outcome.decided) {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: `approval ${id} is ${approval.status}${approval.decidedBy ? ` (by ${approval.decidedBy})` : ""}, not pending: it cannot be decided again`,
          details: { reason: "approval-not-pending", status: approval.status },
        });
      }
      for (const wake of waiters.get(id) ?? []) wake();
      await options.onDecided?.({ approval, decision, caller });
      return approval;
    },
    async wait({ id, waitMs, signal }) {
      const limit = Math.max(0, Math.min(waitMs, MAX_APPROVAL_WAIT_MS));
      const deadline = Date.now() + limit;
      let approval = await get({ id });
      while (approval.status === "pending" && Date.now() < deadline && !signal?.aborted) {
        const expiresIn = Date.parse(approval.expiresAt) - Date.now();
        await new Promise<void>((resolve) => {
          const set = waiters.get(id) ?? new Set();
          waiters.set(id, set);
          const done = () => {
            clearTimeout(timer);
            set.delete(done);
            if (set.size === 0) waiters.delete(id);
            signal?.removeEventListener("abort", done);
            resolve();
          };
          const timer = setTimeout(done, Math.max(1, Math.min(pollMs, deadline - Date.now(), expiresIn + 1)));
          set.add(done);
          signal?.addEventListener("abort", done, { once: true });
        });
        approval = await get({ id });
      }
      return approval;
    },
  };
}
