/**
 * Engine `llamaguard`: GuardAgent's "model guarding models" baseline. One call to a model serving Llama
 * Guard through any OpenAI-compatible server (vLLM, Ollama, llama.cpp), classifying the agent's output
 * (with its input as the user turn) against the policy's guard requests as hazard categories
 * (./llamaguard-prompt.ts). `safe` is an allow; `unsafe` a deny whose violations name the categories;
 * anything else, or no answer, a fail-closed Decision. The paper reports it cannot guard agents — it
 * judges content, not access or actions — and it is here to measure exactly that.
 */
import { allowDecision, type Decision, denyDecision, type Trace } from "../../core/decision.js";
import { policyRef } from "../../core/policy.js";
import type { ModelClient } from "../../llm/model.js";
import { agentAnswer } from "../common/agent-answer.js";
import type { CheckOptions, Engine } from "../engine.js";
import { type HazardCategory, hazardCategories, llamaGuardPrompt } from "./llamaguard-prompt.js";
import { modelFailureDecision } from "./model-failure.js";
import { parseLlamaGuard } from "./parse-llamaguard.js";

export interface LlamaGuardEngineOptions {
  model: ModelClient;
  failMode?: "closed" | "open";
}

export function createLlamaGuardEngine(options: LlamaGuardEngineOptions): Engine {
  const name = "llamaguard";
  const failMode = options.failMode ?? "closed";
  // A policy's categories are computed once: its requests never change once loaded.
  const categoriesOf = new WeakMap<object, HazardCategory[]>();
  const categories = (policy: CheckOptions["policy"]) => {
    let found = categoriesOf.get(policy);
    if (!found) {
      found = hazardCategories({ requests: policy.requests });
      categoriesOf.set(policy, found);
    }
    return found;
  };

  return {
    name,
    async check({ policy, subject, signal }: CheckOptions): Promise<Decision> {
      const started = performance.now();
      const trace: Trace = { attempts: [] };
      let cost = { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 };
      const done = (d: Decision): Decision => ({ ...d, cost: { ...cost, ms: performance.now() - started } });
      const listed = categories(policy);
      try {
        const result = await options.model.generateText({
          prompt: llamaGuardPrompt({ categories: listed, input: subject.input, output: subject.output }),
          purpose: "llamaguard",
          temperature: 0,
          ...(signal ? { signal } : {}),
        });
        cost = {
          llmCalls: 1,
          inputTokens: result.usage.inputTokens,
          outputTokens: result.usage.outputTokens,
          ms: 0,
        };
        trace.raw = result.text;
        const verdict = parseLlamaGuard({ reply: result.text, codes: new Set(listed.map((c) => c.code)) });
        if (verdict.safe) {
          return done(
            allowDecision({
              engine: name,
              policy: policyRef(policy),
              output: agentAnswer({ policy, subject }),
              explanation: "Llama Guard found the agent's output safe under the policy's categories.",
              trace,
            }),
          );
        }
        const byCode = new Map(listed.map((c) => [c.code, c.text]));
        const violations = verdict.codes.map((code) => ({
          ruleId: `llamaguard.${code}`,
          message: byCode.get(code)!,
          details: { category: code },
        }));
        return done(denyDecision({ engine: name, policy: policyRef(policy), violations, trace }));
      } catch (error) {
        return done(
          modelFailureDecision({
            engine: name,
            policy,
            error,
            failMode,
            output: agentAnswer({ policy, subject }),
            trace,
          }),
        );
      }
    },
  };
}
