/**
 * The ShieldAgent runtime as an Engine: `check({ policy, subject })` decides the LAST step of
 * `subject.trajectory` against the policy's temporal rules (see step-decision.ts for the pipeline and
 * src/engines/shield/mln for the decision) and its tool rules and `toolDefault`, the step being the
 * call (step-tool-rules.ts). `subject.context` selects scoped rules (`taskId`, `site`,
 * `scope`), may name the trajectory (`trajectoryId`), and with `final: true` also judges the rules
 * checked at the end on the complete trajectory.
 *
 * Short-term memory: per (policy, rules in scope, trajectory) the engine keeps a TrajectoryState
 * (trajectory-state.ts), found by `context.trajectoryId`, else `subject.id`, else a hash of the task
 * and the first step, and validated against the steps it is given. Checking step n after step n−1
 * reads step n only; a state that does not fit is rebuilt. At most `maxTrajectories` states are kept
 * (least recently used first out). A caller that knows it follows one trajectory can use a session
 * (`openSession`, or createShieldSession) instead, which holds its state directly.
 *
 * The engine never throws for a model or store failure: they are recorded, marginalised, and turned
 * into a fail-closed Decision only when the verdict depends on what could not be assigned.
 */

import { z } from "zod";
import type { Decision } from "../../../core/decision.js";
import { WardenError } from "../../../core/errors.js";
import type { Policy } from "../../../core/policy.js";
import { type Step, StepSchema, type Subject } from "../../../core/subject.js";
import { parseWith } from "../../../core/validate.js";
import type { ModelClient } from "../../../llm/model.js";
import { PartialSandboxLimitsSchema } from "../../../sandbox/limits.js";
import type { Sandbox, SandboxLimits } from "../../../sandbox/sandbox.js";
import type { Store } from "../../../store/store.js";
import { hashSeed } from "../../../util/seeded-random.js";
import { withCallerContext } from "../../compiled/context-facts.js";
import type { CheckOptions, Engine } from "../../engine.js";
import { createDetectorRegistry, type DetectorRegistry } from "../detectors/registry.js";
import { compileShieldPolicy } from "./compiled-shield-policy.js";
import { scopesFromContext } from "./rule-scope.js";
import {
  decideEnd,
  decideStep,
  mergeDecisions,
  SHIELD_ENGINE_NAME,
  type ShieldRuntime,
} from "./step-decision.js";
import { applyStepToolRules } from "./step-tool-rules.js";
import {
  advanceTo,
  createTrajectoryState,
  stateFits,
  stepFingerprint,
  type TrajectoryState,
} from "./trajectory-state.js";

export interface ShieldEngineOptions {
  /** Answers Binary-Check (`ask`) predicates; without it they stay open and are marginalised. */
  model?: ModelClient;
  /** Long-term memory of shielding workflows. */
  store?: Store;
  /** Detectors for Detect bindings (default: the built-in registry). */
  detectors?: DetectorRegistry;
  /** Tolerance ε >= 0; overrides the policy's `rules.epsilon` (default: the policy's, else 0). */
  epsilon?: number;
  /** What an undecidable step (model failure the verdict depends on) gives: "closed" (deny, default) or "open". */
  failMode?: "closed" | "open";
  /** Marginalisation: exact enumeration limit, samples beyond it, seed. */
  sampling?: { exactLimit?: number; samples?: number; seed?: number };
  /** Trajectory states kept for `check` (default 256). */
  maxTrajectories?: number;
  /** Workflows retrieved from long-term memory per step (default 3). */
  memoryK?: number;
  /**
   * With a model: "binary-check" (default) asks each open `ask` predicate's own question in one call;
   * "plan" has the model write a shielding plan (Search / Binary-Check / Detect / Formal-Verify) for
   * every open state predicate the step needs, with similar successful workflows as exemplars.
   */
  planning?: "binary-check" | "plan";
  /** Runs a plan's Formal-Verify code (QuickJS); without one, such a plan step fails closed. */
  sandbox?: Sandbox;
  sandboxLimits?: Partial<SandboxLimits>;
}

