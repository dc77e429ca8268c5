/**
 * A shield session: one trajectory checked step by step as the agent takes it (`step`), then judged
 * as a whole (`finish`, for the rules checked at the end). The session holds its short-term memory
 * itself, so no trajectory identity is needed and every step costs the same however long the run.
 */
import type { Policy } from "../../../core/policy.js";
import type { ShieldEngine, ShieldSession } from "./shield-engine.js";

export function createShieldSession(options: {
  engine: ShieldEngine;
  policy: Policy;
  /** The task the agent was given. */
  input: string;
  /** Selects scoped rules (taskId, site, scope) and is visible to bindings as `context`. */
  context?: Record<string, unknown>;
  signal?: AbortSignal;
}): ShieldSession {
  const { engine, ...rest } = options;
  return engine.openSession(rest);
}
