/**
 * One check against a time limit, for every face that answers checks for someone waiting (the guard
 * service behind the HTTP and MCP servers, the MCP guard proxy, `warden check`). Past the limit the
 * answer is a fail-closed CHECK_TIMEOUT deny, given at once: the engine is signalled to stop, but a hung
 * engine may ignore the signal, so the timer races it and its late result, or late rejection, is dropped.
 * The timer can fire only while the event loop is free: compiled checks of large subjects therefore run
 * in worker threads (src/runtime/offload/check-pool.ts), and the abort terminates the worker.
 */
import type { CheckTrust } from "../core/caller.js";
import { type Decision, failureDecision, zeroCost } from "../core/decision.js";
import { WardenError } from "../core/errors.js";
import { type Policy, policyRef } from "../core/policy.js";
import type { Subject } from "../core/subject.js";
import type { Engine } from "../engines/engine.js";
import { inlineCheckOf } from "../engines/inline-check.js";

const TIMED_OUT = Symbol("timed out");

/**
 * How a caller says it gave up on a check: called with `cancel`, it arranges for `cancel(reason)` to be
 * called then (at once when it already has), and returns how to stop. An AbortSignal is one way
 * (cancellationOf); a face that hears of it another way (the HTTP service: Node's response closing)
 * hands this instead, so a check costs one AbortController, not two and the EventTarget listeners
 * between them (several µs a check, more than some of the checks).
 */
export type Cancellation = (cancel: (reason: unknown) => void) => () => void;

const stayUnlinked = () => undefined;

/**
 * The cancellation of a signal. What AbortSignal.any does for two signals, without its cost per call (on
 * Node 20 it tracks the combined signal for garbage collection: tens of µs per check).
 */
