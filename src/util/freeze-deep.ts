/**
 * Freezes a JSON-like value all the way down, for values that are shared instead of copied once nothing
 * may change them any more (the MCP proxy's trajectory steps and tool schemas). Iterative, so a deeply
 * nested value cannot overflow the stack, and bounded: past `maxNodes` objects it stops, leaving the rest
 * as it was. Whoever relies on a value being frozen checks `Object.isFrozen` itself (subject-size.ts,
 * toolCallSubject); freezing is never what makes a value trusted.
 */

/** Freezes `value` and the objects and arrays under it, at most `maxNodes` of them; returns `value`. */
export function freezeDeep<T>(options: { value: T; maxNodes: number }): T {
  const pending: unknown[] = [options.value];
  let nodes = 0;
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== "object" || value === null || Object.isFrozen(value)) continue;
    if (++nodes > options.maxNodes) break;
    for (const key of Object.keys(value)) pending.push((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return options.value;
}
