/**
 * The guard proxy's per-call log lines, written in batches: the CLI's logger writes asynchronously, but a
 * proxy answers one call at a time, so every line found the stream idle and cost its own write system
 * call (about 0.2 ms of CPU per call on a busy machine, more than the check). Lines wait up to
 * `delayMs` and go out together (pino's destination joins lines that come while a write is under way), in
 * their order; `flush` writes what is waiting at once (on close).
 */
import type { Logger } from "pino";

export interface BatchedLog {
  info(options: { fields: Record<string, unknown>; message: string }): void;
  flush(): void;
}

export function batchedLog(options: { logger: Logger; delayMs: number }): BatchedLog {
  const { logger, delayMs } = options;
  const pending: { fields: Record<string, unknown>; message: string }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    for (const line of pending.splice(0)) logger.info(line.fields, line.message);
  };
  return {
    info(line) {
      pending.push(line);
      timer ??= setTimeout(flush, delayMs);
    },
    flush,
  };
}
