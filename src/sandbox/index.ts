/** The sandbox: guardrail programs run only here, in QuickJS (wasm) inside a pool of worker threads. */
export {
  MAX_SANDBOX_LIMITS,
  PartialSandboxLimitsSchema,
  resolveSandboxLimits,
  SandboxLimitsSchema,
} from "./limits.js";
export {
  createQuickJsSandbox,
  type QuickJsSandbox,
  type QuickJsSandboxOptions,
  type QuickJsSandboxStats,
} from "./quickjs-sandbox.js";
export {
  DEFAULT_SANDBOX_LIMITS,
  type GuardResult,
  type Sandbox,
  type SandboxLimits,
  type SandboxResult,
  type SandboxRunOptions,
} from "./sandbox.js";
