/**
 * Request logging: one pino line per request on stderr (method, path, status, ms, and the verdict when a
 * check was answered), so stdout stays free and a log shipper can read the lines as JSON. Lines are
 * written asynchronously: a write system call per request, waited for, was about a fifth of a request's
 * time in the service; lines that come while a write is under way go out together with the next one, and
 * what is still buffered when the process exits is flushed then (pino's exit hook).
 */
import type { MiddlewareHandler } from "hono";
import { type Logger, pino } from "pino";

export type { Logger } from "pino";

/** What handlers tell the log line about the request. */
export interface RequestLogVariables {
  verdict?: string;
  policy?: string;
  engine?: string;
  errorCode?: string;
  /** The authenticated caller's name. */
  callerName?: string;
}

/** The server's default logger: JSON lines on stderr, written without blocking the request. */
export function createServerLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino(
    { name: options.name ?? "warden", level: options.level ?? "info", base: undefined },
    pino.destination({ fd: 2, sync: false }),
  );
}

export function requestLog(options: {
  logger: Logger;
}): MiddlewareHandler<{ Variables: RequestLogVariables }> {
  const { logger } = options;
  return async (c, next) => {
    const started = performance.now();
    await next();
    const status = c.res.status;
    const fields = {
      method: c.req.method,
      path: c.req.path,
      status,
      ms: Math.round((performance.now() - started) * 1000) / 1000,
      ...(c.get("verdict") ? { verdict: c.get("verdict") } : {}),
      ...(c.get("policy") ? { policy: c.get("policy") } : {}),
      ...(c.get("engine") ? { engine: c.get("engine") } : {}),
      ...(c.get("errorCode") ? { code: c.get("errorCode") } : {}),
      ...(c.get("callerName") ? { caller: c.get("callerName") } : {}),
    };
    if (status >= 500) logger.error(fields, "request");
    else logger.info(fields, "request");
  };
}
