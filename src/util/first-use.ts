/**
 * A value built the first time it is asked for, then the same value every time: for module-level
 * objects that cost a start to build and that many commands never use (zod schemas a one-shot check
 * does not parse with).
 */
export function onFirstUse<T>(build: () => T): () => T {
  let value: { built: T } | undefined;
  return () => {
    value ??= { built: build() };
    return value.built;
  };
}
