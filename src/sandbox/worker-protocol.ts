/**
 * Messages between the sandbox pool (main thread) and its QuickJS workers. Prelude sources are sent to a
 * worker once and referred to by id afterwards, so a run only carries the program and the case data.
 */
import type { ErrorCode } from "../core/errors.js";
import type { SandboxLimits, SandboxResult } from "./sandbox.js";

export interface WorkerInit {
  /** Abort words shared with the pool (PIPELINE_DEPTH of them): a word holding a run's id aborts it. */
  control: SharedArrayBuffer;
  /** The package QuickJS is imported from (default quickjs-emscripten; tests name one not installed). */
  quickjsPackage?: string;
}

/** Runs a worker holds at once: the running one and the next, so it never waits for the main thread. */
export const PIPELINE_DEPTH = 2;

export interface RunJobMessage {
  type: "run";
  id: number;
  code: string;
  dataJson: string;
  preludeId: number;
  /** Present the first time this worker sees `preludeId`. */
  prelude?: readonly string[];
  /** Prelude ids the worker may forget (the pool keeps only a few per worker). */
  evict?: readonly number[];
  limits: SandboxLimits;
  /** Index of this run's abort word in the control array. */
  control: number;
}

export type ToWorkerMessage = RunJobMessage;

export type FromWorkerMessage =
  | { type: "ready" }
  | { type: "result"; id: number; result: SandboxResult }
  /** The worker cannot run programs; MISSING_DEPENDENCY (QuickJS not installed) is final, others are retried. */
  | { type: "fatal"; message: string; code?: ErrorCode };
