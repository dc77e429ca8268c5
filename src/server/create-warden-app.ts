/**
 * Warden's HTTP API as a Hono app, over a GuardService (preloaded policies + engines):
 *   POST /v1/check            { policy, subject, engine? } -> 200 Decision (a deny is 200 with allowed:false)
 *   GET  /v1/policies         names, versions, whether compiled, rule counts
 *   GET  /v1/policies/:name   the policy artifact
 *   GET  /v1/stats            checks served by verdict, policy and engine; errors; model calls
 *   GET  /healthz             liveness
 * Errors are `{ error: { code, message, details? } }` with the status chosen in ./http-status.ts.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { WardenError } from "../core/errors.js";
import { parseWith } from "../core/validate.js";
import type { GuardService } from "../runtime/guard-service.js";
import { CheckRequestSchema } from "./check-request.js";
import { httpErrorFor } from "./http-status.js";
import { createServerLogger, type Logger, type RequestLogVariables, requestLog } from "./request-log.js";

/** Default request size limit: 1 MiB holds the longest agent logs of the benchmarks many times over. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface WardenAppOptions {
  service: GuardService;
  /** pino logger for the request lines (default: JSON on stderr); false for none. */
  logger?: Logger | false;
  maxBodyBytes?: number;
}

export function createWardenApp(options: WardenAppOptions): Hono<{ Variables: RequestLogVariables }> {
  const { service } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const logger = options.logger === false ? undefined : (options.logger ?? createServerLogger());
  const app = new Hono<{ Variables: RequestLogVariables }>();

  if (logger) app.use("*", requestLog({ logger }));

  app.onError((error, c) => {
    const { status, body } = httpErrorFor({ error });
    c.set("errorCode", body.error.code);
    if (status >= 500 && logger) {
      // The client gets the code only; the operator gets what happened.
      logger.error({ err: error, path: c.req.path }, "request failed");
    }
    return c.json(body, status as 500);
  });

  app.notFound((c) => {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `no route ${c.req.method} ${c.req.path}; see GET /v1/policies, POST /v1/check, GET /v1/stats, GET /healthz`,
      details: { reason: "route-not-found" },
    });
  });

  app.get("/healthz", (c) =>
    c.json({
      status: "ok",
      policies: service.listPolicies().length,
      engine: service.defaultEngine,
      uptimeMs: service.stats().uptimeMs,
    }),
  );

  app.get("/v1/policies", (c) => c.json({ policies: service.listPolicies() }));

  app.get("/v1/policies/:name", (c) => c.json(service.getPolicy({ name: c.req.param("name") })));

  app.get("/v1/stats", (c) => c.json(service.stats()));

  app.post(
    "/v1/check",
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: `the request body is larger than the limit of ${maxBodyBytes} bytes`,
          details: { reason: "body-too-large", limitBytes: maxBodyBytes },
        });
      },
    }),
    async (c) => {
      let raw: unknown;
      try {
        raw = await c.req.json();
      } catch (error) {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: `the request body is not valid JSON: ${(error as Error).message}`,
          details: { fields: ["(body)"] },
        });
      }
      const request = parseWith({ schema: CheckRequestSchema, value: raw, what: "request body" });
      c.set("policy", request.policy);
      const decision = await service.check({
        policy: request.policy,
        subject: request.subject,
        ...(request.engine ? { engine: request.engine } : {}),
        signal: c.req.raw.signal,
      });
      c.set("verdict", decision.verdict);
      c.set("engine", decision.engine);
      return c.json(decision);
    },
  );

  return app;
}
