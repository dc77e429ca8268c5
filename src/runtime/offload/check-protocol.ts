/**
 * Messages between the check pool (check-pool.ts, main thread) and a check worker (check-worker.ts).
 * A policy crosses once per worker: the pool names each policy by a digest of its content and sends the
 * policy itself only to a worker that does not hold it yet; `evict` tells the worker which policies it
 * may forget, so both sides agree on what the worker holds without asking.
 */
import type { ErrorCode } from "../../core/errors.js";
import type { Policy } from "../../core/policy.js";
import type { AssessOptions, CompiledAssessment } from "../../engines/compiled/compiled-engine.js";

export interface AssessJobMessage {
  type: "assess";
  id: number;
  digest: string;
  /** Present when the worker does not hold the policy of this digest yet. */
  policy?: Policy;
  /** Digests the worker may forget (the pool no longer counts on them). */
  evict?: string[];
  failMode: "closed" | "open";
  /** The rest of `assess`'s options (the subject, skipTemporal...), as the engine gave them. */
  options: Omit<AssessOptions, "policy" | "started">;
}

export type FromCheckWorkerMessage =
  | { type: "assessed"; id: number; assessment: CompiledAssessment }
  /** The compiled path threw (a bug or misuse): the pool rejects with the same code and message. */
  | { type: "threw"; id: number; error: { code: ErrorCode; message: string } };
