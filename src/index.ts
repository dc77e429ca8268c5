/**
 * Warden's root API: the domain types, `createGuard` for the common case, and the building blocks
 * (engines, models, sandbox, toolbox, memory, stores, policies) for everything else. The HTTP server,
 * the MCP server and test helpers are the subpath exports warden/server, warden/mcp and warden/testing.
 */
// The compiled engine's synchronous API (`assess`, `extract`) needs its extractors loaded: the library
// loads them with itself (only the CLI loads them on demand).
import "./engines/compiled/extractors/eager-extractors.js";

export * from "./core/index.js";
export { type ToolCall, type ToolCallInput, ToolCallSchema, toolCallSubject } from "./core/tool-call.js";
export { providerToolName, type ResolvedToolName, resolveToolName } from "./core/tool-names.js";
export { createAutoEngine } from "./engines/auto-engine.js";
export {
  createModelGuardEngine,
  type ModelGuardEngineOptions,
} from "./engines/baselines/model-guard-engine.js";
export {
  type CompiledEngine,
  type CompiledOffload,
  createCompiledEngine,
} from "./engines/compiled/compiled-engine.js";
export type { CheckOptions, Engine } from "./engines/engine.js";
export {
  createGuardAgentEngine,
  type GuardAgentEngine,
  type GuardAgentEngineOptions,
} from "./engines/guardagent/guardagent-engine.js";
export { importStWebAgentBench } from "./engines/shield/import/index.js";
export { buildAspm, buildCircuits, trainWeights } from "./engines/shield/index.js";
export {
  createMonitor as createLtlMonitor,
  evaluate as evaluateLtl,
  formatLtl,
  parseLtl,
} from "./engines/shield/ltl/index.js";
export {
  createShieldEngine,
  createShieldSession,
  runShieldOnTrajectory,
} from "./engines/shield/runtime/index.js";
export { createGuard, type Guard, type GuardOptions } from "./guard.js";
export { type CreateModelClientOptions, createModelClient, parseModelSpec } from "./llm/index.js";
export type { ModelCallResult, ModelClient, ModelStats } from "./llm/model.js";
export {
  createMemory,
  createMemoryBank,
  createRetrievalIndex,
  loadDemonstrations,
  topK,
} from "./memory/index.js";
export { compilePolicy } from "./policies/compile-policy.js";
export { listBundledPolicies, loadPolicy, summarizePolicy, verifyPolicy } from "./policies/index.js";
export {
  createEngine,
  ENGINE_NAMES,
  type EngineHandle,
  type EngineName,
  type EngineSetup,
} from "./runtime/create-engine.js";
export { type CheckPool, createCheckPool } from "./runtime/offload/check-pool.js";
export { createQuickJsSandbox } from "./sandbox/index.js";
export type { GuardResult, Sandbox, SandboxLimits, SandboxResult } from "./sandbox/sandbox.js";
export { createKeyDirectory, createPostgresStore, createSqliteStore, issueApiKey } from "./store/index.js";
export type { KeyDirectory } from "./store/key-directory.js";
export type {
  ApiKey,
  Approval,
  ApprovalStatus,
  Demonstration,
  NewDemonstration,
  Store,
  Workflow,
} from "./store/store.js";
export {
  checkAccess,
  checkRule,
  createToolbox,
  loadToolFunctions,
  type Toolbox,
  type ToolFunction,
} from "./toolbox/index.js";
