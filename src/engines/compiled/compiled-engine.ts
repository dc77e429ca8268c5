/**
 * The compiled engine: policy logic compiled once, facts extracted per check, the decision computed by
 * code — no model, microseconds. When a fact cannot be determined with confidence — or a tool rule's
 * outcome depends on a value that could not be determined — it fails closed and names it (the `auto`
 * engine falls back to a model instead).
 *
 * The compiled path is synchronous. Given an `offload` (src/runtime/offload/check-pool.ts), a check of a
 * large subject runs it in a worker thread instead — the same code, so the same decision — which keeps
 * the event loop free and lets a check's time limit fire; `assessAsync` and `check` take that route,
 * and every engine built on this one (auto, the deterministic floor) inherits it.
 */

import type { CheckTrust } from "../../core/caller.js";
import {
  allowDecision,
  type Cost,
  type Decision,
  denyDecision,
  failureDecision,
} from "../../core/decision.js";
import { isCompiled, type Policy, policyRef } from "../../core/policy.js";
import type { Subject } from "../../core/subject.js";
import { agentAnswer } from "../common/agent-answer.js";
import type { CheckOptions, Engine } from "../engine.js";
import { withInlineCheck } from "../inline-check.js";
import { type CompiledPolicy, compilePolicyRules } from "./compiled-policy.js";
import { type CompiledVerdict, decide } from "./decide.js";
import { type CompiledFacts, extractFacts } from "./extract-facts.js";
import { extractorsLoaded, loadExtractors } from "./extractors/load-extractors.js";

/**
 * What the compiled path makes of one check: a decision, or what it could not determine (missing facts,
 * undetermined tool-rule outcomes) in words.
 */
export type CompiledAssessment =
  | { decided: true; decision: Decision }
  | { decided: false; undetermined: string[]; facts: CompiledFacts };

/**
 * What `assess` takes. The check pool forwards every field but `started` to its worker as is, so a field
 * added here reaches the worker's assessment without more wiring.
 */
export interface AssessOptions {
  policy: Policy;
  subject: Subject;
  started?: number;
  /** Leave the temporal rules to the shield (auto). */
  skipTemporal?: boolean;
  /** What the caller is trusted with (default: nothing; see context-facts.ts). */
  trust?: CheckTrust | undefined;
}

/**
 * Somewhere other than the event loop to run `assess` (the check pool). The engine asks `wants` per
 * check, of the part of the subject the check reads (checkedPart); a subject it does not want is assessed
 * inline.
 */
export interface CompiledOffload {
  /** Whether this subject is large enough to be assessed off the event loop. */
  wants(options: { subject: Subject }): boolean;
  /**
   * `assess` in another thread. Rejects with the signal's reason when it aborts (the work is then
   * stopped); a worker that fails answers a fail-closed decision.
   */
  assess(
    options: Omit<AssessOptions, "started"> & { failMode: "closed" | "open"; signal?: AbortSignal },
  ): Promise<CompiledAssessment>;
}

export interface CompiledEngine extends Engine {
  /**
   * The compiled path in one go: `auto` decides with it when it decides, and otherwise falls back on
   * what it reports as undetermined. `skipTemporal` leaves the temporal rules to the shield.
   */
  assess(options: AssessOptions): CompiledAssessment;
  /**
   * `assess` when it needs no waiting (no offload wants the subject, the policy's extractors are loaded),
   * else undefined: then `assessAsync`.
   */
  assessInline(options: AssessOptions): CompiledAssessment | undefined;
  /** `assess`, off the event loop when the engine has an offload that wants this subject. */
  assessAsync(options: AssessOptions & { signal?: AbortSignal }): Promise<CompiledAssessment>;
  /** Facts only: what `auto` looks at to choose the compiled path. */
  extract(options: { policy: Policy; subject: Subject; trust?: CheckTrust | undefined }): CompiledFacts;
  /**
   * Decide from facts already extracted (the caller has checked `facts.missing`); an undetermined
   * tool-rule outcome still gives a fail-closed decision.
   */
  decideFacts(options: {
    policy: Policy;
    subject: Subject;
    facts: CompiledFacts;
    started?: number;
  }): Decision;
}

