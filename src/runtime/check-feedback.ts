/**
 * Labelled feedback on live checks: the only way a long-running guard learns. Learning from whatever the
 * model decided would let any caller — the agent included — teach the guard ("memory poisoning"), so a
 * case is stored only when someone trusted with scope "memory:write" gives its label and the model's
 * decision agrees with it (learn = "correct-only"). The label must be about a check this guard decided:
 * the decision (with the program that reached it) is looked up among the recent checks, never taken from
 * the caller, so feedback cannot plant code the guard did not write.
 */
import { z } from "zod";
import type { Caller } from "../core/caller.js";
import type { Decision } from "../core/decision.js";
import { toWardenError, WardenError } from "../core/errors.js";
import { lazyModule } from "../core/lazy-module.js";
import type { Subject } from "../core/subject.js";
import { parseWith } from "../core/validate.js";

/** What a caller says about one check: which label was right for it. */
export interface CheckFeedback {
  policy: string;
  /** The subject as it was checked (its input and output identify the check). */
  subject: Subject;
  /** The right answer: "allow" (nothing violated) or "deny". */
  label: "allow" | "deny";
  /** Who gives the label; needs scope "memory:write". */
  caller: Caller;
}

export interface FeedbackResult {
  /** Whether the case was added to memory. */
  stored: boolean;
  /** Why (not), in words. */
  reason: string;
}

/** Where a labelled case goes: the GuardAgent engine's feedback (absent when learning is off). */
export type FeedbackSink = (options: {
  subject: Subject;
  decision: Decision;
  correct: boolean;
}) => Promise<boolean>;

/** Built when feedback is first given: a one-shot check (`warden hook`) never takes any. */
const FeedbackSchema = z.lazy(() =>
  z.object({
    policy: z.string().min(1),
    subject: z.object({ input: z.string(), output: z.string() }).passthrough(),
    label: z.enum(["allow", "deny"]),
    caller: z.object({ name: z.string(), scopes: z.array(z.string()) }).passthrough(),
  }),
);

/** Hashes a check only when feedback is on: `warden check` (no feedback sink) never loads node:crypto. */
const crypto = lazyModule<typeof import("node:crypto")>({ specifier: "node:crypto" });

/** Checks kept for feedback; the oldest go first. */
const RECENT_CHECKS = 1024;

function checkKey(options: { policy: string; subject: Subject }): string {
  const { policy, subject } = options;
  return crypto()
    .createHash("sha256")
    .update(JSON.stringify([policy, subject.input, subject.output]))
    .digest("hex");
}

/** Whether the decision came from a guardrail program that ran (only such cases can be learned). */
function learnable(decision: Decision): boolean {
  return Boolean(decision.trace?.plan && decision.trace.code && !decision.failure);
}

export interface FeedbackDesk {
  /** Keeps a decided check for later feedback (only model programs; others cannot be learned). */
  record(options: { policy: string; subject: Subject; decision: Decision }): void;
  give(options: CheckFeedback): Promise<FeedbackResult>;
}

export function createFeedbackDesk(options: { sink?: FeedbackSink | undefined }): FeedbackDesk {
  const { sink } = options;
  const recent = new Map<string, { subject: Subject; decision: Decision }>();
  return {
    record({ policy, subject, decision }) {
      if (!sink || !learnable(decision)) return;
      const key = checkKey({ policy, subject });
      recent.delete(key);
      recent.set(key, { subject, decision });
      while (recent.size > RECENT_CHECKS) recent.delete(recent.keys().next().value as string);
    },
    async give(raw) {
      const given = parseWith({ schema: FeedbackSchema, value: raw, what: "feedback" });
      if (!given.caller.scopes.includes("memory:write")) {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: `caller ${given.caller.name} may not teach memory: labelled feedback needs scope "memory:write"`,
          details: { field: "caller", reason: "forbidden", scope: "memory:write" },
        });
      }
      if (!sink) {
        return {
          stored: false,
          reason:
            'learning is off: start the guard with learn "correct-only" to learn from labelled feedback',
        };
      }
      const found = recent.get(checkKey({ policy: given.policy, subject: raw.subject }));
      if (!found) {
        return {
          stored: false,
          reason: `no recent check of policy ${given.policy} with this input and output was decided by a guardrail program`,
        };
      }
      const correct = found.decision.allowed === (given.label === "allow");
      let stored: boolean;
      try {
        stored = await sink({ subject: found.subject, decision: found.decision, correct });
      } catch (error) {
        // Counted and reported by the memory (memory-bank.ts); the caller learns it was not stored.
        throw toWardenError({ error, code: "STORE_ERROR", message: "storing the labelled case failed" });
      }
      return {
        stored,
        reason: stored
          ? "stored: the guard's decision agrees with the label"
          : correct
            ? "not stored: the case is already in memory, or its program was overruled by the compiled rules"
            : "not stored: the guard's decision disagrees with the label, so its program would teach the wrong answer",
      };
    },
  };
}
