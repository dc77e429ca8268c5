/**
 * Wires an engine from configuration: the one place that knows which engine needs a model, a sandbox,
 * a toolbox or a memory. The CLI, the HTTP server, the MCP server and the benchmark all build engines
 * through here, so an engine behaves the same wherever it is called from.
 *
 * The model engines (guardagent and the baselines: baseline, llamaguard, direct, rule-traverse) are wrapped once, here, in the deterministic floor
 * (src/engines/deterministic-floor.ts): a compiled deny or ask reached with every fact determined
 * stands whatever the model says, and the Decision carries both views. Every engine is wrapped in the
 * risk level of GuardAgent App. N (src/engines/risk-level.ts) for policies that ask for it.
 *
 * Every compiled engine built here (the compiled engine, auto's compiled path, the floor) runs checks
 * of large subjects in worker threads (src/runtime/offload/check-pool.ts), so no compiled check holds
 * the event loop and a check's time limit always fires.
 *
 * Only the compiled engine is imported up front: the model engines with their floor and toolbox, the
 * QuickJS sandbox and the shield are imported when a setup asks for them (modelEngineModules), so a
 * compiled check — `warden check` as a pre-tool hook — loads none of them.
 */
import { WardenError } from "../core/errors.js";
import { createAutoEngine } from "../engines/auto-engine.js";
import { type CompiledOffload, createCompiledEngine } from "../engines/compiled/compiled-engine.js";
import type { Engine } from "../engines/engine.js";
import type { GuardMemory } from "../engines/guardagent/contracts.js";
import type { GuardAgentEngine, LearningMode } from "../engines/guardagent/guardagent-engine.js";
import { withRiskLevel } from "../engines/risk-level.js";
import type { ModelClient } from "../llm/model.js";
import type { Sandbox, SandboxLimits } from "../sandbox/sandbox.js";
import type { ToolFunction } from "../toolbox/tool-function.js";
import { createCheckPool } from "./offload/check-pool.js";

export const ENGINE_NAMES = [
  "auto",
  "compiled",
  "guardagent",
  "baseline",
  "llamaguard",
  "direct",
  "rule-traverse",
  "shield",
] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export interface EngineSetup {
  engine: EngineName;
  model?: ModelClient;
  /** Demonstrations for the model engines; absent = no memory (k is then 0). */
  memory?: GuardMemory;
  shots?: number;
  retrieval?: "most" | "least";
  debugRounds?: number;
  /** Expose the toolbox (false = ablation). */
  toolbox?: boolean;
  toolFunctions?: readonly ToolFunction[];
  learn?: LearningMode;
  failMode?: "closed" | "open";
  sandboxLimits?: Partial<SandboxLimits>;
  /** Worker threads of the sandbox pool. */
  sandboxWorkers?: number;
  /**
   * Where compiled checks of large subjects run: a check pool shared with other engines (the engine
   * pool's), or absent for one of this engine's own, closed with it.
   */
  checkOffload?: CompiledOffload;
  /** Worker threads of this engine's own check pool; 0 = every compiled check inline. */
  checkWorkers?: number;
  /** The shield with a model: "binary-check" (default) or "plan" (a shielding plan per step). */
  shieldPlanning?: "binary-check" | "plan";
}

export interface EngineHandle {
  engine: Engine;
  /** The GuardAgent engine when one was built (benchmark feedback goes there). */
  guardAgent?: GuardAgentEngine;
  close(): Promise<void>;
}

/**
 * The modules the model engines need, imported together when the first one is built, and the toolbox
 * their programs call (the setup's functions, validated here).
 */
async function modelEngineModules(options: { setup: EngineSetup }) {
  const { setup } = options;
  const [guardagent, baseline, llamaguard, policyBaselines, sandbox, floor, toolbox] = await Promise.all([
    import("../engines/guardagent/guardagent-engine.js"),
    import("../engines/baselines/model-guard-engine.js"),
    import("../engines/baselines/llamaguard-engine.js"),
    import("../engines/baselines/policy-baselines.js"),
    import("../sandbox/quickjs-sandbox.js"),
    import("../engines/deterministic-floor.js"),
    import("../toolbox/toolbox.js"),
  ]);
  return {
    createGuardAgentEngine: guardagent.createGuardAgentEngine,
    createModelGuardEngine: baseline.createModelGuardEngine,
    createLlamaGuardEngine: llamaguard.createLlamaGuardEngine,
    createPolicyBaselineEngine: policyBaselines.createPolicyBaselineEngine,
    createQuickJsSandbox: sandbox.createQuickJsSandbox,
    withDeterministicFloor: floor.withDeterministicFloor,
    overrulesModel: floor.overrulesModel,
    toolbox: toolbox.createToolbox({ enabled: setup.toolbox ?? true, functions: setup.toolFunctions ?? [] }),
  };
}

/** The engines that always decide with a model (auto does only as its fallback, when given one). */
const MODEL_ENGINES: ReadonlySet<EngineName> = new Set([
  "guardagent",
  "baseline",
  "llamaguard",
  "direct",
  "rule-traverse",
]);

/** Whether a setup builds a model engine (one of MODEL_ENGINES, or auto's fallback with a model). */
function usesModelEngine(setup: EngineSetup): boolean {
  return MODEL_ENGINES.has(setup.engine) || (setup.engine === "auto" && !!setup.model);
}