export interface ShieldSession {
  /** Steps checked so far. */
  readonly steps: readonly Step[];
  /** Decides the next step (it is appended to the session's trajectory, whatever the verdict). */
  step(options: { step: Step | z.input<typeof StepSchema> }): Promise<Decision>;
  /** Judges the end rules on the complete trajectory; the session accepts no step afterwards. */
  finish(): Promise<Decision>;
}

export interface ShieldEngine extends Engine {
  readonly name: "shield";
  openSession(options: {
    policy: Policy;
    input: string;
    context?: Record<string, unknown>;
    signal?: AbortSignal;
  }): ShieldSession;
}

const OptionsSchema = z.object({
  epsilon: z.number().nonnegative().finite().optional(),
  failMode: z.enum(["closed", "open"]).optional(),
  sampling: z
    .object({
      exactLimit: z.number().int().min(0).max(24).optional(),
      samples: z.number().int().positive().optional(),
      seed: z.number().int().optional(),
    })
    .optional(),
  maxTrajectories: z.number().int().positive().optional(),
  memoryK: z.number().int().min(0).optional(),
  planning: z.enum(["binary-check", "plan"]).optional(),
  sandboxLimits: PartialSandboxLimitsSchema.optional(),
});

function trajectoryKey(subject: Subject, scopeKey: string): { key: string; named: boolean } {
  const ctx = subject.context ?? {};
  const named =
    typeof ctx.trajectoryId === "string" && ctx.trajectoryId !== "" ? ctx.trajectoryId : subject.id;
  const base =
    named ??
    `h${hashSeed({ text: `${subject.input}\u0000${stepFingerprint({ step: subject.trajectory?.[0] })}` }).toString(36)}`;
  return { key: `${scopeKey}#${base}`, named: named !== undefined };
}

async function withLock<T>(state: TrajectoryState, work: () => Promise<T>): Promise<T> {
  const run = state.lock.then(work, work);
  state.lock = run.catch(() => undefined);
  return run;
}

