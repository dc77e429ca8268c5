/**
 * The default engine. Uses the compiled path when the policy is compiled and every fact it needs was
 * extracted with confidence; otherwise the model pipeline (GuardAgent) when a model is configured;
 * otherwise a fail-closed deny that says which fact could not be determined.
 */
import { type Decision, failureDecision } from "../core/decision.js";
import { isCompiled, policyRef } from "../core/policy.js";
import { agentAnswer } from "./common/agent-answer.js";
import type { CompiledEngine } from "./compiled/compiled-engine.js";
import type { CheckOptions, Engine } from "./engine.js";

export function createAutoEngine(options: {
  compiled: CompiledEngine;
  /** The model pipeline to fall back to; absent when no model is configured. */
  fallback?: Engine;
  failMode?: "closed" | "open";
}): Engine {
  const name = "auto";
  const withNote = (d: Decision, note: string): Decision => ({
    ...d,
    engine: `${name}/${d.engine}`,
    trace: { attempts: [], ...d.trace, notes: [...(d.trace?.notes ?? []), note] },
  });
  return {
    name,
    async check(checkOptions: CheckOptions): Promise<Decision> {
      const { policy, subject } = checkOptions;
      const started = performance.now();
      let reason: string;
      if (isCompiled(policy)) {
        const facts = options.compiled.extract({ policy, subject });
        if (facts.missing.length === 0) {
          return withNote(
            options.compiled.decideFacts({ policy, subject, facts, started }),
            "compiled path: every fact was extracted with confidence",
          );
        }
        reason = `could not determine ${facts.missing.join("; ")}`;
      } else {
        reason = `policy ${policy.name} has no compiled rules`;
      }
      if (options.fallback) {
        const d = await options.fallback.check(checkOptions);
        return withNote(d, `model path: ${reason}`);
      }
      const d = failureDecision({
        engine: name,
        policy: policyRef(policy),
        code: "EXTRACTION_FAILED",
        message: `${reason}, and no model is configured to decide instead (pass --model)`,
        mode: options.failMode ?? "closed",
        output: agentAnswer({ policy, subject }),
      });
      return { ...d, cost: { ...d.cost, ms: performance.now() - started } };
    },
  };
}