export async function createEngine(setup: EngineSetup): Promise<EngineHandle> {
  const failMode = setup.failMode ?? "closed";
  const closers: (() => Promise<void>)[] = [];
  const modules = usesModelEngine(setup) ? await modelEngineModules({ setup }) : undefined;
  let sandbox: Sandbox | undefined;
  const getSandbox = () => {
    if (!sandbox) {
      sandbox = modules!.createQuickJsSandbox({
        ...(setup.sandboxWorkers ? { workers: setup.sandboxWorkers } : {}),
        ...(setup.sandboxLimits ? { limits: setup.sandboxLimits } : {}),
      });
      const s = sandbox;
      closers.push(() => s.close());
    }
    return sandbox;
  };
  // The shield's options; a shielding plan's Formal-Verify code runs in the (lazily loaded) sandbox.
  const shieldOptions = async () => {
    const base = { ...(setup.model ? { model: setup.model } : {}), failMode };
    if (setup.shieldPlanning !== "plan" || !setup.model) return base;
    if (!sandbox) {
      const { createQuickJsSandbox } = await import("../sandbox/quickjs-sandbox.js");
      sandbox = createQuickJsSandbox({
        ...(setup.sandboxWorkers ? { workers: setup.sandboxWorkers } : {}),
        ...(setup.sandboxLimits ? { limits: setup.sandboxLimits } : {}),
      });
      const s = sandbox;
      closers.push(() => s.close());
    }
    return { ...base, planning: "plan" as const, sandbox };
  };
  let offload = setup.checkOffload;
  if (!offload && setup.checkWorkers !== 0) {
    // Workers start on the first large subject, so an engine that never sees one never starts any.
    const pool = createCheckPool({ ...(setup.checkWorkers ? { workers: setup.checkWorkers } : {}) });
    closers.push(() => pool.close());
    offload = pool;
  }
  const compiledOptions = offload ? { offload } : {};
  const needModel = (name: string): ModelClient => {
    if (!setup.model) {
      throw new WardenError({
        code: "MODEL_CONFIG",
        message: `the ${name} engine needs a model: pass --model provider:model-id (and --base-url for an OpenAI-compatible server)`,
      });
    }
    return setup.model;
  };
  // The floor's compiled engine is fail-closed whatever failMode says: its failures are how an
  // undetermined view shows (fail-open would turn them into allows that look determined).
  const floor = createCompiledEngine({ failMode: "closed", ...compiledOptions });
  const guardAgent = (model: ModelClient) =>
    modules!.createGuardAgentEngine({
      model,
      sandbox: getSandbox(),
      toolbox: modules!.toolbox,
      ...(setup.memory ? { memory: setup.memory } : {}),
      ...(setup.shots !== undefined ? { shots: setup.shots } : {}),
      ...(setup.retrieval ? { retrieval: setup.retrieval } : {}),
      ...(setup.debugRounds !== undefined ? { debugRounds: setup.debugRounds } : {}),
      ...(setup.learn ? { learn: setup.learn } : {}),
      ...(setup.sandboxLimits ? { sandboxLimits: setup.sandboxLimits } : {}),
      // A program the floor overrules is not learned as a demonstration.
      learnIf: async ({ policy, subject, decision, trust }) =>
        !(await modules!.overrulesModel({ compiled: floor, policy, subject, decision, trust })),
      failMode,
    });

  let engine: Engine;
  let ga: GuardAgentEngine | undefined;
  switch (setup.engine) {
    case "compiled":
      engine = createCompiledEngine({ failMode, ...compiledOptions });
      break;
    case "auto": {
      if (setup.model) ga = guardAgent(setup.model);
      const model = setup.model;
      engine = createAutoEngine({
        compiled: createCompiledEngine({ failMode, ...compiledOptions }),
        ...(ga ? { fallback: ga } : {}),
        // Policies with temporal rules go to the shield, which asks the model only for open
        // predicates (Binary-Check questions, or a shielding plan).
        shield: async () => {
          const { createShieldEngine } = await import("../engines/shield/runtime/index.js");
          return createShieldEngine(model ? await shieldOptions() : { failMode });
        },
        failMode,
      });
      break;
    }
    case "guardagent":
      ga = guardAgent(needModel("guardagent"));
      engine = modules!.withDeterministicFloor({ engine: ga, compiled: floor });
      break;
    case "baseline":
      engine = modules!.withDeterministicFloor({
        engine: modules!.createModelGuardEngine({
          model: needModel("baseline"),
          ...(setup.memory ? { memory: setup.memory } : {}),
          ...(setup.shots !== undefined ? { shots: setup.shots } : {}),
          ...(setup.retrieval ? { retrieval: setup.retrieval } : {}),
          sandbox: getSandbox(),
          toolbox: modules!.toolbox,
          failMode,
        }),
        compiled: floor,
      });
      break;
    case "llamaguard":
      engine = modules!.withDeterministicFloor({
        engine: modules!.createLlamaGuardEngine({ model: needModel("llamaguard"), failMode }),
        compiled: floor,
      });
      break;
    case "direct":
    case "rule-traverse":
      engine = modules!.withDeterministicFloor({
        engine: modules!.createPolicyBaselineEngine({
          method: setup.engine,
          model: needModel(setup.engine),
          failMode,
        }),
        compiled: floor,
      });
      break;
    case "shield": {
      const { createShieldEngine } = await import("../engines/shield/runtime/index.js");
      engine = createShieldEngine(await shieldOptions());
      break;
    }
  }
  // GuardAgent App. N's risk level, for policies that ask for it (engines/risk-level.ts).
  engine = withRiskLevel({ engine });
  if (setup.model?.close) {
    const m = setup.model;
    closers.push(async () => m.close?.());
  }
  return {
    engine,
    ...(ga ? { guardAgent: ga } : {}),
    async close() {
      await engine.close?.();
      for (const close of closers.reverse()) await close();
    },
  };
}
