/**
 * The QuickJS sandbox: a pool of worker threads, each holding one loaded QuickJS wasm module, that runs
 * guardrail programs from a FIFO queue. Each worker gets up to two runs at a time (it works through them
 * in order), so it never sits idle waiting for the main thread to hand it the next one.
 *
 * Limits are enforced twice: inside QuickJS (interrupt deadline, heap limit, stack limit, output cap) and
 * by a host-side watchdog that terminates and replaces a worker whose current run does not answer within
 * the time limit plus a margin (a long built-in call that never reaches QuickJS's interrupt check); runs
 * queued behind it on that worker go back to the front of the queue. A caller's AbortSignal removes a
 * queued run at once and stops a running one at the next interrupt check, through shared memory.
 */
import os from "node:os";
import { Worker } from "node:worker_threads";
import { z } from "zod";
import { type ErrorCode, WardenError } from "../core/errors.js";
import { parseWith } from "../core/validate.js";
import { workerEntryUrl } from "../util/worker-entry.js";
import { PartialSandboxLimitsSchema, resolveSandboxLimits } from "./limits.js";
import type { Sandbox, SandboxLimits, SandboxResult, SandboxRunOptions } from "./sandbox.js";
import {
  type FromWorkerMessage,
  PIPELINE_DEPTH,
  type RunJobMessage,
  type WorkerInit,
} from "./worker-protocol.js";

export interface QuickJsSandboxOptions {
  /** Worker threads in the pool (default: available parallelism - 1, at least 1). */
  workers?: number;
  /** Limits of every run unless the run overrides them (default: DEFAULT_SANDBOX_LIMITS). */
  limits?: Partial<SandboxLimits>;
  /** Grace after a run's time limit before its silent worker is replaced (default: max(1000, timeMs / 2)). */
  watchdogMarginMs?: number;
  /** Worker entry module, for bundlers that move it (default: found beside this module). */
  workerUrl?: URL;
}

export interface QuickJsSandboxStats {
  workers: number;
  /** Workers with at least one run in hand. */
  busy: number;
  queued: number;
  /** Runs answered since the pool was created. */
  runs: number;
  /** Workers terminated and replaced (watchdog, crash). */
  replaced: number;
}

export interface QuickJsSandbox extends Sandbox {
  /** Resolves once every worker has loaded QuickJS (runs queue up before that anyway). */
  ready(): Promise<void>;
  stats(): QuickJsSandboxStats;
}

const OptionsSchema = z
  .object({
    workers: z.number().int().min(1).max(256).optional(),
    limits: PartialSandboxLimitsSchema.optional(),
    watchdogMarginMs: z.number().int().min(0).max(600_000).optional(),
    workerUrl: z.instanceof(URL).optional(),
  })
  .strict();

const RunOptionsSchema = z
  .object({
    code: z.string(),
    data: z.unknown(),
    prelude: z.array(z.string()).optional(),
    limits: PartialSandboxLimitsSchema.optional(),
    signal: z.instanceof(AbortSignal).optional(),
  })
  .strict();

/** Native stack of each worker. QuickJS's own stack check (at most 4 MiB) must trip long before it. */
const WORKER_STACK_MB = 32;
/** A worker that has not loaded QuickJS by then is considered broken. */
const START_TIMEOUT_MS = 60_000;
/** Consecutive start failures after which queued runs are failed instead of waiting. */
const MAX_START_FAILURES = 3;
/** Prelude sets each worker keeps; older ones are evicted. */
const PRELUDES_PER_WORKER = 8;

interface Job {
  id: number;
  code: string;
  dataJson: string;
  preludeId: number;
  prelude: readonly string[];
  limits: SandboxLimits;
  resolve: (result: SandboxResult) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
  /** Where the worker looks for this run's abort flag. */
  controlIndex: number;
  queuedAt: number;
  /** When it became the run its worker is working on. */
  startedAt?: number;
  settled: boolean;
}

interface Slot {
  worker: Worker;
  control: Int32Array;
  state: "starting" | "ready" | "dead";
  /** Runs handed to the worker, in the order it works through them; the first is running. */
  jobs: Job[];
  sent: number;
  watchdog?: NodeJS.Timeout;
  startTimer?: NodeJS.Timeout;
  /** Prelude ids this worker holds, oldest first. */
  preludes: number[];
  readyWaiters: Array<() => void>;
}

