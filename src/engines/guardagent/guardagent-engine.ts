/**
 * GuardAgent end to end: retrieve demonstrations, plan, write guardrail code against the toolbox, run it
 * in the sandbox, debug it on errors (bounded rounds), and turn the program's result into a Decision.
 * Every failure — the model unreachable, every program failing — becomes a fail-closed Decision that says
 * why (fail-open only when configured).
 */
import type { CheckTrust } from "../../core/caller.js";
import {
  type Attempt,
  addCost,
  allowDecision,
  type Cost,
  type Decision,
  denyDecision,
  failureDecision,
  type Trace,
  zeroCost,
} from "../../core/decision.js";
import { toWardenError, WardenError } from "../../core/errors.js";
import { type Policy, policyRef } from "../../core/policy.js";
import type { Subject } from "../../core/subject.js";
import type { ModelCallResult, ModelClient } from "../../llm/model.js";
import type { Sandbox, SandboxLimits } from "../../sandbox/sandbox.js";
import type { Demonstration } from "../../store/store.js";
import { agentAnswer } from "../common/agent-answer.js";
import { violationsFromReasons } from "../common/violations-from-reasons.js";
import type { CheckOptions, Engine } from "../engine.js";
import type { GuardMemory, GuardToolbox, RetrievalOrder } from "./contracts.js";
import { extractCode } from "./extract-code.js";
import { codePrompt, debugPrompt, planPrompt } from "./prompts.js";

export type LearningMode = "off" | "successful" | "correct-only";

export interface GuardAgentEngineOptions {
  model: ModelClient;
  sandbox: Sandbox;
  toolbox: GuardToolbox;
  memory?: GuardMemory;
  /** Number of demonstrations k (>= 0). */
  shots?: number;
  retrieval?: RetrievalOrder;
  /** Debugging rounds after the first program fails (default 3). */
  debugRounds?: number;
  /** Whether code generation sees demonstrations' code (false with the toolbox ablation, as in the paper). */
  codeDemonstrations?: boolean;
  /** "closed" (default): undecidable checks are denied. "open": allowed, and the Decision says so. */
  failMode?: "closed" | "open";
  /**
   * When to append a case to memory; "correct-only" waits for a labelled `feedback`. "successful" stores
   * whatever the model decided, so whoever can ask for checks could teach the guard: the live faces
   * refuse it (open-guard-service.ts), it is for benchmarks, whose labels judge.
   */
  learn?: LearningMode;
  /**
   * With learn = "successful": whether a case may be learned (default: always). create-engine passes
   * the deterministic floor here, so a program that allows what the compiled rules deny is not kept
   * as a demonstration.
   */
  learnIf?: (o: {
    policy: Policy;
    subject: Subject;
    decision: Decision;
    trust?: CheckTrust;
  }) => Promise<boolean>;
  sandboxLimits?: Partial<SandboxLimits>;
  maxOutputTokens?: number;
}

export interface GuardAgentEngine extends Engine {
  /** Benchmark feedback: append the case to memory when it was judged correct (learn = "correct-only"). */
  feedback(options: { subject: Subject; decision: Decision; correct: boolean }): Promise<boolean>;
}

class Meter {
  cost: Cost = zeroCost();
  add(result: ModelCallResult): void {
    this.cost = addCost(this.cost, {
      llmCalls: 1,
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
    });
  }
}

