/**
 * The paper's baseline, "a model guarding agents": one LLM call with the same demonstrations minus code,
 * its verdict parsed strictly. An unreachable model or an unparseable verdict is a fail-closed Decision.
 */
import { createHash } from "node:crypto";
import {
  allowDecision,
  type Decision,
  denyDecision,
  type Trace,
  type Violation,
} from "../../core/decision.js";
import { policyRef } from "../../core/policy.js";
import type { ModelClient } from "../../llm/model.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { Demonstration } from "../../store/store.js";
import { agentAnswer } from "../common/agent-answer.js";
import { formatInaccessible } from "../common/violations-from-reasons.js";
import type { CheckOptions, Engine } from "../engine.js";
import type { GuardMemory, GuardToolbox, RetrievalOrder } from "../guardagent/contracts.js";
import { demonstrationVerdict } from "./demonstration-verdict.js";
import { modelFailureDecision } from "./model-failure.js";
import { baselinePrompt } from "./model-guard-prompt.js";
import { parseVerdict } from "./parse-verdict.js";

export interface ModelGuardEngineOptions {
  model: ModelClient;
  memory?: GuardMemory;
  shots?: number;
  retrieval?: RetrievalOrder;
  failMode?: "closed" | "open";
  /** Used only to derive a demonstration's verdict by running its code once, when it has none stored. */
  sandbox?: Sandbox;
  toolbox?: GuardToolbox;
}

export function createModelGuardEngine(options: ModelGuardEngineOptions): Engine {
  const name = "baseline";
  const shots = options.shots ?? 1;
  const failMode = options.failMode ?? "closed";
  // A demonstration's verdict is remembered under everything it is computed from, not under its id
  // alone: two memories (or a rewritten demonstration) may share an id with other content.
  const verdictCache = new Map<string, unknown>();
  const verdictKey = (d: Demonstration): string =>
    createHash("sha256")
      .update(
        JSON.stringify([d.policy, d.id, d.input, d.output, d.code, d.label ?? null, d.meta?.verdict ?? null]),
      )
      .digest("hex");

  async function withVerdicts(demos: Demonstration[]) {
    return Promise.all(
      demos.map(async (d) => {
        const key = verdictKey(d);
        if (!verdictCache.has(key)) {
          verdictCache.set(
            key,
            await demonstrationVerdict({
              demonstration: d,
              ...(options.sandbox ? { sandbox: options.sandbox } : {}),
              ...(options.toolbox ? { toolbox: options.toolbox } : {}),
            }),
          );
        }
        return { ...d, verdict: verdictCache.get(key) };
      }),
    );
  }

  return {
    name,
    async check({ policy, subject, signal }: CheckOptions): Promise<Decision> {
      const started = performance.now();
      const trace: Trace = { attempts: [] };
      const answer = agentAnswer({ policy, subject });
      let cost = { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 };
      const done = (d: Decision): Decision => ({ ...d, cost: { ...cost, ms: performance.now() - started } });
      try {
        const demos =
          options.memory && shots > 0
            ? await options.memory.retrieve({
                policy: policy.name,
                input: subject.input,
                output: subject.output,
                k: shots,
                order: options.retrieval ?? "most",
              })
            : [];
        trace.demonstrations = demos.map((d) => d.id);
        const prompt = baselinePrompt({
          specification: policy.specification,
          requests: policy.requests,
          demonstrations: await withVerdicts(demos),
          input: subject.input,
          output: subject.output,
        });
        const result = await options.model.generateText({
          ...prompt,
          purpose: "baseline",
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
        const verdict = parseVerdict({ reply: result.text });
        if (verdict.label === 0) {
          return done(
            allowDecision({
              engine: name,
              policy: policyRef(policy),
              output: verdict.output === undefined ? answer : verdict.output,
              explanation: "The model found the guard requests satisfied.",
              trace,
            }),
          );
        }
        const violations: Violation[] = [];
        if (Object.keys(verdict.inaccessible).length > 0) {
          violations.push({
            ruleId: "guard.access",
            message: `Access denied to ${formatInaccessible(verdict.inaccessible)}`,
            details: { inaccessible: verdict.inaccessible },
          });
        }
        verdict.violations.forEach((v, i) => {
          if (typeof v === "string") violations.push({ ruleId: `guard.rule-${i + 1}`, message: v });
          else violations.push({ ruleId: v.rule ?? `guard.rule-${i + 1}`, message: v.message });
        });
        return done(denyDecision({ engine: name, policy: policyRef(policy), violations, trace }));
      } catch (error) {
        return done(modelFailureDecision({ engine: name, policy, error, failMode, output: answer, trace }));
      }
    },
  };
}
