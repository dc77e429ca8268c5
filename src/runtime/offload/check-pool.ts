/**
 * The check pool: compiled checks of large subjects run in worker threads, off the event loop, so that a
 * check's time limit (check-within.ts) can fire and the rest of the process (/healthz, other requests,
 * the MCP proxy's transport) keeps answering while one adversarial subject is judged. Small subjects
 * stay inline: their work is bounded and a round trip to a worker would cost more than the check.
 *
 * One check per worker at a time, so a worker can be terminated without losing anyone else's check:
 * when a check's signal aborts (its time limit, or its caller gave up) while a worker runs it, that
 * worker is terminated — which is what reclaims the CPU — and a fresh one starts on the next check. A
 * worker that dies (out of memory under `resourceLimits`, a crash) answers its check with a fail-closed
 * CHECK_WORKER_FAILED decision, never an allow. Workers start on first need, are unref'd while idle (an
 * idle pool never keeps the process alive) and are ref'd while they hold a check (a CLI waiting for
 * one does not exit under it).
 *
 * A policy crosses to a worker once per content (a digest names it); the worker keeps it, so the
 * compiled engine's per-policy cache compiles it once per worker.
 */
import os from "node:os";
import type { Worker } from "node:worker_threads";
import { z } from "zod";
import { failureDecision, zeroCost } from "../../core/decision.js";
import { isWardenError, WardenError } from "../../core/errors.js";
import { lazyModule } from "../../core/lazy-module.js";
import { type Policy, policyRef } from "../../core/policy.js";
import type { Subject } from "../../core/subject.js";
import { parseWith } from "../../core/validate.js";
import type { CompiledAssessment, CompiledOffload } from "../../engines/compiled/compiled-engine.js";
import { workerEntryUrl } from "../../util/worker-entry.js";
import type { AssessJobMessage, FromCheckWorkerMessage } from "./check-protocol.js";
import { exceedsSize } from "./subject-size.js";

export interface CheckPoolOptions {
  /** Worker threads at most (default: available parallelism - 1, between 1 and 2). */
  workers?: number;
  /** Subjects larger than this (about their JSON size) are checked in a worker (default 32 KiB). */
  thresholdBytes?: number;
  /** Old-generation heap of each worker in MiB; past it the worker dies and its check is denied (default 512). */
  memoryMb?: number;
  /** Worker entry module, for bundlers that move it and for tests (default: found beside this module). */
  workerUrl?: URL;
}

export interface CheckPoolStats {
  /** Workers started and alive. */
  workers: number;
  /** Workers holding a check. */
  busy: number;
  queued: number;
  /** Checks answered by a worker since the pool was created. */
  checks: number;
  /** Workers terminated (time limit, cancellation) or lost (crash, out of memory). */
  replaced: number;
}

export interface CheckPool extends CompiledOffload {
  stats(): CheckPoolStats;
  close(): Promise<void>;
}

export const DEFAULT_OFFLOAD_THRESHOLD_BYTES = 32 * 1024;
const DEFAULT_MEMORY_MB = 512;
/** Policies each worker keeps; older ones are evicted (and sent again if needed). */
const POLICIES_PER_WORKER = 16;

const OptionsSchema = z
  .object({
    workers: z.number().int().min(1).max(64).optional(),
    thresholdBytes: z.number().int().min(0).optional(),
    memoryMb: z.number().int().min(16).max(65_536).optional(),
    workerUrl: z.instanceof(URL).optional(),
  })
  .strict();

type Assess = Parameters<CompiledOffload["assess"]>[0];

interface Job {
  id: number;
  assess: Assess;
  resolve: (assessment: CompiledAssessment) => void;
  reject: (error: unknown) => void;
  onAbort?: () => void;
  settled: boolean;
}

interface Slot {
  worker: Worker;
  job?: Job;
  /** Digests of the policies this worker holds, oldest first. */
  policies: string[];
}

function defaultWorkerUrl(): URL {
  return workerEntryUrl({ here: import.meta.url, name: "check-worker", folder: "runtime/offload" });
}

/** Loaded when the first worker starts: a check of a small subject (`warden check`) never needs it. */
const workerThreads = lazyModule<typeof import("node:worker_threads")>({ specifier: "node:worker_threads" });
/** Loaded with the first offloaded check (its policy digest): a small subject never needs it. */
const crypto = lazyModule<typeof import("node:crypto")>({ specifier: "node:crypto" });

const digests = new WeakMap<Policy, string>();

/** The policy's content digest, computed once per policy object. */
function digestOf(policy: Policy): string {
  let digest = digests.get(policy);
  if (!digest) {
    digest = crypto().createHash("sha256").update(JSON.stringify(policy)).digest("hex");
    digests.set(policy, digest);
  }
  return digest;
}

/** Why the check was cancelled: the signal's reason when it is ours (CHECK_TIMEOUT, ABORTED). */
function abortError(signal: AbortSignal): unknown {
  return isWardenError(signal.reason)
    ? signal.reason
    : new WardenError({ code: "ABORTED", message: "the check was cancelled by the caller" });
}

/** The fail-closed answer of a check its worker could not finish (whatever the engine's failMode). */
function workerFailed(assess: Assess, message: string): CompiledAssessment {
  return {
    decided: true,
    decision: failureDecision({
      engine: "compiled",
      policy: policyRef(assess.policy),
      code: "CHECK_WORKER_FAILED",
      message: `${message}; nothing was allowed`,
      mode: "closed",
      cost: zeroCost(),
    }),
  };
}

function describeExit(error: unknown, memoryMb: number): string {
  if ((error as { code?: unknown })?.code === "ERR_WORKER_OUT_OF_MEMORY") {
    return `the check worker ran out of memory (limit ${memoryMb} MiB) judging this subject`;
  }
  return `the check worker failed: ${error instanceof Error ? error.message : String(error)}`;
}

