/**
 * Whether a value is larger than a budget, measured roughly as its JSON size, without serialising it.
 * The check pool asks this of every subject to choose between running the compiled check inline (small:
 * bounded work, cheaper than a round trip to a worker) and in a worker thread (large: it may take long
 * enough to hold the event loop). The walk is iterative (a deeply nested value cannot overflow the
 * stack) and stops as soon as the budget is passed, so it costs at most about `bytes` steps.
 *
 * A value frozen all the way down cannot change, so its size is measured once and remembered: the MCP
 * proxy's trajectory steps and tool schemas are frozen and recur in every check of a session. (A getter
 * on a frozen object could still answer differently; the size only chooses where the check runs, inline
 * or in a worker, which gives the same decision either way.)
 */

/** Sizes of values frozen all the way down, each measured once. */
const frozenSizes = new WeakMap<object, number>();
/** Frozen values found to hold something that can change (or too deep to remember). */
const notDeeplyFrozen = new WeakSet<object>();
/** How deep a frozen value is measured by recursion; deeper ones are walked as any other value. */
const MAX_FROZEN_DEPTH = 16;
/** Past the budget: not remembered, and the walk answers true at once. */
const OVER = Number.POSITIVE_INFINITY;

/** The size of a primitive as the walk counts it: 1, plus a string's length or 8 for a number. */
function primitiveSize(value: unknown): number {
  if (typeof value === "string") return 1 + value.length;
  if (typeof value === "number" || typeof value === "bigint") return 9;
  return 1;
}

/**
 * The size of a value frozen all the way down (remembered), OVER past `bytes`, or undefined when some
 * part of it can change: it is then walked as any other value.
 */
function frozenSize(value: object, bytes: number, depth: number): number | undefined {
  if (!Object.isFrozen(value)) return undefined;
  const known = frozenSizes.get(value);
  if (known !== undefined) return known;
  if (depth > MAX_FROZEN_DEPTH || notDeeplyFrozen.has(value)) return undefined;
  let size = 1;
  const add = (item: unknown): boolean => {
    const part =
      typeof item === "object" && item !== null
        ? frozenSize(item, bytes - size, depth + 1)
        : primitiveSize(item);
    if (part === undefined) {
      notDeeplyFrozen.add(value);
      return false;
    }
    size += part;
    return true;
  };
  if (Array.isArray(value)) {
    for (const item of value) if (!add(item) || size > bytes) return size > bytes ? OVER : undefined;
  } else {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      size += key.length + 3;
      if (!add((value as Record<string, unknown>)[key]) || size > bytes)
        return size > bytes ? OVER : undefined;
    }
  }
  frozenSizes.set(value, size);
  return size;
}

/** True when `value`, written as JSON, would take more than about `bytes` characters. */
export function exceedsSize(options: { value: unknown; bytes: number }): boolean {
  const { bytes } = options;
  let size = 0;
  const pending: unknown[] = [options.value];
  while (pending.length > 0) {
    const value = pending.pop();
    // Object.isFrozen first: a value that can change (every value of most callers) costs no lookup.
    if (typeof value === "object" && value !== null && Object.isFrozen(value)) {
      const frozen = frozenSize(value, bytes - size, 0);
      if (frozen !== undefined) {
        size += frozen;
        if (size > bytes) return true;
        continue;
      }
    }
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
