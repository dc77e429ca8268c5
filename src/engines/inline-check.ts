/**
 * An engine's check without waiting, for a face that answers on every call with the compiled path and
 * pays for each microtask, timer and AbortController on the way (the MCP guard proxy, per relayed
 * `tools/call`). Some checks need nothing asynchronous: a compiled policy, a subject small enough to stay
 * on the event loop, extractors already loaded. For those an engine may give its `check` synchronously:
 * the inline check answers the decision `check` would give — the same code, so the same decision — or
 * undefined when it would have to wait (a model, a worker thread, a module still to load), and the
 * caller then calls `check` as before. A synchronous check cannot be interrupted, but neither can the one
 * `check` runs inline: a time limit fires only once the event loop is free, so nothing is lost.
 *
 * The inline check is registered per engine object, not as a member: a wrapper that changes decisions
 * (Object.create over an engine, a spread copy with its own `check`) does not inherit it, and so has no
 * inline check until it registers one that applies its own change. An engine without one is checked
 * the usual way: a missing inline check costs speed, never a decision.
 */
import type { Decision } from "../core/decision.js";
import type { CheckOptions, Engine } from "./engine.js";

/** The decision `check` would give when it needs no waiting, else undefined. */
export type InlineCheck = (options: Omit<CheckOptions, "signal">) => Decision | undefined;

const inlineChecks = new WeakMap<Engine, InlineCheck>();

/** Registers `inline` as the inline check of exactly this engine object, and returns the engine. */
export function withInlineCheck<E extends Engine>(options: { engine: E; inline: InlineCheck }): E {
  inlineChecks.set(options.engine, options.inline);
  return options.engine;
}

/** The inline check registered for this engine object, if any (never one of an engine it wraps). */
export function inlineCheckOf(options: { engine: Engine }): InlineCheck | undefined {
  return inlineChecks.get(options.engine);
}
