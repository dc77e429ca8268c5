/**
 * Request logging: one pino line per request on stderr (method, path, status, ms, and the verdict when a
 * check was answered), so stdout stays free and a log shipper can read the lines as JSON. Lines are
 * written asynchronously and in batches: a write system call per request, waited for, was about a fifth
 * of a request's time in the service, and even unwaited, one write per line (a thread-pool job and its
 * completion) cost a busy service a few percent. Lines are buffered up to BATCH_BYTES and written at
 * least every FLUSH_EVERY_MS, so a quiet service's lines still show within a fraction of a second; what
 * is still buffered when the process exits is flushed then (pino's exit hook).
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

/** Lines buffered before a write (about 16 request lines). */
const BATCH_BYTES = 4096;
/** The longest a line waits in the buffer. */
const FLUSH_EVERY_MS = 200;

/** The server's default logger: JSON lines on stderr, written in batches without blocking the request. */
export function createServerLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino(
    { name: options.name ?? "warden", level: options.level ?? "info", base: undefined },
    pino.destination({ fd: 2, sync: false, minLength: BATCH_BYTES, periodicFlush: FLUSH_EVERY_MS }),
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
    // One object of one shape, absent fields undefined (JSON leaves them out), rather than spreads.
    const fields = {
      method: c.req.method,
      path: c.req.path,
      status,
      ms: Math.round((performance.now() - started) * 1000) / 1000,
      verdict: c.get("verdict") || undefined,
      policy: c.get("policy") || undefined,
      engine: c.get("engine") || undefined,
      code: c.get("errorCode") || undefined,
      caller: c.get("callerName") || undefined,
    };
    if (status >= 500) logger.error(fields, "request");
    else logger.info(fields, "request");
  };
}