/** The facts as the trace shows them; built key by key rather than from spreads (it runs per check). */
function factsForTrace(facts: CompiledFacts): Record<string, unknown> {
  const { identity, resources } = facts;
  // The usual facts of an access policy (EICU-AC): identity and resources only. One literal, in the
  // key order the general case gives, is built in its final shape at once.
  if (
    identity &&
    resources &&
    facts.task === undefined &&
    !facts.categories &&
    !facts.toolCalls &&
    facts.missing.length === 0
  ) {
    return { role: identity.role ?? null, attributes: identity.attributes, resources };
  }
  const out: Record<string, unknown> = {};
  if (identity) {
    out.role = identity.role ?? null;
    out.attributes = identity.attributes;
  }
  if (resources) out.resources = resources;
  if (facts.task !== undefined) out.task = facts.task;
  if (facts.categories) {
    out.categories = facts.categories.categories.map((c) => ({
      rule: c.ruleId,
      strength: c.strength,
      evidence: c.evidence,
    }));
    out.categoryConfidence = facts.categories.confidence;
  }
  if (facts.toolCalls) out.toolCalls = facts.toolCalls.map((c) => ({ name: c.name, args: c.args }));
  if (facts.missing.length) out.missing = facts.missing;
  return out;
}

/**
 * The part of a subject the compiled check reads, which is what the offload weighs: the input, output and
 * context, and of the trajectory only its last step (resolveToolCalls; the earlier steps are the shield's,
 * and a policy with temporal rules is left to it). Weighing the whole subject made a long session look
 * larger with every step, and walked every earlier step on every check (the MCP proxy passes 50).
 */
function checkedPart(subject: Subject): Subject {
  const steps = subject.trajectory;
  if (steps === undefined || steps.length <= 1) return subject;
  const part: Subject = {
    input: subject.input,
    output: subject.output,
    trajectory: [steps[steps.length - 1]!],
  };
  if (subject.context !== undefined) part.context = subject.context;
  return part;
}

/** A zero cost whose `ms` is filled in when the decision is complete. */
function modelFreeCost(): Cost {
  return { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 };
}

