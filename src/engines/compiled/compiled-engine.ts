/**
 * The compiled engine: policy logic compiled once, facts extracted per check, the decision computed by
 * code — no model, microseconds. When a fact cannot be determined with confidence it fails closed and
 * names the fact (the `auto` engine falls back to a model instead).
 */
import { allowDecision, type Decision, denyDecision, failureDecision } from "../../core/decision.js";
import { isCompiled, type Policy, policyRef } from "../../core/policy.js";
import type { Subject } from "../../core/subject.js";
import { agentAnswer } from "../common/agent-answer.js";
import type { CheckOptions, Engine } from "../engine.js";
import { compilePolicyRules } from "./compiled-policy.js";
import { decide } from "./decide.js";
import { type CompiledFacts, extractFacts } from "./extract-facts.js";

export interface CompiledEngine extends Engine {
  /** Facts only: what `auto` looks at to choose the compiled path. */
  extract(options: { policy: Policy; subject: Subject }): CompiledFacts;
  /** Decide from facts already extracted (the caller has checked `facts.missing`). */
  decideFacts(options: {
    policy: Policy;
    subject: Subject;
    facts: CompiledFacts;
    started?: number;
  }): Decision;
}

function factsForTrace(facts: CompiledFacts): Record<string, unknown> {
  return {
    ...(facts.identity ? { role: facts.identity.role ?? null, attributes: facts.identity.attributes } : {}),
    ...(facts.resources ? { resources: facts.resources } : {}),
    ...(facts.task !== undefined ? { task: facts.task } : {}),
    ...(facts.categories
      ? {
          categories: facts.categories.categories.map((c) => ({
            rule: c.ruleId,
            strength: c.strength,
            evidence: c.evidence,
          })),
          categoryConfidence: facts.categories.confidence,
        }
      : {}),
    ...(facts.toolCalls ? { toolCalls: facts.toolCalls.map((c) => ({ name: c.name, args: c.args })) } : {}),
    ...(facts.missing.length ? { missing: facts.missing } : {}),
  };
}

export function createCompiledEngine(options: { failMode?: "closed" | "open" } = {}): CompiledEngine {
  const name = "compiled";
  const failMode = options.failMode ?? "closed";

  function decideFacts(o: {
    policy: Policy;
    subject: Subject;
    facts: CompiledFacts;
    started?: number;
  }): Decision {
    const started = o.started ?? performance.now();
    const compiled = compilePolicyRules({ policy: o.policy });
    const verdict = decide({ compiled, facts: o.facts });
    const trace = {
      attempts: [],
      facts: factsForTrace(o.facts),
      ...(o.facts.notes.length ? { notes: o.facts.notes } : {}),
    };
    const base = { engine: name, policy: policyRef(o.policy), trace };
    const decision =
      verdict.effect === "allow"
        ? allowDecision({
            ...base,
            output: agentAnswer({ policy: o.policy, subject: o.subject }),
            explanation: verdict.reasons.length
              ? `Allowed: ${verdict.reasons.join("; ")}.`
              : "No rule of the policy applies.",
          })
        : denyDecision({ ...base, violations: verdict.violations, verdict: verdict.effect });
    return {
      ...decision,
      cost: { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: performance.now() - started },
    };
  }

  return {
    name,
    extract({ policy, subject }) {
      return extractFacts({ compiled: compilePolicyRules({ policy }), subject });
    },
    decideFacts,
    async check({ policy, subject }: CheckOptions): Promise<Decision> {
      const started = performance.now();
      if (!isCompiled(policy)) {
        return failureDecision({
          engine: name,
          policy: policyRef(policy),
          code: "UNSUPPORTED",
          message: `policy ${policy.name} has no compiled rules; use the guardagent or baseline engine with a model, or compile it (warden compile)`,
          mode: failMode,
          output: agentAnswer({ policy, subject }),
        });
      }
      const facts = extractFacts({ compiled: compilePolicyRules({ policy }), subject });
      if (facts.missing.length > 0) {
        const d = failureDecision({
          engine: name,
          policy: policyRef(policy),
          code: "EXTRACTION_FAILED",
          message: `could not determine ${facts.missing.join("; ")}`,
          mode: failMode,
          output: agentAnswer({ policy, subject }),
          trace: { attempts: [], facts: factsForTrace(facts) },
        });
        return { ...d, cost: { ...d.cost, ms: performance.now() - started } };
      }
      return decideFacts({ policy, subject, facts, started });
    },
  };
}
