/**
 * The default engine. Uses the compiled path when the policy is compiled and every fact it needs was
 * extracted with confidence (and every tool rule's outcome determined); otherwise the model pipeline
 * (GuardAgent) when a model is configured; otherwise a fail-closed deny that says what could not be
 * determined.
 *
 * A policy with temporal (LTLf) rules goes to the shield, which judges them step by step together with
 * the policy's tool rules and `toolDefault` — deterministically: a model is asked only for Binary-Check
 * questions left open, and only when one is configured. Rules the shield does not judge (access,
 * attribute rules) are decided by the compiled path first, and their deny stands. So one policy may
 * hold every kind of rule without `auto` refusing what its rules allow.
 */

import type { CheckTrust } from "../core/caller.js";
import { type Decision, failureDecision } from "../core/decision.js";
import { isCompiled, type Policy, policyRef } from "../core/policy.js";
import type { Step, Subject } from "../core/subject.js";
import { withFields } from "../util/with-fields.js";
import { agentAnswer } from "./common/agent-answer.js";
import type { CompiledAssessment, CompiledEngine } from "./compiled/compiled-engine.js";
import { resolveToolCalls, trustsContextFacts } from "./compiled/context-facts.js";
import type { CheckOptions, Engine } from "./engine.js";
import { withInlineCheck } from "./inline-check.js";

export function createAutoEngine(options: {
  compiled: CompiledEngine;
  /** The model pipeline to fall back to; absent when no model is configured. */
  fallback?: Engine;
  /**
   * The shield engine for policies with temporal rules, or a function that builds it when first needed
   * (default: a shield without a model, built on first use).
   */
  shield?: Engine | (() => Promise<Engine>);
  failMode?: "closed" | "open";
}): Engine {
  const name = "auto";
  // withFields: a decision without a trace would make the spread literal cost microseconds (with-fields.ts).
  const withNote = (d: Decision, note: string): Decision =>
    withFields({
      base: d,
      fields: {
        engine: `${name}/${d.engine}`,
        trace: { attempts: [], ...d.trace, notes: [...(d.trace?.notes ?? []), note] },
      },
    });
  let shield: Promise<Engine> | undefined;
  const getShield = (): Promise<Engine> => {
    shield ??= (async () => {
      if (typeof options.shield === "function") return options.shield();
      if (options.shield) return options.shield;
      const { createShieldEngine } = await import("./shield/runtime/shield-engine.js");
      return createShieldEngine({ ...(options.failMode ? { failMode: options.failMode } : {}) });
    })();
    return shield;
  };

  /** A decision for a policy with temporal rules, or why none could be made without a model. */
  const decideTemporal = async (
    checkOptions: CheckOptions,
    started: number,
  ): Promise<{ decision: Decision } | { reason: string }> => {
    const { policy, subject } = checkOptions;
    let compiledFirst: Decision | undefined;
    if (hasRulesTheShieldIgnores(policy)) {
      const assessed = await options.compiled.assessAsync({
        policy,
        subject,
        started,
        skipTemporal: true,
        trust: checkOptions.trust,
        ...(checkOptions.signal ? { signal: checkOptions.signal } : {}),
      });
      if (!assessed.decided) return { reason: `could not determine ${assessed.undetermined.join("; ")}` };
      compiledFirst = assessed.decision;
      if (compiledFirst.verdict === "deny") {
        return {
          decision: withNote(
            compiledFirst,
            "compiled path: the access or attribute rules deny, whatever the temporal rules say",
          ),
        };
      }
    }
    const steps = stepsOf({ subject, trust: checkOptions.trust });
    if ("reason" in steps) return steps;
    const engine = await getShield();
    const d = await engine.check({
      ...checkOptions,
      subject: withFields({ base: subject, fields: { trajectory: steps.steps } }),
    });
    if (d.failure?.code === "EXTRACTION_FAILED") return { reason: d.failure.message };
    if (compiledFirst && !compiledFirst.allowed && d.allowed) {
      return { decision: withNote(compiledFirst, "compiled path: the access or attribute rules ask") };
    }
    return {
      decision: withNote(
        d,
        "shield path: the policy has temporal rules; the shield judged them with the tool rules at this step",
      ),
    };
  };

  /** A compiled assessment as auto answers it: its decision, noted, or why the model must decide. */
  const fromAssessment = (assessed: CompiledAssessment): { decision: Decision } | { reason: string } => {
    if (!assessed.decided) return { reason: `could not determine ${assessed.undetermined.join("; ")}` };
    const note = assessed.decision.failure
      ? "compiled path: the check could not be completed"
      : "compiled path: every fact was extracted with confidence";
    return { decision: withNote(assessed.decision, note) };
  };

  /**
   * What the compiled path answers without waiting: a decision, why it cannot decide, or undefined when
   * the answer needs waiting (temporal rules: the shield; a subject for the offload; extractors to load).
   */
  const compiledNow = (
    checkOptions: Omit<CheckOptions, "signal">,
    started: number,
  ): { decision: Decision } | { reason: string } | undefined => {
    const { policy, subject, trust } = checkOptions;
    if (!isCompiled(policy)) return { reason: `policy ${policy.name} has no compiled rules` };
    if ((policy.rules?.temporalRules?.length ?? 0) > 0) return undefined;
    const assessed = options.compiled.assessInline({ policy, subject, started, trust });
    return assessed && fromAssessment(assessed);
  };

  /** The fail-closed answer when the compiled path cannot decide and no model is configured. */
  const withoutModel = (
    checkOptions: Omit<CheckOptions, "signal">,
    reason: string,
    started: number,
  ): Decision => {
    const { policy, subject } = checkOptions;
    const d = failureDecision({
      engine: name,
      policy: policyRef(policy),
      code: "EXTRACTION_FAILED",
      message: `${reason}, and no model is configured to decide instead (pass --model)`,
      mode: options.failMode ?? "closed",
      output: agentAnswer({ policy, subject }),
    });
    return { ...d, cost: { ...d.cost, ms: performance.now() - started } };
  };

  const engine: Engine = {
    name,
    async check(checkOptions: CheckOptions): Promise<Decision> {
      const { policy, subject, trust, signal } = checkOptions;
      const started = performance.now();
      let outcome = compiledNow(checkOptions, started);
      if (!outcome) {
        outcome =
          (policy.rules?.temporalRules?.length ?? 0) > 0
            ? await decideTemporal(checkOptions, started)
            : fromAssessment(
                await options.compiled.assessAsync({
                  policy,
                  subject,
                  started,
                  trust,
                  ...(signal ? { signal } : {}),
                }),
              );
      }
      if ("decision" in outcome) return outcome.decision;
      if (options.fallback) {
        const d = await options.fallback.check(checkOptions);
        return withNote(d, `model path: ${outcome.reason}`);
      }
      return withoutModel(checkOptions, outcome.reason, started);
    },
    async close() {
      if (shield) await (await shield).close?.();
    },
  };
  // `check` without waiting, by the same steps: undefined whenever the model, the shield or the offload
  // would be needed (inline-check.ts).
  return withInlineCheck({
    engine,
    inline: (checkOptions) => {
      const started = performance.now();
      const outcome = compiledNow(checkOptions, started);
      if (!outcome) return undefined;
      if ("decision" in outcome) return outcome.decision;
      return options.fallback ? undefined : withoutModel(checkOptions, outcome.reason, started);
    },
  });
}

