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
 * part of it can change: it is then walked as any other value. The lookup is apart from the measuring
 * (measureFrozen): a function holding a closure allocates its context on every call, and this one is
 * called for every frozen value of every subject, nearly always to find its size already known.
 */
function frozenSize(value: object, bytes: number, depth: number): number | undefined {
  if (!Object.isFrozen(value)) return undefined;
  const known = frozenSizes.get(value);
  if (known !== undefined) return known;
  if (depth > MAX_FROZEN_DEPTH || notDeeplyFrozen.has(value)) return undefined;
  return measureFrozen(value, bytes, depth);
}

/** frozenSize of a frozen value not measured before: measured once, and remembered when it fits. */
function measureFrozen(value: object, bytes: number, depth: number): number | undefined {
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

/**
 * What a value adds at once, when it needs no walk: a primitive's size, or a frozen value's remembered
 * one (OVER past `budget`); undefined for a value to walk.
 */
function sizeAtOnce(value: unknown, budget: number): number | undefined {
  if (typeof value !== "object" || value === null) return primitiveSize(value);
  // frozenSize asks Object.isFrozen first: a value that can change (every value of most callers) costs no lookup.
  return frozenSize(value, budget, 0);
}

/** True when `value`, written as JSON, would take more than about `bytes` characters. */
export function exceedsSize(options: { value: unknown; bytes: number }): boolean {
  const { bytes } = options;
  let size = 0;
  const pending: object[] = [];
  // A child is counted where it is found when it can be (most are strings, numbers and remembered
  // frozen values), so only the objects still to walk go through the queue.
  const take = (value: unknown): boolean => {
    const known = sizeAtOnce(value, bytes - size);
    if (known !== undefined) {
      size += known;
      return size <= bytes;
    }
    pending.push(value as object);
    // Every queued value counts at least 1, so the walk ends after at most `bytes` values.
    return size + pending.length <= bytes;
  };
  if (!take(options.value)) return true;
  while (pending.length > 0) {
    const value = pending.pop() as object;
    size += 1;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) if (!take(value[i])) return true;
    } else {
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        size += key.length + 3;
        if (!take((value as Record<string, unknown>)[key])) return true;
      }
    }
    if (size > bytes) return true;
  }
  return false;
}
