/**
 * The shortest way to use Warden as a library: a guard for one policy, with the default engine (compiled
 * when it can decide, the model pipeline when a model is given and it cannot), that answers Decisions.
 *
 *   const guard = await createGuard({ policy: "mcp-tools" });
 *   const decision = await guard.checkToolCall({ name: "github.delete_repository", arguments: { repo: "x" } });
 *   if (!decision.allowed) ...
 *   const answer = await guard.check({ input: "Clean up old repos", output: finalAnswer });
 *
 * By default the guard takes the facts about what the agent did (`context.resources`, `code`,
 * `toolCall(s)`, `toolSchemas`, `cwd`) from the agent output, and only compares what the context claims
 * (engines/compiled/context-facts.ts); `trustContextFacts: true` takes them as given, for an application
 * that builds the context itself from what the agent really did. Memory learns only from labelled
 * `feedback` (with `learn: "correct-only"`).
 */
import { CALLER_SCOPES, type Caller } from "./core/caller.js";
import type { Decision } from "./core/decision.js";
import type { Policy } from "./core/policy.js";
import { type SubjectInput, SubjectSchema } from "./core/subject.js";
import { type ToolCallInput, ToolCallSchema } from "./core/tool-call.js";
import { parseWith } from "./core/validate.js";
import type { FeedbackResult } from "./runtime/check-feedback.js";
import type { EngineName } from "./runtime/create-engine.js";
import { openGuardService } from "./runtime/open-guard-service.js";

export interface GuardOptions {
  /** A bundled policy name, a policy file or directory. */
  policy: string;
  engine?: EngineName;
  /** "provider:model-id", enabling the model pipeline (e.g. "openai:gpt-4o"). */
  model?: string;
  baseUrl?: string;
  /** Memory database for the model engines (default $WARDEN_STORE or ~/.local/state/warden/warden.db). */
  store?: string;
  failMode?: "closed" | "open";
  /**
   * Take `subject.context`'s facts about what the agent did (resources, code, toolCall/toolCalls,
   * toolSchemas, cwd) as given, instead of comparing them with the agent output (default false). Only
   * for an application that fills them from what the agent really did, never from the agent's own say.
   */
  trustContextFacts?: boolean;
  /**
   * Learning from labelled feedback: "correct-only" stores a case `feedback` confirms; "off" (default)
   * never learns. Storing whatever the model decided ("successful") is refused: any input could teach it.
   */
  learn?: "off" | "correct-only";
  /**
   * Record every decision in the audit log of `store` (runtime/audit-log.ts; `warden audit` reads it).
   * Default: on when `store` is given. A decision is answered after its row is written unless
   * `auditMode: "async"`; a row that cannot be written makes the decision a deny.
   */
  audit?: boolean;
  /** Keep each checked subject in its audit row, not only its SHA-256 digest. */
  auditSubjects?: boolean;
  auditMode?: "sync" | "async";
}

export interface Guard {
  readonly policy: Policy;
  check(subject: SubjectInput): Promise<Decision>;
  /**
   * One tool call about to run: `{ name, arguments, history?, input?, context? }`. The name may be the
   * provider's (`email_send` for the policy's `email.send`, see core/tool-names.ts); the history is the
   * run so far (earlier calls with their results), which temporal rules and the shield see. The call
   * itself is the check's own fact; other context facts are taken as `trustContextFacts` says.
   */
  checkToolCall(call: ToolCallInput): Promise<Decision>;
  /**
   * The right label for a subject this guard checked: with `learn: "correct-only"` the case is stored
   * as a demonstration when the guard's (model-decided) decision agrees. An explicit call is trusted.
   */
  feedback(options: { subject: SubjectInput; label: "allow" | "deny" }): Promise<FeedbackResult>;
  close(): Promise<void>;
}

/** The library's own caller: code that calls the guard in-process is trusted with what it calls. */
const LIBRARY_CALLER: Caller = { name: "library", scopes: CALLER_SCOPES };

export async function createGuard(options: GuardOptions): Promise<Guard> {
  const service = await openGuardService({
    policies: [options.policy],
    ...(options.engine ? { engine: options.engine } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.store ? { store: options.store } : {}),
    failOpen: options.failMode === "open",
    ...(options.learn ? { learn: options.learn } : {}),
    ...(options.audit !== undefined ? { audit: options.audit } : {}),
    ...(options.auditSubjects !== undefined ? { auditSubjects: options.auditSubjects } : {}),
    ...(options.auditMode ? { auditMode: options.auditMode } : {}),
  });
  const trust = { contextFacts: options.trustContextFacts === true };
  const subjectOf = (subject: SubjectInput) =>
    parseWith({ schema: SubjectSchema, value: subject, what: "subject", path: "subject" });
  const name = service.listPolicies()[0]!.name;
  return {
    policy: service.getPolicy({ name }),
    check: async (subject) => service.check({ policy: name, subject: subjectOf(subject), trust }),
    checkToolCall: async (call) =>
      service.checkToolCall({
        policy: name,
        call: parseWith({ schema: ToolCallSchema, value: call, what: "tool call", path: "call" }),
        trust,
      }),
    feedback: async ({ subject, label }) =>
      service.feedback({ policy: name, subject: subjectOf(subject), label, caller: LIBRARY_CALLER }),
    close: () => service.close(),
  };
}