/** Whether the policy has rules the shield does not judge (access control, attribute rules). */
function hasRulesTheShieldIgnores(policy: Policy): boolean {
  const rules = policy.rules;
  return Boolean(rules?.access || (rules?.attributeRules?.length ?? 0) > 0);
}

/**
 * The steps the shield judges: the subject's trajectory, else the single tool call of the agent output
 * (the compiled engine's reading, context facts trusted or compared the same way) as a one-step
 * trajectory. Several calls or none, or a context claim that disagrees: why not.
 */
function stepsOf(options: {
  subject: Subject;
  trust?: CheckTrust | undefined;
}): { steps: Step[] } | { reason: string } {
  const { subject } = options;
  const context = subject.context ?? {};
  const hasTrajectory = subject.trajectory !== undefined && subject.trajectory.length > 0;
  // From an untrusted caller a context claim is compared with the agent's own record (the output's call,
  // else the trajectory's last step), and its disagreement is the reason.
  const compared = (context.toolCalls ?? context.toolCall) !== undefined && !trustsContextFacts(options);
  if (hasTrajectory && !compared) return { steps: subject.trajectory! };
  const resolved = resolveToolCalls(options);
  if (resolved.problem && compared) {
    return { reason: `could not determine the tool call (${resolved.problem})` };
  }
  if (hasTrajectory) return { steps: subject.trajectory! };
  if (resolved.problem || resolved.calls.length !== 1) {
    return {
      reason:
        "could not determine the steps the temporal rules judge (no trajectory, and not exactly one tool call in the agent output)",
    };
  }
  const call = resolved.calls[0]!;
  return { steps: [{ action: call.name, args: call.args }] };
}
