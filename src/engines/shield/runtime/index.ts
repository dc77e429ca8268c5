/** The shield runtime: the step-by-step engine, sessions, and a helper to run a recorded trajectory. */
export { type BinaryCheckResult, type BinaryQuestion, binaryCheck } from "./binary-check.js";
export { type CompiledShieldPolicy, compileShieldPolicy, type ShieldRule } from "./compiled-shield-policy.js";
export { scopesFromContext } from "./rule-scope.js";
export { runShieldOnTrajectory, type ShieldTrajectoryResult } from "./run-shield-on-trajectory.js";
export {
  createShieldEngine,
  type ShieldEngine,
  type ShieldEngineOptions,
  type ShieldSession,
} from "./shield-engine.js";
export { createShieldSession } from "./shield-session.js";
export { SHIELD_ENGINE_NAME } from "./step-decision.js";
export {
  type RetrievedWorkflow,
  type ShieldOperation,
  type ShieldWorkflowPlan,
  stepQuery,
  type WorkflowPlanEntry,
} from "./workflow-memory.js";
