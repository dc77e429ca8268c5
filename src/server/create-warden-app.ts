/**
 * Warden's HTTP API as a Hono app, over a GuardService (preloaded policies + engines):
 *   POST /v1/check            { policy, subject, engine? } -> 200 Decision (a deny is 200 with allowed:false)
 *   POST /v1/check/tool-call  { policy, call: { name, arguments, history?, input?, context? }, engine? }
 *                             -> 200 Decision for one tool call about to run (core/tool-call.ts)
 *   POST /v1/feedback         { policy, subject, label } -> { stored, reason }: the right label for a check
 *                             this server decided, from callers with the scope memory:write only
 *   GET  /v1/policies         names, versions, whether compiled, rule counts (the caller's policies)
 *   GET  /v1/policies/:name   the whole policy, to callers with the scope policies:read only
 *   GET  /v1/stats            checks served by verdict, policy and engine; errors; model calls
 *   POST /v1/sessions …       server-side sessions, steps decided against the trajectory (./routes/sessions.ts)
 *   GET  /metrics             Prometheus metrics; GET /openapi.json: every route (./routes/observability.ts)
 *   GET  /v1/audit            the audit log, newest first (?limit=N&before=<seq>), scope audit:read
 *   GET  /v1/audit/:id        one audit row by id or seq (routes/audit.ts)
 *   GET  /healthz             liveness (no key needed)
 *   GET|POST /v1/approvals…   the approval queue, when `approvals` is given (./routes/approvals.ts)
 *   GET  /ui                  the review page, when `reviewPage` is on (./routes/review-page.ts)
 * Every request first passes the browser defences: its Host must name this service (./host-allow-list.ts),
 * a foreign page's request is refused and CORS stays closed unless configured (./browser-guard.ts). Then
 * the caller is authenticated (./authenticator.ts), held to its rate limit (./rate-limit.ts), and a POST body must be JSON, at most `maxBodyBytes`
 * long and `maxJsonDepth` deep. Errors are `{ error: { code, message, details? } }` with the status chosen
 * in ./http-status.ts.
 */
import { type Context, Hono } from "hono";
import type { z } from "zod";
import { trustOf } from "../core/caller.js";
import type { Decision } from "../core/decision.js";
import { WardenError } from "../core/errors.js";
import { parseWith } from "../core/validate.js";
import type { ApprovalDesk } from "../runtime/approvals.js";
import { type Cancellation, cancellationOf as cancellationOfSignal } from "../runtime/check-within.js";
import type { EngineName } from "../runtime/create-engine.js";
import type { CheckOptions, GuardService } from "../runtime/guard-service.js";
import type { GuardSessions } from "../runtime/guard-sessions.js";
import type { Store } from "../store/store.js";
import type { AppEnv } from "./app-env.js";
import {
  type Authenticator,
  mayUsePolicy,
  openAuthenticator,
  requirePolicy,
  requireScope,
  unauthorizedError,
} from "./authenticator.js";
import { assertJsonContentType, assertSameSiteOrAllowed, corsFor, corsOriginsFrom } from "./browser-guard.js";
import { CheckRequestSchema, FeedbackRequestSchema, ToolCallRequestSchema } from "./check-request.js";
import { allowedHostsFor, assertHostAllowed } from "./host-allow-list.js";
import { httpErrorFor } from "./http-status.js";
import { DEFAULT_MAX_JSON_DEPTH } from "./json-depth.js";
import { type WardenMetrics, withMetrics } from "./metrics.js";
import type { RateLimiter } from "./rate-limit.js";
import { readJsonBody } from "./request-body.js";
import { type HeaderReader, headerReader } from "./request-headers.js";
import { createServerLogger, type Logger, requestLog } from "./request-log.js";
import { useApprovalRoutes } from "./routes/approvals.js";
import { useAuditRoutes } from "./routes/audit.js";
import { useObservabilityRoutes } from "./routes/observability.js";
import { REVIEW_PAGE_PATHS, useReviewPageRoutes } from "./routes/review-page.js";
import { useSessionRoutes } from "./routes/sessions.js";

/** Default request size limit: 1 MiB holds the longest agent logs of the benchmarks many times over. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface WardenAppOptions {
  service: GuardService;
  /** pino logger for the request lines (default: JSON on stderr); false for none. */
  logger?: Logger | false;
  maxBodyBytes?: number;
  /** Deepest nesting accepted in a request body (default DEFAULT_MAX_JSON_DEPTH, 64). */
  maxJsonDepth?: number;
  /** The address the server is bound to; answered as a Host when it is a specific one. */
  boundHost?: string;
  /** Host names answered besides the loopback names and `boundHost`; "*" answers any Host. */
  allowedHosts?: readonly string[];
  /** Origins whose pages may call the service (CORS); none by default. */
  corsOrigins?: readonly string[];
  /** Who is calling (default: no keys, everyone is anonymous with the scope check). */
  authenticator?: Authenticator;
  /** Per-key rate limit (token buckets); none = no limit. */
  rateLimiter?: RateLimiter;
  /** Server-side sessions (their state in the store); without them /v1/sessions answers 501. */
  sessions?: GuardSessions;
  /** Prometheus metrics (createWardenMetrics, which loads prom-client); without them /metrics answers 501. */
  metrics?: WardenMetrics;
  /** The store whose audit log GET /v1/audit reads (routes/audit.ts); absent: the routes say it is off. */
  audit?: { store: Store };
  /** The approval queue (src/runtime/approvals.ts): serves /v1/approvals (./routes/approvals.ts). */
  approvals?: ApprovalDesk;
  /** Serve the review page at /ui (./routes/review-page.ts); its static files need no key. */
  reviewPage?: boolean;
}