export function createGuardAgentEngine(options: GuardAgentEngineOptions): GuardAgentEngine {
  const shots = options.shots ?? 1;
  if (!Number.isInteger(shots) || shots < 0) {
    throw new WardenError({ code: "INVALID_INPUT", message: `shots must be an integer >= 0, got ${shots}` });
  }
  const debugRounds = options.debugRounds ?? 3;
  const order = options.retrieval ?? "most";
  const failMode = options.failMode ?? "closed";
  const learn = options.learn ?? "successful";
  const codeDemos = options.codeDemonstrations ?? options.toolbox.enabled;
  const name = "guardagent";

  async function call(
    meter: Meter,
    purpose: string,
    prompt: { system: string; prompt: string },
    signal?: AbortSignal,
  ) {
    const result = await options.model.generateText({
      system: prompt.system,
      prompt: prompt.prompt,
      purpose,
      temperature: 0,
      ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
      ...(signal ? { signal } : {}),
    });
    meter.add(result);
    return result.text;
  }

  async function check(checkOptions: CheckOptions): Promise<Decision> {
    const { policy, subject, signal } = checkOptions;
    const started = performance.now();
    const meter = new Meter();
    const trace: Trace = { attempts: [] };
    const answer = agentAnswer({ policy, subject });
    const finish = (decision: Decision): Decision => ({
      ...decision,
      cost: { ...meter.cost, ms: performance.now() - started },
    });

    let demos: Demonstration[] = [];
    try {
      if (options.memory && shots > 0) {
        demos = await options.memory.retrieve({
          policy: policy.name,
          input: subject.input,
          output: subject.output,
          k: shots,
          order,
        });
      }
    } catch (error) {
      const e = toWardenError({ error, code: "STORE_ERROR", message: "memory retrieval failed" });
      return finish(failure({ policy, code: e.code, message: e.message, trace, answer }));
    }
    trace.demonstrations = demos.map((d) => d.id);

    let plan: string;
    let code: string;
    try {
      plan = (
        await call(
          meter,
          "plan",
          planPrompt({
            specification: policy.specification,
            requests: policy.requests,
            demonstrations: demos,
            input: subject.input,
            output: subject.output,
          }),
          signal,
        )
      ).trim();
      trace.plan = plan;
      const reply = await call(
        meter,
        "code",
        codePrompt({
          toolbox: options.toolbox.render(),
          toolboxEnabled: options.toolbox.enabled,
          demonstrations: codeDemos ? demos : [],
          input: subject.input,
          output: subject.output,
          plan,
        }),
        signal,
      );
      code = extractCode({ reply });
    } catch (error) {
      return finish(modelFailure({ policy, error, trace, answer }));
    }

    const data = { input: subject.input, output: subject.output, answer, context: subject.context ?? {} };
    const prelude = options.toolbox.enabled ? options.toolbox.prelude() : [];
    for (let round = 0; ; round++) {
      trace.code = code;
      const run = await options.sandbox.run({
        code,
        data,
        prelude,
        ...(options.sandboxLimits ? { limits: options.sandboxLimits } : {}),
        ...(signal ? { signal } : {}),
      });
      const attempt: Attempt = run.ok
        ? { round, code, ok: true, log: run.log, ms: run.ms }
        : { round, code, ok: false, error: run.error, log: run.log, ms: run.ms };
      trace.attempts.push(attempt);
      if (run.ok) {
        const { label, reasons, output } = run.result;
        const decision =
          label === 0
            ? allowDecision({
                engine: name,
                policy: policyRef(policy),
                output: output === undefined ? answer : output,
                explanation: "The guardrail program found the guard requests satisfied.",
                trace,
              })
            : denyDecision({
                engine: name,
                policy: policyRef(policy),
                violations: violationsFromReasons({ reasons }),
                explanation:
                  violationsFromReasons({ reasons })
                    .map((v) => v.message)
                    .join("; ") || "The guardrail program found the guard requests violated.",
                trace,
              });
        if (learn === "successful" && options.memory) {
          const may = options.learnIf
            ? await options
                .learnIf({
                  policy,
                  subject,
                  decision,
                  ...(checkOptions.trust ? { trust: checkOptions.trust } : {}),
                })
                .catch(() => false)
            : true;
          if (may) {
            // A failed write does not change the decision; the memory counts and reports it (see
            // memory-bank.ts) and the trace says so.
            await remember({ policyName: policy.name, subject, plan, code, label, decision }).catch(
              (error) => {
                const e = toWardenError({ error, code: "STORE_ERROR", message: "storing the case failed" });
                trace.notes = [
                  ...(trace.notes ?? []),
                  `the case was not stored in memory: ${e.code}: ${e.message}`,
                ];
              },
            );
          }
        }
        return finish(decision);
      }
      // No rewrite of the program helps when the sandbox itself is not installed: fail closed at once.
      if (run.error.code === "MISSING_DEPENDENCY") {
        return finish(failure({ policy, code: run.error.code, message: run.error.message, trace, answer }));
      }
      if (round >= debugRounds) {
        return finish(
          failure({
            policy,
            code: run.error.code,
            message: `the guardrail program failed in all ${round + 1} attempts; last error: ${run.error.message}`,
            trace,
            answer,
          }),
        );
      }
      try {
        const reply = await call(
          meter,
          "debug",
          debugPrompt({
            toolbox: options.toolbox.render(),
            toolboxEnabled: options.toolbox.enabled,
            input: subject.input,
            output: subject.output,
            plan,
            code,
            error: `${run.error.code}: ${run.error.message}`,
            log: run.log,
          }),
          signal,
        );
        code = extractCode({ reply });
      } catch (error) {
        return finish(modelFailure({ policy, error, trace, answer }));
      }
    }
  }

  function failure(o: {
    policy: Policy;
    code: WardenError["code"];
    message: string;
    trace: Trace;
    answer: unknown;
  }) {
    return failureDecision({
      engine: name,
      policy: policyRef(o.policy),
      code: o.code,
      message: o.message,
      mode: failMode,
      output: o.answer,
      trace: o.trace,
    });
  }

  function modelFailure(o: { policy: Policy; error: unknown; trace: Trace; answer: unknown }) {
    const e = toWardenError({ error: o.error, code: "MODEL_UNAVAILABLE" });
    return failure({ policy: o.policy, code: e.code, message: e.message, trace: o.trace, answer: o.answer });
  }

  async function remember(o: {
    policyName: string;
    subject: Subject;
    plan: string;
    code: string;
    label: 0 | 1;
    decision: Decision;
    correct?: boolean;
  }): Promise<boolean> {
    if (!options.memory) return false;
    return options.memory.remember({
      demonstration: {
        policy: o.policyName,
        input: o.subject.input,
        output: o.subject.output,
        plan: o.plan,
        code: o.code,
        label: o.label,
        origin: "learned",
        meta: { verdict: verdictOf(o.decision) },
      },
      ...(o.correct === undefined ? {} : { correct: o.correct }),
    });
  }

  return {
    name,
    check,
    async feedback({ subject, decision, correct }) {
      if (learn !== "correct-only" || !options.memory) return false;
      const plan = decision.trace?.plan;
      const code = decision.trace?.code;
      const ran = decision.trace?.attempts.some((a) => a.ok);
      if (!plan || !code || !ran || decision.failure) return false;
      if (!decision.policy) return false;
      // Overruled by the deterministic floor: the program answered another label than the decision,
      // so the pair (code, label) would teach the opposite of what the code does.
      if (decision.views?.model && decision.views.model.label !== decision.label) return false;
      return remember({
        policyName: decision.policy.name,
        subject,
        plan,
        code,
        label: decision.label,
        decision,
        correct,
      });
    },
  };
}

/** The verdict a demonstration shows to the baseline: what the guard answered for it. */
export function verdictOf(decision: Decision): Record<string, unknown> {
  const inaccessible = decision.violations.find((v) => v.details?.inaccessible)?.details?.inaccessible;
  return {
    label: decision.label,
    violations: decision.violations
      .filter((v) => !v.details?.inaccessible)
      .map((v) => ({ rule: v.ruleId, message: v.message })),
    ...(inaccessible ? { inaccessible } : {}),
    output: decision.output ?? null,
  };
}
