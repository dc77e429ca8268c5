/**
 * The guard behind Warden's long-running faces (HTTP server, MCP server): preloaded policies by name,
 * engines by name, and counters. Each face validates its own input and maps errors its own way; this
 * service only answers checks, so a check means the same thing whichever face received it. It also bounds
 * how long one check may take: past the limit the answer is a fail-closed deny, whatever the engine is
 * still doing, so a hung engine or a long chain of debugging rounds cannot hold a request open.
 */
import { z } from "zod";
import { type Caller, type CheckTrust, trustOf } from "../core/caller.js";
import { type Decision, failureDecision } from "../core/decision.js";
import { toWardenError, WardenError } from "../core/errors.js";
import { isCompiled, type Policy, policyRef } from "../core/policy.js";
import type { Subject } from "../core/subject.js";
import { type StepDetails, type ToolCall, toolCallSubject } from "../core/tool-call.js";
import { resolveToolName } from "../core/tool-names.js";
import { parseWith } from "../core/validate.js";
import type { Engine } from "../engines/engine.js";
import type { ModelClient } from "../llm/model.js";
import type { MemoryWriteStats } from "../memory/memory-bank.js";
import { withFields } from "../util/with-fields.js";
import { type CheckFeedback, createFeedbackDesk, type FeedbackResult } from "./check-feedback.js";
import { type CheckStatsSnapshot, createCheckStats } from "./check-stats.js";
import { type Cancellation, checkBounded } from "./check-within.js";
import type { EngineName } from "./create-engine.js";
import type { EngineProvider } from "./engine-pool.js";

/** Default time limit of one check: generous for a model engine's debugging rounds, but finite. */
export const DEFAULT_CHECK_TIMEOUT_MS = 300_000;
/** setTimeout's largest delay; a longer one would fire at once. */
export const MAX_CHECK_TIMEOUT_MS = 2_147_483_647;

/** A check's time limit in ms: a whole number, 0 for none. */
export const CheckTimeoutMsSchema = z.number().int().min(0).max(MAX_CHECK_TIMEOUT_MS);

const ServiceLimitsSchema = z.object({
  checkTimeoutMs: CheckTimeoutMsSchema.default(DEFAULT_CHECK_TIMEOUT_MS),
});

export interface PolicySummary {
  name: string;
  version: string;
  description?: string;
  agent?: string;
  /** True when the compiled engine can decide with it (it has compiled rules). */
  compiled: boolean;
  /** Rule counts by kind, and their total. */
  rules: { access: number; attribute: number; tool: number; temporal: number; total: number };
}

/** One check's options (GuardService.check). */
export interface CheckOptions {
  policy: string;
  subject: Subject;
  engine?: EngineName;
  signal?: AbortSignal;
  /** How the caller says it gave up, instead of `signal` (see Cancellation in ./check-within.ts). */
  cancellation?: Cancellation;
  /**
   * What the check takes on trust (default: nothing — context facts are compared with the agent
   * output, not taken; see engines/compiled/context-facts.ts). Faces derive it from the caller
   * (`trustOf`), or state it where they built the facts themselves (the MCP proxy).
   */
  trust?: CheckTrust;
  /** Who asks (the HTTP service's API key); absent for in-process callers. */
  caller?: Caller;
}

export interface GuardService {
  readonly defaultEngine: EngineName;
  listPolicies(): PolicySummary[];
  /** The preloaded policy of that name; throws POLICY_NOT_FOUND. */
  getPolicy(options: { name: string }): Policy;
  /** The engine of that name (the default when absent); throws MODEL_CONFIG when it needs a missing model. */
  getEngine(options: { engine?: EngineName }): Promise<Engine>;
  /**
   * One decision; a deny is a returned Decision, errors (unknown policy, engine without model) throw. A
   * check past the time limit is a fail-closed deny with failure code CHECK_TIMEOUT.
   */
  check(options: CheckOptions): Promise<Decision>;
  /**
   * One tool call about to run (core/tool-call.ts): its name resolved to the policy's (core/tool-names.ts),
   * then checked as `check` does. A name that two of the policy's tools map to is a fail-closed deny.
   */
  checkToolCall(
    options: Omit<CheckOptions, "subject"> & {
      call: ToolCall;
      /** The rest of the step the call is (a server-side session's web step: url, element, value…). */
      details?: StepDetails;
    },
  ): Promise<Decision>;
  /**
   * A label for a check this guard decided, from a caller with scope "memory:write": the case is stored
   * as a demonstration when learning is "correct-only" and the guard's decision agrees with the label.
   * A caller without the scope is refused (INVALID_INPUT, `details.reason` "forbidden").
   */
  feedback(options: CheckFeedback): Promise<FeedbackResult>;
  stats(): CheckStatsSnapshot;
  close(): Promise<void>;
}

export function summarizePolicyRules(options: { policy: Policy }): PolicySummary {
  const { policy } = options;
  const r = policy.rules;
  const rules = {
    access: r?.access?.rules.length ?? 0,
    attribute: r?.attributeRules?.length ?? 0,
    tool: r?.toolRules?.length ?? 0,
    temporal: r?.temporalRules?.length ?? 0,
  };
  return {
    name: policy.name,
    version: policy.version,
    ...(policy.description ? { description: policy.description } : {}),
    ...(policy.agent ? { agent: policy.agent } : {}),
    compiled: isCompiled(policy),
    rules: { ...rules, total: rules.access + rules.attribute + rules.tool + rules.temporal },
  };
}

