/**
 * Server-side sessions over HTTP (runtime/guard-sessions.ts):
 *   POST /v1/sessions                { policy, input?, context? }  -> 201 session ({ id, … })
 *   POST /v1/sessions/:id/steps      { step, engine? }             -> 200 Decision for that step
 *   POST /v1/sessions/:id/finish                                   -> 200 session, finished
 *   GET  /v1/sessions/:id                                          -> 200 session with its steps
 * Scope `check`; the session's policy must be one the key may use; a session belongs to the key that
 * opened it (another key's session is answered 404, as if it did not exist).
 */
import type { Context, Hono } from "hono";
import { trustOf } from "../../core/caller.js";
import { WardenError } from "../../core/errors.js";
import { parseWith } from "../../core/validate.js";
import type { Cancellation } from "../../runtime/check-within.js";
import type { GuardSessions } from "../../runtime/guard-sessions.js";
import type { AppEnv } from "../app-env.js";
import { requirePolicy, requireScope } from "../authenticator.js";
import { OpenSessionRequestSchema, SessionStepRequestSchema, sessionView } from "../session-request.js";

export function useSessionRoutes(options: {
  app: Hono<AppEnv>;
  /** Absent: the routes answer UNSUPPORTED (501), since the server keeps no store for them. */
  sessions?: GuardSessions;
  bodyOf: (c: Context<AppEnv>) => Promise<unknown>;
  cancellationOf: (c: Context<AppEnv>) => Cancellation;
}): void {
  const { app, bodyOf } = options;
  const sessions: GuardSessions = options.sessions ?? {
    open: unsupported,
    step: unsupported,
    finish: unsupported,
    get: unsupported,
  };

  app.post("/v1/sessions", async (c) => {
    const caller = c.get("caller");
    requireScope({ caller, scopes: ["check"], what: "POST /v1/sessions" });
    const request = parseWith({
      schema: OpenSessionRequestSchema,
      value: await bodyOf(c),
      what: "request body",
    });
    requirePolicy({ caller, policy: request.policy });
    c.set("policy", request.policy);
    const session = await sessions.open({
      caller,
      policy: request.policy,
      input: request.input,
      ...(request.context ? { context: request.context } : {}),
    });
    return c.json(sessionView(session), 201);
  });

  app.post("/v1/sessions/:id/steps", async (c) => {
    const caller = c.get("caller");
    requireScope({ caller, scopes: ["check"], what: "POST /v1/sessions/:id/steps" });
    const request = parseWith({
      schema: SessionStepRequestSchema,
      value: await bodyOf(c),
      what: "request body",
    });
    const id = c.req.param("id");
    const session = await sessions.get({ caller, id });
    requirePolicy({ caller, policy: session.policy });
    c.set("policy", session.policy);
    const decision = await sessions.step({
      caller,
      id,
      step: request.step,
      ...(request.engine ? { engine: request.engine } : {}),
      cancellation: options.cancellationOf(c),
      trust: trustOf({ caller }),
    });
    c.set("verdict", decision.verdict);
    c.set("engine", decision.engine);
    return c.json(decision);
  });

  app.post("/v1/sessions/:id/finish", async (c) => {
    const caller = c.get("caller");
    requireScope({ caller, scopes: ["check"], what: "POST /v1/sessions/:id/finish" });
    return c.json(sessionView(await sessions.finish({ caller, id: c.req.param("id") })));
  });

  app.get("/v1/sessions/:id", async (c) => {
    const caller = c.get("caller");
    requireScope({ caller, scopes: ["check"], what: "GET /v1/sessions/:id" });
    return c.json(sessionView(await sessions.get({ caller, id: c.req.param("id") })));
  });
}

async function unsupported(): Promise<never> {
  throw new WardenError({
    code: "UNSUPPORTED",
    message:
      "this server keeps no sessions: give createWardenApp `sessions` (warden serve opens them in its store)",
  });
}