export function createCompiledEngine(
  options: {
    failMode?: "closed" | "open";
    /** Where checks of large subjects run (default: none, every check inline). */
    offload?: CompiledOffload;
  } = {},
): CompiledEngine {
  const name = "compiled";
  const failMode = options.failMode ?? "closed";
  const { offload } = options;

  /**
   * decideFacts with the policy already compiled (check has it at hand: one cache lookup less per
   * check), and the verdict when it is already computed. Private, so plain parameters rather than an
   * options object.
   */
  function decideCompiled(
    compiled: CompiledPolicy,
    subject: Subject,
    facts: CompiledFacts,
    started: number,
    verdict: CompiledVerdict = decide({ compiled, facts }),
  ): Decision {
    const policy = compiled.policy;
    if (verdict.undetermined)
      return undeterminedDecision(policy, subject, facts, verdict.undetermined, started);
    const trace = facts.notes.length
      ? { attempts: [], facts: factsForTrace(facts), notes: facts.notes }
      : { attempts: [], facts: factsForTrace(facts) };
    // The cost object goes into the decision as it is built and gets its time last, which saves
    // copying the whole decision to set one field.
    const cost = modelFreeCost();
    const decision =
      verdict.effect === "allow"
        ? allowDecision({
            engine: name,
            policy: policyRef(policy),
            trace,
            cost,
            output: agentAnswer({ policy, subject }),
            explanation: verdict.reasons.length
              ? `Allowed: ${verdict.reasons.join("; ")}.`
              : "No rule of the policy applies.",
          })
        : denyDecision({
            engine: name,
            policy: policyRef(policy),
            trace,
            cost,
            violations: verdict.violations,
            verdict: verdict.effect,
          });
    cost.ms = performance.now() - started;
    return decision;
  }

  /** The fail-closed (or open, if so configured) decision for what could not be determined. */
  function undeterminedDecision(
    policy: Policy,
    subject: Subject,
    facts: CompiledFacts,
    undetermined: readonly string[],
    started: number,
  ): Decision {
    const cost = modelFreeCost();
    const d = failureDecision({
      engine: name,
      policy: policyRef(policy),
      cost,
      code: "EXTRACTION_FAILED",
      message: `could not determine ${undetermined.join("; ")}`,
      mode: failMode,
      output: agentAnswer({ policy, subject }),
      trace: {
        attempts: [],
        facts: facts.missing.length > 0 ? factsForTrace(facts) : { ...factsForTrace(facts), undetermined },
      },
    });
    cost.ms = performance.now() - started;
    return d;
  }

  function assess(o: AssessOptions): CompiledAssessment {
    const started = o.started ?? performance.now();
    const compiled = compilePolicyRules({ policy: o.policy });
    const facts = extractFacts({
      compiled,
      subject: o.subject,
      ...(o.skipTemporal ? { skipTemporal: true } : {}),
      trust: o.trust,
    });
    if (facts.missing.length > 0) return { decided: false, undetermined: facts.missing, facts };
    const verdict = decide({ compiled, facts });
    if (verdict.undetermined) return { decided: false, undetermined: verdict.undetermined, facts };
    return { decided: true, decision: decideCompiled(compiled, o.subject, facts, started, verdict) };
  }

  /** `assess` when it can run now: on the event loop (no offload wants the subject), extractors loaded. */
  function assessInline(o: AssessOptions): CompiledAssessment | undefined {
    if (offload?.wants({ subject: checkedPart(o.subject) }) || !extractorsLoaded({ policy: o.policy }))
      return undefined;
    return assess(o);
  }

  /**
   * `assess` at once when it can run inline with its extractors loaded (the usual check: no promise
   * made and no turn of the event loop awaited), else a promise of it: after loading the extractors,
   * or from the offload that wants this subject.
   */
  function assessNowOrLater(
    o: AssessOptions & { signal?: AbortSignal },
  ): CompiledAssessment | Promise<CompiledAssessment> {
    if (!offload?.wants({ subject: checkedPart(o.subject) })) {
      // assess reads only the fields it takes: `signal` is not passed on.
      if (extractorsLoaded({ policy: o.policy })) return assess(o);
      return loadExtractors({ policy: o.policy }).then(() => assess(o));
    }
    return assessOffloaded(offload, o);
  }

  async function assessOffloaded(
    to: CompiledOffload,
    o: AssessOptions & { signal?: AbortSignal },
  ): Promise<CompiledAssessment> {
    const { signal, started = performance.now(), ...forwarded } = o;
    const assessed = await to.assess({ ...forwarded, failMode, ...(signal ? { signal } : {}) });
    // The worker timed its own part; the decision's cost is the whole check, as inline.
    if (assessed.decided) assessed.decision.cost.ms = performance.now() - started;
    return assessed;
  }

  async function assessAsync(o: AssessOptions & { signal?: AbortSignal }): Promise<CompiledAssessment> {
    return assessNowOrLater(o);
  }

  function decideFacts(o: {
    policy: Policy;
    subject: Subject;
    facts: CompiledFacts;
    started?: number;
  }): Decision {
    const started = o.started ?? performance.now();
    return decideCompiled(compilePolicyRules({ policy: o.policy }), o.subject, o.facts, started);
  }

  /** The answer to a policy with no compiled rules: nothing to run. */
  function unsupported(policy: Policy, subject: Subject): Decision {
    return failureDecision({
      engine: name,
      policy: policyRef(policy),
      code: "UNSUPPORTED",
      message: `policy ${policy.name} has no compiled rules; use the guardagent or baseline engine with a model, or compile it (warden compile)`,
      mode: failMode,
      output: agentAnswer({ policy, subject }),
    });
  }

  /** The decision of an assessment: its own, or the fail-closed one of what it could not determine. */
  function decisionOf(assessed: CompiledAssessment, policy: Policy, subject: Subject, started: number) {
    if (assessed.decided) return assessed.decision;
    return undeterminedDecision(policy, subject, assessed.facts, assessed.undetermined, started);
  }

  const engine: CompiledEngine = {
    name,
    extract({ policy, subject, trust }) {
      return extractFacts({ compiled: compilePolicyRules({ policy }), subject, trust });
    },
    decideFacts,
    assess,
    assessInline,
    assessAsync,
    async check({ policy, subject, signal, trust }: CheckOptions): Promise<Decision> {
      const started = performance.now();
      if (!isCompiled(policy)) return unsupported(policy, subject);
      const now = assessNowOrLater({ policy, subject, started, trust, ...(signal ? { signal } : {}) });
      return decisionOf(now instanceof Promise ? await now : now, policy, subject, started);
    },
  };
  // `check` without waiting: the same steps, when the assessment can run now (inline-check.ts).
  return withInlineCheck({
    engine,
    inline: ({ policy, subject, trust }) => {
      const started = performance.now();
      if (!isCompiled(policy)) return unsupported(policy, subject);
      const assessed = assessInline({ policy, subject, started, trust });
      return assessed && decisionOf(assessed, policy, subject, started);
    },
  });
}