export function cancellationOf(signal: AbortSignal): Cancellation {
  return (cancel) => {
    if (signal.aborted) {
      cancel(signal.reason);
      return stayUnlinked;
    }
    const onAbort = () => cancel(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    return () => signal.removeEventListener("abort", onAbort);
  };
}

/**
 * Runs `run` against a timer: its result, or TIMED_OUT once `limitMs` has passed. `run` gets a signal
 * aborted by the caller's cancellation (or signal) or by the timer, but the answer does not wait for it
 * to stop: its late result, or late rejection, is dropped. Shared by checkWithin and the CLI's
 * trajectory replay.
 */
export function raceLimit<T>(options: {
  run: (signal: AbortSignal) => Promise<T>;
  limitMs: number;
  signal?: AbortSignal;
  /** The caller's cancellation, instead of `signal`. */
  cancellation?: Cancellation;
}): Promise<T | typeof TIMED_OUT> {
  const { limitMs, signal } = options;
  const timer = new AbortController();
  const cancellation = options.cancellation ?? (signal ? cancellationOf(signal) : undefined);
  const unlink = cancellation ? cancellation((reason) => timer.abort(reason)) : stayUnlinked;
  return new Promise<T | typeof TIMED_OUT>((resolve, reject) => {
    let settled = false;
    const timeout = setTimeout(() => {
      // Settle before aborting, so a run that rejects at once on abort does not win the race.
      settled = true;
      unlink();
      resolve(TIMED_OUT);
      timer.abort(
        new WardenError({ code: "CHECK_TIMEOUT", message: `the check did not finish within ${limitMs} ms` }),
      );
    }, limitMs);
    const settle = () => {
      if (settled) return false;
      settled = true;
      clearTimeout(timeout);
      unlink();
      return true;
    };
    let running: Promise<T>;
    try {
      running = options.run(timer.signal);
    } catch (error) {
      running = Promise.reject(error);
    }
    // A late result, or late rejection, is dropped (handled here, so it is never unhandled).
    running.then(
      (value) => {
        if (settle()) resolve(value);
      },
      (error: unknown) => {
        if (settle()) reject(error);
      },
    );
  });
}

/** Whether raceLimit's answer is the timer's. */
export function timedOut<T>(outcome: T | typeof TIMED_OUT): outcome is typeof TIMED_OUT {
  return outcome === TIMED_OUT;
}

/** The fail-closed decision of a check past its time limit. */
export function checkTimeoutDecision(options: {
  engine: string;
  policy: Policy;
  limitMs: number;
  /** performance.now() when the check began, for the decision's cost. */
  started: number;
}): Decision {
  const cost = zeroCost();
  cost.ms = performance.now() - options.started;
  // Always fail-closed: allowing whatever is slow enough to check would let a caller buy an allow by
  // making the check slow, so a fail-open configuration applies to the engines' failures only.
  return failureDecision({
    engine: options.engine,
    policy: policyRef(options.policy),
    code: "CHECK_TIMEOUT",
    message: `the check did not finish within ${options.limitMs} ms; nothing was allowed`,
    cost,
  });
}

/**
 * Runs one check (engine lookup included) against a timer. The engine gets a signal aborted by the
 * caller's or by the timer, but the answer does not wait for it to stop: a hung engine may ignore the
 * signal, so the timer races it and the engine's late result, or late rejection, is dropped.
 */
export interface CheckWithinOptions {
  policy: Policy;
  subject: Subject;
  /** The engine, or how to get it (the lookup is then inside the limit too). */
  getEngine: () => Promise<Engine>;
  /** Named in the timeout decision when the engine was not got in time. */
  engineName: string;
  limitMs: number;
  /** performance.now() when the check began, for the decision's cost. */
  started: number;
  signal?: AbortSignal;
  /** The caller's cancellation, instead of `signal`. */
  cancellation?: Cancellation;
  /** What the check takes on trust from its caller (passed to the engine). */
  trust?: CheckTrust;
}

export async function checkWithin(options: CheckWithinOptions): Promise<Decision> {
  const { policy, subject, limitMs, signal, trust } = options;
  let engine: Engine | undefined;
  const callers = options.cancellation ?? (signal ? cancellationOf(signal) : undefined);
  let cancelled = false;
  const outcome = await raceLimit({
    limitMs,
    ...(callers
      ? {
          cancellation: (cancel: (reason: unknown) => void) =>
            callers((reason) => {
              cancelled = true;
              cancel(reason);
            }),
        }
      : {}),
    run: async (combined) => {
      engine = await options.getEngine();
      return engine.check({ policy, subject, signal: combined, ...(trust ? { trust } : {}) });
    },
  });
  if (!timedOut(outcome)) return outcome;
  if (cancelled || signal?.aborted) {
    // The caller gave up first (client went away, request cancelled): that stays a cancellation, which
    // is what a well-behaved engine answers to the caller's abort; the limit only stopped the wait.
    throw new WardenError({
      code: "ABORTED",
      message: `the check was cancelled by the caller and its engine did not stop within ${limitMs} ms`,
      details: { limitMs },
    });
  }
  return checkTimeoutDecision({
    engine: (engine as Engine | undefined)?.name ?? options.engineName,
    policy,
    limitMs,
    started: options.started,
  });
}

/**
 * One check as the faces run it: by the engine's inline check when `ready` (the engine, already built)
 * has one and the check needs no waiting — no timer, AbortController or promise race, which a
 * synchronous check could not be stopped by anyway (the limit fires only once the event loop is free) —
 * else against the time limit (checkWithin), or without one when `limitMs` is 0.
 */
export async function checkBounded(
  options: CheckWithinOptions & {
    /** The engine when it is built already (its inline check is tried first). */
    ready?: Engine;
    /** 0 for no limit. */
    limitMs: number;
  },
): Promise<Decision> {
  const { policy, subject, trust } = options;
  const inline = options.ready ? inlineCheckOf({ engine: options.ready }) : undefined;
  const now = inline?.({ policy, subject, ...(trust ? { trust } : {}) });
  if (now) return now;
  if (options.limitMs === 0) return checkUnlimited(options);
  return checkWithin(options);
}

/** A check without a time limit; a caller's cancellation becomes the engine's signal. */
async function checkUnlimited(options: {
  policy: Policy;
  subject: Subject;
  getEngine: () => Promise<Engine>;
  signal?: AbortSignal;
  cancellation?: Cancellation;
  trust?: CheckTrust;
}): Promise<Decision> {
  const { policy, subject, trust, cancellation } = options;
  const engine = await options.getEngine();
  if (!cancellation) {
    const { signal } = options;
    return engine.check({ policy, subject, ...(signal ? { signal } : {}), ...(trust ? { trust } : {}) });
  }
  const controller = new AbortController();
  const unlink = cancellation((reason) => controller.abort(reason));
  try {
    return await engine.check({ policy, subject, signal: controller.signal, ...(trust ? { trust } : {}) });
  } finally {
    unlink();
  }
}