export function createWardenApp(options: WardenAppOptions): Hono<AppEnv> {
  const logger = options.logger === false ? undefined : (options.logger ?? createServerLogger());
  const app = new Hono<AppEnv>();

  if (logger) app.use("*", requestLog({ logger }));
  app.onError((error, c) => answerError({ error, c, logger }));
  app.notFound((c) => {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `no route ${c.req.method} ${c.req.path}; see GET /openapi.json for every route`,
      details: { reason: "route-not-found" },
    });
  });

  useDefences({ app, options });
  useRoutes({ app, options });
  useAuditRoutes({ app, ...(options.audit ? { store: options.audit.store } : {}) });
  return app;
}

function answerError(options: { error: unknown; c: Context<AppEnv>; logger: Logger | undefined }): Response {
  const { c, logger, error } = options;
  const { status, body } = httpErrorFor({ error });
  c.set("errorCode", body.error.code);
  if (status >= 500 && logger) {
    // The client gets the code only; the operator gets what happened.
    logger.error({ err: error, path: c.req.path }, "request failed");
  }
  if (status === 401) c.header("WWW-Authenticate", 'Bearer realm="warden"');
  const retryAfter = body.error.details?.retryAfter;
  if (status === 429 && typeof retryAfter === "number") c.header("Retry-After", String(retryAfter));
  return c.json(body, status as 500);
}

/**
 * Host, origin, CORS, caller and content type, in that order, before any route runs. Without CORS origins
 * (the default) the checks run in one middleware: each layer of Hono's middleware chain costs a request
 * some promises, and there is nothing to run between them.
 */
function useDefences(options: { app: Hono<AppEnv>; options: WardenAppOptions }): void {
  const { app } = options;
  const allowedHosts = allowedHostsFor({
    ...(options.options.boundHost !== undefined ? { boundHost: options.options.boundHost } : {}),
    ...(options.options.allowedHosts ? { extra: options.options.allowedHosts } : {}),
  });
  const corsOrigins = corsOriginsFrom({ origins: options.options.corsOrigins ?? [] });
  const authenticator = options.options.authenticator ?? openAuthenticator();
  // The review page's static files hold no data; what they show comes from the API, with a key.
  const keyless = (path: string) =>
    path === "/healthz" || (options.options.reviewPage === true && REVIEW_PAGE_PATHS.has(path));

  const admit = (c: Context<AppEnv>) => {
    const header = headerReader({ incoming: c.env?.incoming, request: c.req });
    c.set("header", header);
    // The URL's host differs from the Host header only for an absolute-form target; both must name us.
    const host = header("host");
    const urlHost = new URL(c.req.url).host;
    assertHostAllowed({ allowed: allowedHosts, hosts: host === undefined ? [urlHost] : [host, urlHost] });
    assertSameSiteOrAllowed({
      origin: header("origin"),
      fetchSite: header("sec-fetch-site"),
      allowed: corsOrigins,
      // Our own origin only when the Host was checked against named hosts: with "*" any rebound DNS name
      // passes that check, so a page's origin naming the Host proves nothing (--cors-origin then names it).
      ...(allowedHosts === "*" ? {} : { self: `http://${host ?? urlHost}` }),
    });
  };
  const identify = async (c: Context<AppEnv>) => {
    const header = headerOf(c);
    if (!keyless(c.req.path)) {
      const authorization = header("authorization");
      const caller = await authenticator.authenticate(authorization !== undefined ? { authorization } : {});
      if (caller === "unauthorized") throw unauthorizedError();
      c.set("caller", caller);
      c.set("callerName", caller.name);
      // Before the body is read: a caller over its limit costs no parsing.
      options.options.rateLimiter?.take({ caller });
    }
    if (c.req.method === "POST") assertJsonContentType({ contentType: header("content-type") });
  };

  if (corsOrigins.size === 0) {
    app.use("*", async (c, next) => {
      admit(c);
      await identify(c);
      await next();
    });
    return;
  }
  app.use("*", async (c, next) => {
    admit(c);
    await next();
  });
  app.use("*", corsFor({ allowed: corsOrigins }));
  app.use("*", async (c, next) => {
    await identify(c);
    await next();
  });
}

