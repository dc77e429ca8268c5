/**
 * The audit log as the faces use it: `withAudit` wraps a GuardService so that every decision it answers
 * is first written to the store's hash chain (src/store/audit-chain.ts), and `recordAuditEvent` lets other
 * features (a human deciding an approval) append their own rows. A wrapper, not a change to the service:
 * approvals wrap inside it, so the row records the final decision and its approval id.
 *
 * Fail closed: by default ("sync") a decision is answered only after its row is committed, and a row that
 * cannot be written turns the answer into a deny (failure code STORE_ERROR), never a silent allow.
 * "async" answers at once and writes behind (a failed write is reported to onWarning, and close waits for
 * writes in flight); it is for callers that value latency over the guarantee.
 */
import type { Caller } from "../core/caller.js";
import { type Decision, failureDecision } from "../core/decision.js";
import { toWardenError } from "../core/errors.js";
import { canonicalSubject, digestOfCanonical, subjectDigest } from "../core/subject-digest.js";
import type { AuditEntry, NewAuditEntry, Store } from "../store/store.js";
import type { GuardService } from "./guard-service.js";

/** What a caller records: a decision, or a human's decision on an approval. */
export type AuditEvent = NewAuditEntry;

export type AuditMode = "sync" | "async";

export interface AuditOptions {
  /** The store whose audit log gets the rows. */
  store: Store;
  /** Keep the checked subject itself in each row, not only its digest (default false). */
  auditSubjects?: boolean;
  /** "sync" (default): answer after the row is written; "async": write behind. */
  auditMode?: AuditMode;
}

/** Appends one row to the audit log; resolves with it once committed. */
export function recordAuditEvent(options: { store: Store; event: AuditEvent }): Promise<AuditEntry> {
  return options.store.appendAuditEntry({ entry: options.event });
}

/** One digest for the audit log and the approval queue: core/subject-digest.ts. */
export { subjectDigest };

/** The row for one decision. */
export function decisionEvent(options: {
  decision: Decision;
  policy: string;
  subject: unknown;
  caller?: Caller;
  defaultCaller: string;
  latencyMs: number;
  face: string;
  auditSubjects: boolean;
}): AuditEvent {
  const { decision, subject } = options;
  const approvalId = (decision as { approval?: { id?: unknown } }).approval?.id;
  // Through JSON: what a face received is JSON, and the row keeps what reads back. The canonical text is
  // the digest's too (canonical JSON of its own parse is itself), so it is written once.
  const canonical = canonicalSubject({ subject });
  return {
    kind: "decision",
    policy: decision.policy?.name ?? options.policy,
    policyVersion: decision.policy?.version ?? "",
    engine: decision.engine,
    verdict: decision.verdict,
    allowed: decision.allowed,
    rules: decision.violations.map((v) => v.ruleId),
    explanation: decision.explanation,
    caller: options.caller?.name ?? options.defaultCaller,
    latencyMs: options.latencyMs,
    subjectDigest: digestOfCanonical({ canonical }),
    ...(options.auditSubjects ? { subject: JSON.parse(canonical) as unknown } : {}),
    ...(typeof approvalId === "string" ? { approvalId } : {}),
    face: options.face,
  };
}

/**
 * The service with every check and tool-call check recorded. `face` names who answered ("http",
 * "mcp-server", "cli-check"...); `defaultCaller` is the caller's name when a check names none.
 */
export function withAudit(
  options: AuditOptions & {
    service: GuardService;
    face: string;
    defaultCaller?: string;
    onWarning?: (options: { message: string; error?: unknown }) => void;
  },
): GuardService {
  const { service, store, face } = options;
  const mode = options.auditMode ?? "sync";
  const pending = new Set<Promise<unknown>>();
  const warn =
    options.onWarning ??
    (({ message }: { message: string }) => process.emitWarning(message, { code: "WARDEN_AUDIT_WRITE" }));

  const audited = async (o: {
    decision: Decision;
    policy: string;
    subject: unknown;
    caller?: Caller;
    started: number;
  }): Promise<Decision> => {
    // The fields written out, not `...o` first: on Node 20 an object literal that starts with a spread and
    // then adds keys cost about 7 µs (measured), more than building the whole row.
    const event = decisionEvent({
      decision: o.decision,
      policy: o.policy,
      subject: o.subject,
      ...(o.caller ? { caller: o.caller } : {}),
      defaultCaller: options.defaultCaller ?? "library",
      latencyMs: performance.now() - o.started,
      face,
      auditSubjects: options.auditSubjects ?? false,
    });
    if (mode === "async") {
      const write = recordAuditEvent({ store, event })
        .catch((error: unknown) =>
          warn({
            message: `audit: a ${o.decision.verdict} decision of policy ${event.policy} was not recorded (${toWardenError({ error }).message})`,
            error,
          }),
        )
        .finally(() => pending.delete(write));
      pending.add(write);
      return o.decision;
    }
    try {
      await recordAuditEvent({ store, event });
      return o.decision;
    } catch (error) {
      const message = `the audit log could not record this decision (${toWardenError({ error }).message}); denied, as every unrecorded decision is`;
      warn({ message, error });
      return failureDecision({
        engine: o.decision.engine,
        ...(o.decision.policy ? { policy: o.decision.policy } : {}),
        code: "STORE_ERROR",
        message,
        mode: "closed",
      });
    }
  };

  return {
    ...service,
    defaultEngine: service.defaultEngine,
    async check(check) {
      const started = performance.now();
      const decision = await service.check(check);
      return audited({
        decision,
        policy: check.policy,
        subject: check.subject,
        started,
        ...(check.caller ? { caller: check.caller } : {}),
      });
    },
    async checkToolCall(check) {
      const started = performance.now();
      const decision = await service.checkToolCall(check);
      // The call as asked (before its name is resolved to the policy's): what the caller can reproduce.
      return audited({
        decision,
        policy: check.policy,
        subject: { toolCall: check.call },
        started,
        ...(check.caller ? { caller: check.caller } : {}),
      });
    },
    async close() {
      await Promise.allSettled([...pending]);
      await service.close();
    },
  };
}
