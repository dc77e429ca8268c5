/**
 * What a check worker does with one job, apart from the thread it runs in (check-worker.ts is the thread's
 * entry; tests wrap this in workers of their own). The code is the same compiled engine the main thread
 * runs inline, so a decision does not depend on where it was made. Policies are kept by digest (see
 * check-protocol.ts) as the same objects, so the compiled engine's own per-policy cache compiles each
 * policy once per worker.
 */
import { isWardenError } from "../../core/errors.js";
import type { Policy } from "../../core/policy.js";
import { type CompiledEngine, createCompiledEngine } from "../../engines/compiled/compiled-engine.js";
// A worker answers synchronously, one job at a time: every extractor a policy may need is loaded up front.
import "../../engines/compiled/extractors/eager-extractors.js";
import type { AssessJobMessage, FromCheckWorkerMessage } from "./check-protocol.js";

const policies = new Map<string, Policy>();
const engines: Record<"closed" | "open", CompiledEngine> = {
  closed: createCompiledEngine({ failMode: "closed" }),
  open: createCompiledEngine({ failMode: "open" }),
};

/** The compiled assessment of one job, or what it threw. */
export function answerCheck(job: AssessJobMessage): FromCheckWorkerMessage {
  if (job.policy) policies.set(job.digest, job.policy);
  for (const digest of job.evict ?? []) policies.delete(digest);
  const policy = policies.get(job.digest);
  if (!policy) {
    return {
      type: "threw",
      id: job.id,
      error: { code: "INTERNAL", message: `the check worker does not hold policy ${job.digest}` },
    };
  }
  try {
    const assessment = engines[job.failMode].assess({ ...job.options, policy });
    return { type: "assessed", id: job.id, assessment };
  } catch (error) {
    return {
      type: "threw",
      id: job.id,
      error: isWardenError(error)
        ? { code: error.code, message: error.message }
        : { code: "INTERNAL", message: error instanceof Error ? error.message : String(error) },
    };
  }
}