function defaultWorkerUrl(): URL {
  return workerEntryUrl({ here: import.meta.url, name: "quickjs-worker", folder: "sandbox" });
}

function failure(code: ErrorCode, message: string, ms = 0): SandboxResult {
  return { ok: false, error: { code, message }, log: "", ms };
}

export function createQuickJsSandbox(options: QuickJsSandboxOptions = {}): QuickJsSandbox {
  return openQuickJsSandbox({ options });
}

/** createQuickJsSandbox with the package QuickJS is imported from given (tests: one not installed). */
export function openQuickJsSandbox(o: {
  options: QuickJsSandboxOptions;
  quickjsPackage?: string;
}): QuickJsSandbox {
  const config = parseWith({ schema: OptionsSchema, value: o.options, what: "sandbox options" });
  const size = config.workers ?? Math.max(1, os.availableParallelism() - 1);
  const baseLimits = resolveSandboxLimits({ override: config.limits ?? {} });
  const workerUrl = config.workerUrl ?? defaultWorkerUrl();

  const slots: Slot[] = [];
  let queue: Job[] = [];
  const preludeIds = new Map<string, number>();
  // Toolboxes hand out the same frozen array until they change, so most runs find their id without a join.
  const preludeIdsByArray = new WeakMap<readonly string[], number>();
  let nextId = 1;
  let closed = false;
  let runs = 0;
  let replaced = 0;
  let startFailures = 0;
  let lastStartError = "";
  /** Set when QuickJS cannot be loaded at all (not installed): every run fails with it, no worker respawns. */
  let unavailable: { code: ErrorCode; message: string } | undefined;

  function margin(limits: SandboxLimits): number {
    return config.watchdogMarginMs ?? Math.max(1000, Math.round(limits.timeMs / 2));
  }

  function preludeIdFor(prelude: readonly string[]): number {
    const known = preludeIdsByArray.get(prelude);
    if (known !== undefined) return known;
    const key = prelude.join("\u0000");
    let id = preludeIds.get(key);
    if (id === undefined) {
      // Bounded: a long-lived pool that sees many toolbox versions forgets old ids (workers re-learn them).
      if (preludeIds.size >= 256) preludeIds.clear();
      id = nextId++;
      preludeIds.set(key, id);
    }
    if (Object.isFrozen(prelude)) preludeIdsByArray.set(prelude, id);
    return id;
  }

  function settle(job: Job, result: SandboxResult): void {
    if (job.settled) return;
    job.settled = true;
    runs++;
    if (job.signal && job.onAbort) job.signal.removeEventListener("abort", job.onAbort);
    job.resolve(result);
  }

  function spawn(index: number): void {
    const control = new Int32Array(new SharedArrayBuffer(4 * PIPELINE_DEPTH));
    const init: WorkerInit = {
      control: control.buffer as SharedArrayBuffer,
      ...(o.quickjsPackage ? { quickjsPackage: o.quickjsPackage } : {}),
    };
    const worker = new Worker(workerUrl, {
      workerData: init,
      resourceLimits: { stackSizeMb: WORKER_STACK_MB },
    });
    // Idle workers must not keep the process alive; runs in hand hold it through their watchdog timer.
    worker.unref();
    const slot: Slot = {
      worker,
      control,
      state: "starting",
      jobs: [],
      sent: 0,
      preludes: [],
      readyWaiters: [],
    };
    slot.startTimer = setTimeout(() => {
      lost(slot, `the sandbox worker did not start within ${START_TIMEOUT_MS} ms`);
    }, START_TIMEOUT_MS);
    worker.on("message", (message: FromWorkerMessage) => onMessage(slot, message));
    worker.on("error", (error) => lost(slot, error instanceof Error ? error.message : String(error)));
    worker.on("messageerror", (error) =>
      lost(slot, `a message from the sandbox worker could not be read: ${error.message}`),
    );
    worker.on("exit", (code) => lost(slot, `the sandbox worker exited (code ${code})`));
    slots[index] = slot;
  }

  /** Makes the worker's first run the current one and starts its watchdog. */
  function armWatchdog(slot: Slot): void {
    clearTimeout(slot.watchdog);
    const head = slot.jobs[0];
    if (!head) return;
    head.startedAt = performance.now();
    slot.watchdog = setTimeout(() => hung(slot), head.limits.timeMs + margin(head.limits));
  }

  function onMessage(slot: Slot, message: FromWorkerMessage): void {
    if (slot.state === "dead") return;
    if (message.type === "ready") {
      clearTimeout(slot.startTimer);
      slot.state = "ready";
      startFailures = 0;
      for (const wake of slot.readyWaiters.splice(0)) wake();
      dispatch();
    } else if (message.type === "fatal") {
      if (message.code === "MISSING_DEPENDENCY") giveUp({ code: message.code, message: message.message });
      else lost(slot, message.message);
    } else if (message.type === "result") {
      const head = slot.jobs[0];
      if (!head || head.id !== message.id) return;
      slot.jobs.shift();
      armWatchdog(slot);
      settle(head, message.result);
      dispatch();
    }
  }

  /**
   * A worker died or must be abandoned: its current run fails (with `headResult`, or as an internal
   * error), the runs queued behind it go back to the front of the queue, and a new worker replaces it.
   */
  function lost(slot: Slot, reason: string, headResult?: SandboxResult): void {
    if (slot.state === "dead") return;
    const wasStarting = slot.state === "starting";
    slot.state = "dead";
    clearTimeout(slot.watchdog);
    clearTimeout(slot.startTimer);
    for (const wake of slot.readyWaiters.splice(0)) wake();
    void slot.worker.terminate().catch(() => undefined);
    const [head, ...rest] = slot.jobs;
    slot.jobs = [];
    if (head) {
      settle(
        head,
        headResult ??
          failure("SANDBOX_INTERNAL", `The sandbox worker failed while running the program: ${reason}`),
      );
    }
    queue = [...rest.filter((j) => !j.settled), ...queue];
    if (closed) return;
    replaced++;
    if (wasStarting) {
      startFailures++;
      lastStartError = reason;
    }
    if (startFailures >= MAX_START_FAILURES) {
      if (slots.every((s) => s.state === "dead")) {
        for (const queued of queue.splice(0)) {
          settle(
            queued,
            failure("SANDBOX_INTERNAL", `The sandbox workers could not start: ${lastStartError}`),
          );
        }
      }
      return;
    }
    spawn(slots.indexOf(slot));
    dispatch();
  }

  /** QuickJS is not there: retrying cannot help, so every run in hand, queued or to come fails with why. */
  function giveUp(error: { code: ErrorCode; message: string }): void {
    unavailable = error;
    for (const slot of slots) {
      if (slot.state === "dead") continue;
      slot.state = "dead";
      clearTimeout(slot.watchdog);
      clearTimeout(slot.startTimer);
      for (const wake of slot.readyWaiters.splice(0)) wake();
      void slot.worker.terminate().catch(() => undefined);
      for (const job of slot.jobs.splice(0)) settle(job, failure(error.code, error.message));
    }
    for (const job of queue.splice(0)) settle(job, failure(error.code, error.message));
  }

  function hung(slot: Slot): void {
    const head = slot.jobs[0];
    if (!head) return;
    const ms = Math.round(performance.now() - (head.startedAt ?? head.queuedAt));
    lost(
      slot,
      "terminated by the watchdog",
      failure(
        "SANDBOX_TIMEOUT",
        `Time limit exceeded: the program ran for more than ${head.limits.timeMs} ms and did not stop (a long built-in operation, e.g. a search over a huge string); its worker was terminated.`,
        ms,
      ),
    );
  }

  function dispatch(): void {
    while (queue.length > 0) {
      // The ready worker with the fewest runs in hand, so work spreads before it stacks.
      let best: Slot | undefined;
      for (const s of slots) {
        if (s.state !== "ready" || s.jobs.length >= PIPELINE_DEPTH) continue;
        if (!best || s.jobs.length < best.jobs.length) best = s;
      }
      if (!best) return;
      const job = queue.shift()!;
      if (job.settled) continue;
      // Aborted while it sat on a worker that was then replaced: its abort word went with that worker.
      if (job.signal?.aborted) {
        settle(job, failure("ABORTED", "The run was cancelled by the caller before it started."));
        continue;
      }
      send(best, job);
    }
  }

  function send(slot: Slot, job: Job): void {
    job.controlIndex = slot.sent++ % PIPELINE_DEPTH;
    slot.jobs.push(job);
    const message: RunJobMessage = {
      type: "run",
      id: job.id,
      code: job.code,
      dataJson: job.dataJson,
      preludeId: job.preludeId,
      limits: job.limits,
      control: job.controlIndex,
    };
    if (!slot.preludes.includes(job.preludeId)) {
      message.prelude = job.prelude;
      slot.preludes.push(job.preludeId);
      if (slot.preludes.length > PRELUDES_PER_WORKER) message.evict = slot.preludes.splice(0, 1);
    }
    slot.worker.postMessage(message);
    if (slot.jobs.length === 1) armWatchdog(slot);
  }

  function ensureWorkers(): void {
    if (slots.some((s) => s.state !== "dead")) return;
    startFailures = 0;
    for (let i = 0; i < size; i++) spawn(i);
  }

  for (let i = 0; i < size; i++) spawn(i);

  async function run(runOptions: SandboxRunOptions): Promise<SandboxResult> {
    const parsed = parseWith({ schema: RunOptionsSchema, value: runOptions, what: "sandbox run options" });
    if (closed) return failure("ABORTED", "The sandbox is closed.");
    if (unavailable) return failure(unavailable.code, unavailable.message);
    const limits = parsed.limits
      ? resolveSandboxLimits({ base: baseLimits, override: parsed.limits })
      : baseLimits;
    let dataJson: string;
    try {
      dataJson = JSON.stringify(parsed.data === undefined ? null : parsed.data);
    } catch (error) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `Invalid sandbox run options: data: must be JSON-serialisable (${error instanceof Error ? error.message : String(error)})`,
        details: { fields: ["data"] },
      });
    }
    if (parsed.signal?.aborted)
      return failure("ABORTED", "The run was cancelled by the caller before it started.");
    ensureWorkers();
    // The caller's own array (not zod's copy), so a toolbox's frozen prelude is recognised by identity.
    const prelude = runOptions.prelude ?? [];
    return new Promise<SandboxResult>((resolve) => {
      const job: Job = {
        id: nextId++,
        code: parsed.code,
        dataJson,
        preludeId: preludeIdFor(prelude),
        prelude,
        limits,
        resolve,
        controlIndex: 0,
        queuedAt: performance.now(),
        settled: false,
      };
      if (parsed.signal) {
        const signal = parsed.signal;
        job.signal = signal;
        job.onAbort = () => {
          const index = queue.indexOf(job);
          if (index >= 0) {
            queue.splice(index, 1);
            settle(job, failure("ABORTED", "The run was cancelled by the caller before it started."));
            return;
          }
          const slot = slots.find((s) => s.jobs.includes(job));
          if (slot) Atomics.store(slot.control, job.controlIndex, job.id);
        };
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      queue.push(job);
      dispatch();
    });
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    for (const job of queue.splice(0))
      settle(job, failure("ABORTED", "The sandbox was closed before the run started."));
    const terminations: Promise<unknown>[] = [];
    for (const slot of slots) {
      clearTimeout(slot.watchdog);
      clearTimeout(slot.startTimer);
      for (const job of slot.jobs.splice(0)) {
        settle(job, failure("ABORTED", "The sandbox was closed while the program was running."));
      }
      for (const wake of slot.readyWaiters.splice(0)) wake();
      if (slot.state !== "dead") {
        slot.state = "dead";
        terminations.push(slot.worker.terminate().catch(() => undefined));
      }
    }
    await Promise.all(terminations);
  }

  async function ready(): Promise<void> {
    await Promise.all(
      slots.map((slot) =>
        slot.state === "starting"
          ? new Promise<void>((resolve) => slot.readyWaiters.push(resolve))
          : undefined,
      ),
    );
  }

  function stats(): QuickJsSandboxStats {
    return {
      workers: slots.filter((s) => s.state !== "dead").length,
      busy: slots.filter((s) => s.jobs.length > 0).length,
      queued: queue.length,
      runs,
      replaced,
    };
  }

  return { run, close, ready, stats };
}
