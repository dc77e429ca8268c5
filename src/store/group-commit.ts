/**
 * Group commit: callers that append while a write is in flight wait for the next one, which writes all
 * of them in one transaction. Each caller still hears only after the transaction holding its item has
 * committed (or failed: then every caller of that batch hears the error, nothing is half-written), so
 * "answered after its row is written" holds, while a busy service pays one commit per batch instead of
 * one per item. Used by the audit log, where every decision of `warden serve` appends a row.
 *
 * A write starts on the next turn of the event loop (setImmediate), not at once: a synchronous driver
 * (better-sqlite3) runs a whole transaction without yielding, so without that turn no other request
 * would ever arrive "during" a write, and every batch would hold one item. Requests answered in the same
 * turn (the poll phase delivers many sockets at once) share one transaction.
 */

export interface GroupCommit<I, O> {
  /** Resolves with the item's result once the batch holding it has committed. */
  append(item: I): Promise<O>;
}

interface Waiting<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

export function createGroupCommit<I, O>(options: {
  /** Writes the items, in order, in one transaction; returns one result per item, in the same order. */
  write: (items: I[]) => Promise<O[]>;
  /** Most items one transaction takes (default 256); the rest wait for the next. */
  maxBatch?: number;
}): GroupCommit<I, O> {
  const maxBatch = options.maxBatch ?? 256;
  let queue: Waiting<I, O>[] = [];
  let writing = false;

  const flush = async (): Promise<void> => {
    writing = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        const results = await options.write(batch.map((w) => w.item));
        for (const [i, w] of batch.entries()) w.resolve(results[i] as O);
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    writing = false;
  };

  return {
    append: (item) =>
      new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (!writing) {
          writing = true;
          setImmediate(() => void flush());
        }
      }),
  };
}
