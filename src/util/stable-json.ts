/**
 * Canonical JSON: object keys sorted at every level, so equal values print identically — for hashing
 * predicate bindings, the audit log's rows and subjects, and for writing policy artifacts that diff cleanly
 * between runs.
 *
 * A value already in canonical form (plain objects whose keys are in order, all the way down) is printed
 * as it is, without a sorted copy: the audit log hashes two such values per decision (the subject, as
 * JSON.parse made it, and the row, built in key order), and the copies were most of what that cost. Any
 * other object (out of order, or not plain: a Date, a Map, a class instance) is copied with its keys
 * sorted, as before; either way JSON.stringify prints the same text.
 */

/** A plain object: its own keys are all JSON.stringify looks at (no prototype with toJSON or the like). */
function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** `value` with every object's keys sorted; `value` itself when it is already so. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as unknown;
      const sorted = sortKeys(item);
      if (out === undefined && sorted !== item) out = value.slice(0, i);
      out?.push(sorted);
    }
    return out ?? value;
  }
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    // Each child is sorted once, whether or not this object turns out to need a copy.
    const children = keys.map((key) => sortKeys(record[key]));
    if (isPlain(record) && inOrderAndUnchanged({ record, keys, children })) return record;
    const byKey = new Map(keys.map((key, i) => [key, children[i]]));
    const entries: [string, unknown][] = [];
    for (const key of keys.sort()) {
      const v = byKey.get(key);
      if (v !== undefined) entries.push([key, v]);
    }
    // fromEntries, not assignment: an own "__proto__" key stays a key (assigning it set the copy's
    // prototype, so the key and its value vanished from the text and from every digest of it).
    return Object.fromEntries(entries);
  }
  return value;
}

/** Whether the keys are in sorted order and no child changed when sorted. */
function inOrderAndUnchanged(options: {
  record: Record<string, unknown>;
  keys: readonly string[];
  children: readonly unknown[];
}): boolean {
  const { record, keys, children } = options;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    // The comparison Array#sort uses for strings (UTF-16 code units).
    if (i > 0 && !((keys[i - 1] as string) < key)) return false;
    if (children[i] !== record[key]) return false;
  }
  return true;
}

export function stableStringify(options: { value: unknown; indent?: number }): string {
  return JSON.stringify(canonicalValue({ value: options.value }), null, options.indent);
}

/**
 * `value` with every object's keys sorted (`value` itself when it is so already): what stableStringify
 * prints. For a caller that builds an object in key order around values that may not be (the audit row),
 * so that JSON.stringify of that object prints stableStringify's text without a walk over its other keys.
 */
export function canonicalValue(options: { value: unknown }): unknown {
  return sortKeys(options.value);
}
