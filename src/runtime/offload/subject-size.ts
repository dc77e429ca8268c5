/**
 * Whether a value is larger than a budget, measured roughly as its JSON size, without serialising it.
 * The check pool asks this of every subject to choose between running the compiled check inline (small:
 * bounded work, cheaper than a round trip to a worker) and in a worker thread (large: it may take long
 * enough to hold the event loop). The walk is iterative (a deeply nested value cannot overflow the
 * stack) and stops as soon as the budget is passed, so it costs at most about `bytes` steps.
 */

/** True when `value`, written as JSON, would take more than about `bytes` characters. */
export function exceedsSize(options: { value: unknown; bytes: number }): boolean {
  const { bytes } = options;
  let size = 0;
  const pending: unknown[] = [options.value];
  while (pending.length > 0) {
    const value = pending.pop();
    // Every value counts at least 1, so the loop ends after at most `bytes` values.
    size += 1;
    if (typeof value === "string") size += value.length;
    else if (typeof value === "number" || typeof value === "bigint") size += 8;
    else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        pending.push(value[i]);
        if (pending.length > bytes) return true;
      }
    } else if (typeof value === "object" && value !== null) {
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        size += key.length + 3;
        pending.push((value as Record<string, unknown>)[key]);
        if (size + pending.length > bytes) return true;
      }
    }
    if (size > bytes) return true;
  }
  return false;
}