export function createCheckPool(options: CheckPoolOptions = {}): CheckPool {
  const config = parseWith({ schema: OptionsSchema, value: options, what: "check pool options" });
  const size = config.workers ?? Math.min(2, Math.max(1, os.availableParallelism() - 1));
  const thresholdBytes = config.thresholdBytes ?? DEFAULT_OFFLOAD_THRESHOLD_BYTES;
  const memoryMb = config.memoryMb ?? DEFAULT_MEMORY_MB;
  const workerUrl = config.workerUrl ?? defaultWorkerUrl();
  const slots: (Slot | undefined)[] = new Array(size).fill(undefined);
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;
  let checks = 0;
  let replaced = 0;

  function settle(job: Job, outcome: { assessment: CompiledAssessment } | { error: unknown }): void {
    if (job.settled) return;
    job.settled = true;
    if (job.onAbort) job.assess.signal?.removeEventListener("abort", job.onAbort);
    if ("assessment" in outcome) job.resolve(outcome.assessment);
    else job.reject(outcome.error);
  }

  function spawn(index: number): Slot {
    const worker = new (workerThreads().Worker)(workerUrl, {
      resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    });
    worker.unref();
    const slot: Slot = { worker, policies: [] };
    worker.on("message", (message: FromCheckWorkerMessage) => onMessage(slot, message));
    worker.on("error", (error) => lost(slot, describeExit(error, memoryMb)));
    worker.on("messageerror", (error) => lost(slot, describeExit(error, memoryMb)));
    worker.on("exit", (code) => lost(slot, `the check worker exited (code ${code})`));
    slots[index] = slot;
    return slot;
  }

  /** Ends a worker: it is terminated, forgotten, and a fresh one starts when the next check needs it. */
  function retire(slot: Slot): Job | undefined {
    const index = slots.indexOf(slot);
    if (index < 0) return undefined;
    slots[index] = undefined;
    replaced++;
    void slot.worker.terminate().catch(() => undefined);
    const job = slot.job;
    slot.job = undefined;
    return job;
  }

  function lost(slot: Slot, reason: string): void {
    const job = retire(slot);
    if (job) settle(job, { assessment: workerFailed(job.assess, reason) });
    dispatch();
  }

  function onMessage(slot: Slot, message: FromCheckWorkerMessage): void {
    const job = slot.job;
    if (!job || job.id !== message.id) return;
    slot.job = undefined;
    slot.worker.unref();
    checks++;
    if (message.type === "assessed") settle(job, { assessment: message.assessment });
    else settle(job, { error: new WardenError(message.error) });
    dispatch();
  }

  function send(slot: Slot, job: Job): void {
    const { policy, failMode, signal: _signal, ...options } = job.assess;
    const digest = digestOf(policy);
    const message: AssessJobMessage = { type: "assess", id: job.id, digest, failMode, options };
    const known = slot.policies.includes(digest);
    if (!known) {
      message.policy = policy;
      if (slot.policies.length >= POLICIES_PER_WORKER) message.evict = slot.policies.slice(0, 1);
    }
    try {
      slot.worker.postMessage(message);
    } catch (error) {
      // Nothing was sent (the subject or policy could not be cloned): the worker is still idle.
      const why = error instanceof Error ? error.message : String(error);
      settle(job, {
        assessment: workerFailed(job.assess, `the subject could not be sent to a check worker (${why})`),
      });
      return;
    }
    if (!known) {
      slot.policies.push(digest);
      if (message.evict) slot.policies.splice(0, 1);
    }
    slot.job = job;
    slot.worker.ref();
  }

  function dispatch(): void {
    while (queue.length > 0 && !closed) {
      const index = slots.findIndex((s) => !s?.job);
      if (index < 0) return;
      const job = queue.shift()!;
      if (job.settled) continue;
      send(slots[index] ?? spawn(index), job);
    }
  }

  function onAbort(job: Job): void {
    const signal = job.assess.signal!;
    const queued = queue.indexOf(job);
    if (queued >= 0) queue.splice(queued, 1);
    // Terminating the worker is what stops the work: a synchronous check never looks at the signal.
    const slot = slots.find((s) => s?.job === job);
    if (slot) retire(slot);
    settle(job, { error: abortError(signal) });
    dispatch();
  }

  return {
    wants: ({ subject }: { subject: Subject }) => exceedsSize({ value: subject, bytes: thresholdBytes }),
    assess(assess) {
      if (closed) {
        return Promise.reject(new WardenError({ code: "ABORTED", message: "the check workers are closed" }));
      }
      if (assess.signal?.aborted) return Promise.reject(abortError(assess.signal));
      return new Promise<CompiledAssessment>((resolve, reject) => {
        const job: Job = { id: nextId++, assess, resolve, reject, settled: false };
        if (assess.signal) {
          job.onAbort = () => onAbort(job);
          assess.signal.addEventListener("abort", job.onAbort, { once: true });
        }
        queue.push(job);
        dispatch();
      });
    },
    stats: () => ({
      workers: slots.filter(Boolean).length,
      busy: slots.filter((s) => s?.job).length,
      queued: queue.length,
      checks,
      replaced,
    }),
    async close() {
      if (closed) return;
      closed = true;
      const cancelled = new WardenError({ code: "ABORTED", message: "the check workers were closed" });
      for (const job of queue.splice(0)) settle(job, { error: cancelled });
      const terminations: Promise<unknown>[] = [];
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i];
        if (!slot) continue;
        slots[i] = undefined;
        if (slot.job) settle(slot.job, { error: cancelled });
        terminations.push(slot.worker.terminate().catch(() => undefined));
      }
      await Promise.all(terminations);
    },
  };
}
