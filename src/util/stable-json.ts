/**
 * Canonical JSON: object keys sorted at every level, so equal values print identically — for hashing
 * predicate bindings and for writing policy artifacts that diff cleanly between runs.
 */

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as object).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export function stableStringify(options: { value: unknown; indent?: number }): string {
  return JSON.stringify(sortKeys(options.value), null, options.indent);
}
