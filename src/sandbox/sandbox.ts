/**
 * The sandbox contract. Guardrail code written by a model runs only here: QuickJS (wasm) in a worker,
 * with limits on wall time, memory, stack and printed output, seeing only the toolbox functions, the case
 * data (`data`), `print(...)` and `finish({ label, reasons, output })`. Anything that goes wrong is a
 * returned execution error, never a crash of the host.
 */
import type { ErrorCode } from "../core/errors.js";

export interface SandboxLimits {
  /** Wall-clock limit for one run, ms. */
  timeMs: number;
  /** Heap limit of the QuickJS runtime, bytes. */
  memoryBytes: number;
  /** Stack limit of the QuickJS runtime, bytes. */
  stackBytes: number;
  /** Limit on everything `print` writes, bytes; beyond it the run fails. */
  outputBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeMs: 2_000,
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 512 * 1024,
  outputBytes: 256 * 1024,
};

/** What guardrail code hands to `finish(...)`. */
export interface GuardResult {
  /** 0 = the guard requests are satisfied, 1 = violated. */
  label: 0 | 1;
  /** Why: inaccessible tables/columns, violated rules... (any JSON). */
  reasons?: unknown;
  /** The guard-railed output (the agent's answer when allowed). */
  output?: unknown;
}

export interface SandboxRunOptions {
  /** The guardrail program (JavaScript). */
  code: string;
  /** JSON-serialisable case data, visible to the program as the global `data`. */
  data: unknown;
  /** Toolbox function sources evaluated before the program (each defines global functions). */
  prelude?: readonly string[];
  limits?: Partial<SandboxLimits>;
  signal?: AbortSignal;
}

export type SandboxResult =
  | { ok: true; result: GuardResult; log: string; ms: number }
  | { ok: false; error: { code: ErrorCode; message: string }; log: string; ms: number };

export interface Sandbox {
  run(options: SandboxRunOptions): Promise<SandboxResult>;
  close(): Promise<void>;
}
