/**
 * `{ ...base, ...fields }` for code that runs on every check: the same object that literal gives (base's
 * own enumerable properties in order, then the fields, which win; an own `__proto__` key stays an own
 * property), built in a way Node 20's V8 (11.3) makes fast.
 *
 * Why: on Node 20 an object literal that begins with a spread of an object made by a literal or by
 * JSON.parse, and then adds properties, costs about a microsecond per property added (measured: 3.3 µs for
 * `{ ...facts, tool, name, args }`; the clone keeps its source's shape, and each added property builds a new
 * one). A literal that begins with the spread of an empty object is built property by property instead,
 * in about 0.08 µs. Node 22 and later are fast either way. The empty object is a module constant, so a
 * minifier has nothing to fold away.
 */
const NO_FIELDS: Readonly<Record<string, never>> = Object.freeze({});

export function withFields<B extends object, F extends object>(options: {
  base: B | undefined;
  fields: F;
}): Omit<B, keyof F> & F {
  return { ...NO_FIELDS, ...options.base, ...options.fields } as Omit<B, keyof F> & F;
}
