/**
 * Engines by name, built on first use from one shared setup and kept for the life of a long-running
 * process (HTTP server, MCP server). A request may pick any engine; the pool builds each at most once, and
 * the model they share is closed once, by the pool, rather than by every engine that used it. They also
 * share one check pool (the worker threads that run compiled checks of large subjects), closed last.
 */
import { WardenError } from "../core/errors.js";
import type { Engine } from "../engines/engine.js";
import type { ModelClient } from "../llm/model.js";
import type { FeedbackSink } from "./check-feedback.js";
import { createEngine, type EngineHandle, type EngineName, type EngineSetup } from "./create-engine.js";
import { type CheckPool, createCheckPool } from "./offload/check-pool.js";

/** What a server needs from its engines: the default one's name and any engine by name. */
export interface EngineProvider {
  readonly defaultEngine: EngineName;
  /** The engine of that name (the default when absent); throws MODEL_CONFIG when it needs a missing model. */
  get(options: { engine?: EngineName }): Promise<Engine>;
  /** The engine of that name when it is built already (no waiting), else undefined. */
  ready?(options: { engine?: EngineName }): Engine | undefined;
  /**
   * Labelled feedback on a decided check, to the GuardAgent engine's memory; present only when learning
   * from feedback is on (learn = "correct-only" with a memory). Returns whether the case was stored.
   */
  feedback?: FeedbackSink;
  close?(): Promise<void>;
}

export interface EnginePool extends EngineProvider {
  ready(options: { engine?: EngineName }): Engine | undefined;
  close(): Promise<void>;
}

/** The model without its `close`: engines built from it must not close what the pool shares. */
function unclosable(model: ModelClient): ModelClient {
  const view: ModelClient = {
    id: model.id,
    generateText: (o) => model.generateText(o),
    generateObject: (o) => model.generateObject(o),
    stats: () => model.stats(),
  };
  if (model.embed) {
    const embed = model.embed.bind(model);
    view.embed = (o) => embed(o);
  }
  return view;
}

export function createEnginePool(options: {
  /** Everything createEngine takes but the engine name. */
  setup: Omit<EngineSetup, "engine">;
  defaultEngine?: EngineName;
}): EnginePool {
  const defaultEngine = options.defaultEngine ?? "auto";
  const { model, ...rest } = options.setup;
  let checkPool: CheckPool | undefined;
  if (!rest.checkOffload && rest.checkWorkers !== 0) {
    checkPool = createCheckPool({ ...(rest.checkWorkers ? { workers: rest.checkWorkers } : {}) });
  }
  const setup: Omit<EngineSetup, "engine"> = {
    ...rest,
    ...(model ? { model: unclosable(model) } : {}),
    ...(checkPool ? { checkOffload: checkPool } : {}),
  };
  const handles = new Map<EngineName, Promise<EngineHandle>>();
  /** The engines built so far, for `ready`. */
  const built = new Map<EngineName, Engine>();
  let closed = false;

  // Every GuardAgent engine of the pool shares the one memory, so feedback goes to whichever is built.
  const feedback: FeedbackSink = async (o) => {
    for (const pending of handles.values()) {
      const handle = await pending.catch(() => undefined);
      if (handle?.guardAgent) return handle.guardAgent.feedback(o);
    }
    return false;
  };
  return {
    defaultEngine,
    ...(setup.memory && setup.learn === "correct-only" ? { feedback } : {}),
    async get({ engine }) {
      if (closed) throw new WardenError({ code: "ABORTED", message: "the engines are closed" });
      const name = engine ?? defaultEngine;
      let handle = handles.get(name);
      if (!handle) {
        const building = createEngine({ ...setup, engine: name });
        handle = building;
        handles.set(name, building);
        // A failed build (no model for a model engine) is not kept: the same error is answered each time.
        building.then(
          (h) => {
            if (!closed && handles.get(name) === building) built.set(name, h.engine);
          },
          () => {
            if (handles.get(name) === building) handles.delete(name);
          },
        );
      }
      return (await handle).engine;
    },
    ready: ({ engine }) => (closed ? undefined : built.get(engine ?? defaultEngine)),
    async close() {
      if (closed) return;
      closed = true;
      const all = [...handles.values()];
      handles.clear();
      built.clear();
      for (const pending of all) {
        const handle = await pending.catch(() => undefined);
        await handle?.close();
      }
      await checkPool?.close();
      await model?.close?.();
    },
  };
}