export function createGuardService(options: {
  policies: readonly Policy[];
  engines: EngineProvider;
  /** The configured model, for its counters in stats (engines get it through `engines`). */
  model?: ModelClient;
  /** Runs after the engines are closed (a store opened for the engines' memory). */
  onClose?: () => Promise<void>;
  /** Time limit of one check in ms (default 300 000); 0 for none. */
  checkTimeoutMs?: number;
  /** The memory the engines learn into, for its write counters in stats. */
  memory?: { writeStats(): MemoryWriteStats };
}): GuardService {
  const { checkTimeoutMs } = parseWith({
    schema: ServiceLimitsSchema,
    value: { checkTimeoutMs: options.checkTimeoutMs },
    what: "guard service options",
  });
  const policies = new Map<string, Policy>();
  for (const policy of options.policies) {
    if (policies.has(policy.name)) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `two policies are named ${policy.name}; each preloaded policy needs its own name`,
        details: { field: "policies", name: policy.name },
      });
    }
    policies.set(policy.name, policy);
  }
  const stats = createCheckStats();
  const { engines } = options;
  const feedbackDesk = createFeedbackDesk({ sink: engines.feedback });
  let closed = false;

  const getPolicy = ({ name }: { name: string }): Policy => {
    const policy = policies.get(name);
    if (!policy) {
      throw new WardenError({
        code: "POLICY_NOT_FOUND",
        message: `no policy named "${name}" is loaded; loaded: ${[...policies.keys()].join(", ") || "(none)"}`,
        details: { field: "policy", policy: name },
      });
    }
    return policy;
  };

  const service: GuardService = {
    defaultEngine: engines.defaultEngine,
    listPolicies: () => [...policies.values()].map((policy) => summarizePolicyRules({ policy })),
    getPolicy,
    getEngine: ({ engine }) => engines.get({ ...(engine ? { engine } : {}) }),
    async check({ policy: name, subject, engine: engineName, signal, cancellation, trust: stated, caller }) {
      const started = performance.now();
      // Stated trust wins (a face that built the facts itself); else what the caller's scopes give.
      const trust = stated ?? (caller ? trustOf({ caller }) : undefined);
      try {
        const policy = getPolicy({ name });
        const getEngine = () => engines.get({ ...(engineName ? { engine: engineName } : {}) });
        const ready = engines.ready?.({ ...(engineName ? { engine: engineName } : {}) });
        const decision = await checkBounded({
          policy,
          subject,
          getEngine,
          ...(ready ? { ready } : {}),
          engineName: engineName ?? engines.defaultEngine,
          limitMs: checkTimeoutMs,
          started,
          ...(signal ? { signal } : {}),
          ...(cancellation ? { cancellation } : {}),
          ...(trust ? { trust } : {}),
        });
        stats.recordDecision({ policy: name, decision, ms: performance.now() - started });
        feedbackDesk.record({ policy: name, subject, decision });
        return decision;
      } catch (error) {
        stats.recordError({ code: toWardenError({ error }).code });
        throw error;
      }
    },
    async checkToolCall({ call, details, ...rest }) {
      const policy = getPolicy({ name: rest.policy });
      // The call and every earlier step name their tools the provider's way: a temporal rule over
      // `secrets.read` must see the `secrets_read` that ran before this call, not only the call itself.
      const names = [call.name, ...(call.history ?? []).map((step) => step.action)].map((name) => ({
        name,
        resolved: resolveToolName({ policy, name }),
      }));
      for (const { name, resolved } of names) {
        if (!("ambiguous" in resolved)) continue;
        // Which rules govern the call cannot be known: never an allow, whatever fail mode is configured.
        const decision = failureDecision({
          engine: rest.engine ?? engines.defaultEngine,
          policy: policyRef(policy),
          code: "INVALID_INPUT",
          message: `tool "${name}" could be any of ${resolved.ambiguous.map((n) => `"${n}"`).join(", ")} in policy ${policy.name}; name it exactly or add a toolAliases entry`,
          mode: "closed",
        });
        stats.recordDecision({ policy: rest.policy, decision, ms: 0 });
        return decision;
      }
      const policyName = (index: number) => {
        const { resolved } = names[index]!;
        return "name" in resolved ? resolved.name : names[index]!.name;
      };
      const history = (call.history ?? []).map((step, i) =>
        policyName(i + 1) === step.action ? step : { ...step, action: policyName(i + 1) },
      );
      const subject = toolCallSubject({
        tool: policyName(0),
        args: call.arguments,
        ...(call.input !== undefined ? { task: call.input } : {}),
        ...(call.context ? { context: call.context } : {}),
        ...(call.history ? { history } : {}),
        ...(call.id !== undefined ? { id: call.id } : {}),
        ...(details ? { details } : {}),
      });
      return service.check(withFields({ base: rest, fields: { subject } }));
    },
    feedback: (feedback) => feedbackDesk.give(feedback),
    stats: () =>
      stats.snapshot({
        ...(options.model ? { model: options.model } : {}),
        ...(options.memory ? { memory: options.memory } : {}),
      }),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await engines.close?.();
      } finally {
        await options.onClose?.();
      }
    },
  };
  return service;
}
