/**
 * Runs one engine over a list of cases with bounded concurrency, in a deterministic order for a seed,
 * appending each result to results.jsonl as it finishes. A rerun skips ids already there (and says how
 * many); an interrupt stops dispatching, lets cases in flight finish, and leaves a consistent file.
 */
import { WardenError } from "../core/errors.js";
import { createProgress } from "./progress.js";
import { openResultsFile } from "./results-file.js";
import { seededOrder } from "./seeded-order.js";

export interface RunOptions<C extends { id: string }, R extends { id: string }> {
  cases: readonly C[];
  /** Runs one case and returns its result row; a thrown error becomes a failure row via `onError`. */
  run: (c: C, signal: AbortSignal) => Promise<R>;
  onError: (c: C, error: unknown) => R;
  /** Path of results.jsonl; without it results are kept in memory only. */
  resultsPath?: string;
  /** Start over instead of resuming. */
  fresh?: boolean;
  concurrency?: number;
  seed?: number;
  limit?: number;
  progress?: boolean;
  label?: string;
  signal?: AbortSignal;
  /** Called after each finished case (e.g. memory feedback in benchmark mode). */
  afterEach?: (c: C, row: R) => Promise<void> | void;
}

export interface RunOutcome<R> {
  /** Every row of this dataset selection (resumed + new), in case order. */
  rows: R[];
  resumed: number;
  ran: number;
  interrupted: boolean;
}

export async function runCases<C extends { id: string }, R extends { id: string }>(
  options: RunOptions<C, R>,
): Promise<RunOutcome<R>> {
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `concurrency must be an integer >= 1, got ${concurrency}`,
    });
  }
  let cases = seededOrder({
    items: options.cases,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  });
  if (options.limit !== undefined) cases = cases.slice(0, options.limit);
  const file = options.resultsPath
    ? openResultsFile<R>({ path: options.resultsPath, fresh: options.fresh ?? false })
    : undefined;
  const results = new Map<string, R>();
  let resumed = 0;
  for (const c of cases) {
    const row = file?.existing.get(c.id);
    if (row) {
      results.set(c.id, row);
      resumed++;
    }
  }
  const todo = cases.filter((c) => !results.has(c.id));
  const progress = createProgress({
    total: todo.length,
    label: options.label ?? "checks",
    enabled: options.progress ?? false,
  });
  const controller = new AbortController();
  let interrupted = false;
  const onAbort = () => {
    interrupted = true;
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let next = 0;
  let ran = 0;
  async function worker(): Promise<void> {
    while (!interrupted && !options.signal?.aborted) {
      const c = todo[next++];
      if (!c) return;
      let row: R;
      try {
        row = await options.run(c, controller.signal);
      } catch (error) {
        row = options.onError(c, error);
      }
      results.set(c.id, row);
      file?.append(row);
      ran++;
      progress.tick();
      await options.afterEach?.(c, row);
    }
  }
  try {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, Math.max(1, todo.length)) }, () => worker()),
    );
  } finally {
    progress.stop();
    options.signal?.removeEventListener("abort", onAbort);
  }
  if (options.signal?.aborted) interrupted = true;
  const rows = cases.map((c) => results.get(c.id)).filter((r): r is R => r !== undefined);
  return { rows, resumed, ran, interrupted };
}