export function createShieldEngine(options: ShieldEngineOptions = {}): ShieldEngine {
  const checked = parseWith({ schema: OptionsSchema, value: options, what: "shield engine options" });
  const runtime: ShieldRuntime = {
    model: options.model,
    store: options.store,
    detectors: options.detectors ?? createDetectorRegistry(),
    epsilon: checked.epsilon,
    failMode: checked.failMode ?? "closed",
    sampling: checked.sampling ?? {},
    memoryK: checked.memoryK ?? 3,
    planning: checked.planning ?? "binary-check",
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(checked.sandboxLimits ? { sandboxLimits: checked.sandboxLimits } : {}),
  };
  const maxStates = checked.maxTrajectories ?? 256;
  const states = new WeakMap<Policy, Map<string, TrajectoryState>>();

  const stateFor = (
    policy: Policy,
    subject: Subject,
    steps: readonly Step[],
    index: number,
  ): TrajectoryState => {
    const compiled = compileShieldPolicy({ policy });
    const scoped = compiled.inScope({ scopes: scopesFromContext({ context: subject.context }) });
    const { key, named } = trajectoryKey(subject, scoped.key);
    let byKey = states.get(policy);
    if (!byKey) {
      byKey = new Map();
      states.set(policy, byKey);
    }
    let state = byKey.get(key);
    if (state) byKey.delete(key);
    if (!state || state.input !== subject.input || !stateFits({ state, steps, index })) {
      state = createTrajectoryState({
        key,
        compiled,
        scoped,
        input: subject.input,
        context: subject.context,
        verifyAll: !named,
      });
    }
    byKey.set(key, state);
    while (byKey.size > maxStates) byKey.delete(byKey.keys().next().value as string);
    return state;
  };

  const engine: ShieldEngine = {
    name: SHIELD_ENGINE_NAME,
    async check({ policy, subject: given, signal, trust }: CheckOptions): Promise<Decision> {
      const started = performance.now();
      // Context facts (toolSchemas, cwd, toolCalls…) from a caller not trusted with them are not read by
      // the step's tool rules or predicates: the trajectory is the agent's record (context-facts.ts).
      const subject = given ? withCallerContext({ subject: given, trust }) : given;
      const steps = subject?.trajectory;
      if (!Array.isArray(steps) || steps.length === 0) {
        throw new WardenError({
          code: "INVALID_INPUT",
          message:
            "subject.trajectory: the shield decides the last step of a trajectory; give at least one step",
          details: { field: "subject.trajectory" },
        });
      }
      const index = steps.length - 1;
      const state = stateFor(policy, subject, steps, index);
      return withLock(state, async () => {
        // The state may have moved while this check waited for the lock.
        if (!stateFits({ state, steps, index })) {
          const fresh = createTrajectoryState({
            key: state.key,
            compiled: state.compiled,
            scoped: state.scoped,
            input: state.input,
            context: subject.context,
            verifyAll: state.fingerprints !== undefined,
          });
          Object.assign(state, { ...fresh, lock: state.lock });
        }
        state.context = subject.context;
        // Only the steps this check reads are validated: earlier ones were when they were new.
        for (let i = state.committed; i <= index; i += 1) {
          parseWith({
            schema: StepSchema,
            value: steps[i],
            what: "subject",
            path: `subject.trajectory.${i}`,
          });
        }
        advanceTo({ state, steps, index, detectors: runtime.detectors });
        let decision = applyStepToolRules({
          decision: await decideStep({ runtime, state, steps, index, ...(signal ? { signal } : {}) }),
          policy,
          step: steps[index]!,
          index,
          input: state.input,
          ...(subject.context ? { context: subject.context } : {}),
          failMode: runtime.failMode,
        });
        if (subject.context?.final === true)
          decision = mergeDecisions({ step: decision, end: decideEnd({ runtime, state }) });
        decision.cost = { ...decision.cost, ms: performance.now() - started };
        return decision;
      });
    },
    openSession({ policy, input, context, signal }) {
      if (typeof input !== "string") {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: "input: expected the task text",
          details: { field: "input" },
        });
      }
      const compiled = compileShieldPolicy({ policy });
      const scoped = compiled.inScope({ scopes: scopesFromContext({ context }) });
      const state = createTrajectoryState({ key: "session", compiled, scoped, input, context });
      const steps: Step[] = [];
      let finished = false;
      const open = () => {
        if (finished) {
          throw new WardenError({
            code: "INVALID_INPUT",
            message: "the session is finished: it accepts no more steps",
          });
        }
      };
      return {
        steps,
        async step({ step }) {
          open();
          const parsed = parseWith({ schema: StepSchema, value: step, what: "step", path: "step" });
          return withLock(state, async () => {
            const started = performance.now();
            steps.push(parsed);
            const index = steps.length - 1;
            advanceTo({ state, steps, index, detectors: runtime.detectors });
            const decision = applyStepToolRules({
              decision: await decideStep({ runtime, state, steps, index, ...(signal ? { signal } : {}) }),
              policy,
              step: parsed,
              index,
              input,
              ...(context ? { context } : {}),
              failMode: runtime.failMode,
            });
            decision.cost = { ...decision.cost, ms: performance.now() - started };
            return decision;
          });
        },
        async finish() {
          open();
          if (steps.length === 0) {
            throw new WardenError({
              code: "INVALID_INPUT",
              message: "finish: the session has no step to judge",
            });
          }
          finished = true;
          return withLock(state, async () => {
            const started = performance.now();
            const decision = decideEnd({ runtime, state });
            decision.cost = { ...decision.cost, ms: performance.now() - started };
            return decision;
          });
        },
      };
    },
  };
  return engine;
}
