/**
 * Server-side guard sessions: a run's steps decided one by one, each against the steps before it (tool
 * rules, temporal rules, the shield), with the state in the store so every instance sharing the database
 * answers the same for one session.
 *
 * A step is exactly a tool call with history (GuardService.checkToolCall: names resolved, one subject
 * built by core/tool-call.ts): the action is the tool, `args` its arguments, the rest of the step (url,
 * element, value…) rides along, the session's input is the task and its context the caller's context.
 * The history is the earlier steps that may have run — every step not denied (an ask may have been
 * confirmed), as `warden hook` reads its session log.
 *
 * Concurrent steps of one session serialise: in this process through a queue per session; across
 * processes through Store.appendSessionStep, which appends only at the step count the decision was made
 * against, so a writer that lost the race decides again against the longer trajectory. A session that
 * keeps losing is an error (never an allow). A session belongs to whoever opened it: to anyone else it
 * does not exist.
 */
import type { Caller } from "../core/caller.js";
import type { Decision } from "../core/decision.js";
import { WardenError } from "../core/errors.js";
import { MAX_TRAJECTORY_STEPS, type Step } from "../core/subject.js";
import type { GuardSession, GuardSessionStep, Store } from "../store/store.js";
import type { CheckOptions, GuardService } from "./guard-service.js";

/** How many times a step is decided again after other writers appended first. */
export const MAX_STEP_ATTEMPTS = 8;

export interface GuardSessions {
  open(options: {
    caller: Caller;
    policy: string;
    input: string;
    context?: Record<string, unknown>;
  }): Promise<GuardSession>;
  /** The session's Decision for one more step, recorded in the session with its verdict. */
  step(
    options: Omit<CheckOptions, "policy" | "subject" | "caller"> & { caller: Caller; id: string; step: Step },
  ): Promise<Decision>;
  /** Ends the session (idempotent): no more steps are taken. */
  finish(options: { caller: Caller; id: string }): Promise<GuardSession>;
  /** The session and its steps. */
  get(options: { caller: Caller; id: string }): Promise<GuardSession & { steps: GuardSessionStep[] }>;
}

/** Who owns what a caller opens: the key's id, else the caller's fixed name ("anonymous", "library"). */
export function sessionOwnerOf(options: { caller: Caller }): string {
  const { caller } = options;
  return caller.keyId !== undefined ? `key:${caller.keyId}` : `caller:${caller.name}`;
}

/** The steps that may have run, as the trajectory before the next one. */
export function sessionHistory(options: { steps: readonly GuardSessionStep[] }): Step[] {
  return options.steps.filter((s) => s.verdict !== "deny").map((s) => s.step as Step);
}

export function createGuardSessions(options: { service: GuardService; store: Store }): GuardSessions {
  const { service, store } = options;
  /** The last step in flight per session in this process: the next one waits for it. */
  const queues = new Map<string, Promise<unknown>>();

  const owned = async ({ caller, id }: { caller: Caller; id: string }): Promise<GuardSession> => {
    const session = await store.getSession({ id });
    if (!session || session.owner !== sessionOwnerOf({ caller })) throw sessionNotFound({ id });
    return session;
  };

  const decideStep = async (
    request: Parameters<GuardSessions["step"]>[0],
    session: GuardSession,
  ): Promise<Decision> => {
    const { caller, id, step, ...common } = request;
    const { action, args, ...details } = step;
    for (let attempt = 0; attempt < MAX_STEP_ATTEMPTS; attempt++) {
      const steps = await store.listSessionSteps({ id });
      if (steps.length >= MAX_TRAJECTORY_STEPS) {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: `session ${id} has ${steps.length} steps, the most one trajectory may hold; finish it and open another`,
          details: { reason: "session-full", fields: ["step"] },
        });
      }
      const decision = await service.checkToolCall({
        ...common,
        caller,
        policy: session.policy,
        call: {
          name: action,
          arguments: args,
          history: sessionHistory({ steps }),
          input: session.input,
          ...(session.context ? { context: session.context } : {}),
        },
        ...(Object.keys(details).length > 0 ? { details } : {}),
      });
      const appended = await store.appendSessionStep({
        id,
        index: steps.length,
        step: step as Record<string, unknown>,
        verdict: decision.allowed ? "allow" : decision.verdict === "ask" ? "ask" : "deny",
      });
      if (appended.appended) return decision;
      if (appended.reason === "missing") throw sessionNotFound({ id });
      if (appended.reason === "finished") throw sessionFinished({ id });
      // "stale": another instance appended first; decide again against the longer trajectory.
    }
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `session ${id}: other writers kept appending steps first (${MAX_STEP_ATTEMPTS} tries); send the step again`,
      details: { reason: "session-busy" },
    });
  };

  return {
    async open({ caller, policy, input, context }) {
      service.getPolicy({ name: policy });
      return store.createSession({
        session: { owner: sessionOwnerOf({ caller }), policy, input, ...(context ? { context } : {}) },
      });
    },

    async step(request) {
      const session = await owned(request);
      if (session.finishedAt !== undefined) throw sessionFinished({ id: request.id });
      const before = queues.get(request.id) ?? Promise.resolve();
      const run = before.then(
        () => decideStep(request, session),
        () => decideStep(request, session),
      );
      queues.set(request.id, run);
      try {
        return await run;
      } finally {
        if (queues.get(request.id) === run) queues.delete(request.id);
      }
    },

    async finish({ caller, id }) {
      await owned({ caller, id });
      const finished = await store.finishSession({ id });
      if (!finished) throw sessionNotFound({ id });
      return finished;
    },

    async get({ caller, id }) {
      const session = await owned({ caller, id });
      return { ...session, steps: await store.listSessionSteps({ id }) };
    },
  };
}

function sessionNotFound(options: { id: string }): WardenError {
  return new WardenError({
    code: "INVALID_INPUT",
    message: `no session ${options.id} of this caller (open one with POST /v1/sessions)`,
    details: { reason: "session-not-found", fields: ["id"] },
  });
}

function sessionFinished(options: { id: string }): WardenError {
  return new WardenError({
    code: "INVALID_INPUT",
    message: `session ${options.id} is finished; open another for more steps`,
    details: { reason: "session-finished", fields: ["id"] },
  });
}