function useRoutes(options: { app: Hono<AppEnv>; options: WardenAppOptions }): void {
  const { app, options: appOptions } = options;
  const service = appOptions.metrics
    ? withMetrics({ service: appOptions.service, metrics: appOptions.metrics })
    : appOptions.service;
  const maxBodyBytes = options.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxJsonDepth = options.options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;

  app.get("/healthz", (c) =>
    c.json({
      status: "ok",
      policies: service.listPolicies().length,
      engine: service.defaultEngine,
      uptimeMs: service.stats().uptimeMs,
    }),
  );

  app.get("/v1/policies", (c) => {
    const caller = c.get("caller");
    requireScope({ caller, scopes: ["check", "policies:read"], what: "GET /v1/policies" });
    const policies = service.listPolicies().filter((p) => mayUsePolicy({ caller, policy: p.name }));
    return c.json({ policies });
  });

  app.get("/v1/policies/:name", (c) => {
    const caller = c.get("caller");
    const name = c.req.param("name");
    requireScope({ caller, scopes: ["policies:read"], what: "GET /v1/policies/:name (a whole policy)" });
    requirePolicy({ caller, policy: name });
    return c.json(service.getPolicy({ name }));
  });

  app.get("/v1/stats", (c) => c.json(service.stats()));

  const bodyOf = (c: Context<AppEnv>) =>
    readJsonBody({
      incoming: c.env?.incoming,
      request: c.req.raw,
      header: headerOf(c),
      maxBodyBytes,
      maxJsonDepth,
    });

  /**
   * A check route: the body validated by its schema, the caller's scope and policy checked, the check
   * cancelled when the client goes away, and the verdict noted for the request log.
   */
  const checkRoute = <R extends { policy: string; engine?: EngineName | undefined }>(route: {
    path: string;
    schema: z.ZodType<R>;
    decide: (request: R, common: Omit<CheckOptions, "policy" | "subject">) => Promise<Decision>;
  }) =>
    app.post(route.path, async (c) => {
      const caller = c.get("caller");
      requireScope({ caller, scopes: ["check"], what: `POST ${route.path}` });
      const raw = await bodyOf(c);
      const request = parseWith({ schema: route.schema, value: raw, what: "request body" });
      requirePolicy({ caller, policy: request.policy });
      c.set("policy", request.policy);
      // The engine last: a literal beginning with a spread that adds keys is slow on Node 20 (with-fields.ts).
      const decision = await route.decide(request, {
        cancellation: cancellationOf(c),
        caller,
        trust: trustOf({ caller }),
        ...(request.engine ? { engine: request.engine } : {}),
      });
      c.set("verdict", decision.verdict);
      c.set("engine", decision.engine);
      return c.json(decision);
    });

  // The request's fields first and `common` spread last (it holds neither): on Node 20 an object literal
  // that starts with a spread and then adds keys cost about 1.5 µs per key added (measured), per request.
  checkRoute({
    path: "/v1/check",
    schema: CheckRequestSchema,
    decide: (request, common) =>
      service.check({ policy: request.policy, subject: request.subject, ...common }),
  });
  checkRoute({
    path: "/v1/check/tool-call",
    schema: ToolCallRequestSchema,
    decide: (request, common) =>
      service.checkToolCall({ policy: request.policy, call: request.call, ...common }),
  });

  app.post("/v1/feedback", async (c) => {
    const caller = c.get("caller");
    // Teaching memory is what a poisoner wants: only keys given memory:write may, never anonymous callers.
    requireScope({ caller, scopes: ["memory:write"], what: "POST /v1/feedback" });
    const raw = await bodyOf(c);
    const request = parseWith({ schema: FeedbackRequestSchema, value: raw, what: "request body" });
    requirePolicy({ caller, policy: request.policy });
    c.set("policy", request.policy);
    return c.json(await service.feedback({ ...request, caller }));
  });

  useSessionRoutes({
    app,
    ...(appOptions.sessions ? { sessions: appOptions.sessions } : {}),
    bodyOf,
    cancellationOf,
  });
  useObservabilityRoutes({ app, ...(appOptions.metrics ? { metrics: appOptions.metrics } : {}) });
  if (options.options.approvals)
    useApprovalRoutes({ app, desk: options.options.approvals, readBody: bodyOf });
  if (options.options.reviewPage) useReviewPageRoutes({ app });
}

/** The request's header reader, made by the first defence (or here, where none ran). */
function headerOf(c: Context<AppEnv>): HeaderReader {
  return c.get("header") ?? headerReader({ incoming: c.env?.incoming, request: c.req });
}

/**
 * Cancels the check when the client goes away before its answer is sent, so an engine can stop (a model
 * engine's calls). Under @hono/node-server it follows Node's response directly: the WHATWG Request's own
 * signal would build that Request for every check (see ./request-body.ts), and a signal of our own would
 * cost an AbortController per check besides the one the time limit needs.
 */
function cancellationOf(c: Context<AppEnv>): Cancellation {
  const outgoing = c.env?.outgoing;
  if (!outgoing) return cancellationOfSignal(c.req.raw.signal);
  return (cancel) => {
    const onClose = () => {
      if (!outgoing.writableFinished) cancel(new Error("the client closed the connection"));
    };
    outgoing.once("close", onClose);
    return () => outgoing.off("close", onClose);
  };
}
