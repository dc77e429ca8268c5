/**
 * Sandbox limits: merging per-run overrides into the sandbox's defaults and checking them at the
 * boundary. The upper bounds are what the QuickJS build can honour safely (its wasm stack is 5 MiB, so a
 * larger QuickJS stack limit would let a recursion overrun it instead of being stopped).
 */
import { z } from "zod";
import { parseWith } from "../core/validate.js";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./sandbox.js";

export const MAX_SANDBOX_LIMITS: SandboxLimits = {
  timeMs: 10 * 60_000,
  memoryBytes: 1024 * 1024 * 1024,
  stackBytes: 4 * 1024 * 1024,
  outputBytes: 64 * 1024 * 1024,
};

const MIN_STACK_BYTES = 16 * 1024;
const MIN_MEMORY_BYTES = 256 * 1024;

export const SandboxLimitsSchema = z
  .object({
    timeMs: z.number().int().positive().max(MAX_SANDBOX_LIMITS.timeMs),
    memoryBytes: z.number().int().min(MIN_MEMORY_BYTES).max(MAX_SANDBOX_LIMITS.memoryBytes),
    stackBytes: z.number().int().min(MIN_STACK_BYTES).max(MAX_SANDBOX_LIMITS.stackBytes),
    outputBytes: z.number().int().positive().max(MAX_SANDBOX_LIMITS.outputBytes),
  })
  .strict();

export const PartialSandboxLimitsSchema = SandboxLimitsSchema.partial();

/** Fills the gaps of `override` from `base` (default: DEFAULT_SANDBOX_LIMITS) and validates the result. */
export function resolveSandboxLimits(options: {
  base?: SandboxLimits;
  override?: Partial<SandboxLimits>;
  /** Field prefix in error messages, e.g. "limits". */
  path?: string;
}): SandboxLimits {
  const base = options.base ?? DEFAULT_SANDBOX_LIMITS;
  const override = parseWith({
    schema: PartialSandboxLimitsSchema,
    value: options.override ?? {},
    what: "sandbox limits",
    path: options.path ?? "limits",
  });
  const merged: SandboxLimits = {
    timeMs: override.timeMs ?? base.timeMs,
    memoryBytes: override.memoryBytes ?? base.memoryBytes,
    stackBytes: override.stackBytes ?? base.stackBytes,
    outputBytes: override.outputBytes ?? base.outputBytes,
  };
  return parseWith({
    schema: SandboxLimitsSchema,
    value: merged,
    what: "sandbox limits",
    path: options.path ?? "limits",
  });
}
