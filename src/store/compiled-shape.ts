/**
 * A statement of fixed shape, compiled by Kysely once and then run with new values: the same SQL text
 * Kysely writes for it, without building and compiling the query again for every call. For statements on
 * a hot path (the audit log writes a row per decision of `warden serve`, and building and compiling its
 * INSERT cost more than SQLite took to run it).
 *
 * The shape is compiled with a placeholder in each value's slot; where each placeholder lands in the
 * compiled parameters is read from Kysely's own output, so a value goes where Kysely would have put it
 * (constants the query holds, such as `where id = 1`, stay as compiled). A placeholder that does not
 * appear exactly once refuses the shape: it is never guessed.
 */
import { type Compilable, CompiledQuery } from "kysely";
import { WardenError } from "../core/errors.js";

export interface CompiledShape {
  /** The compiled query with `values` in its slots (values[i] in slot i). */
  with(values: readonly unknown[]): CompiledQuery;
}

/** Where each compiled parameter comes from: a slot of the values, or a constant of the query. */
type Source = { slot: number } | { constant: unknown };

export function compileShape(options: {
  /** How many values the statement takes. */
  slots: number;
  /**
   * Builds the query with placeholders[i] as the i-th value. Typed `never` so that a placeholder fits
   * any column; each must be passed as a value (not inside SQL text) exactly once.
   */
  build: (placeholders: readonly never[]) => Compilable<unknown>;
}): CompiledShape {
  const placeholders = Array.from({ length: options.slots }, (_, i) => `\u0000warden-slot-${i}`);
  const compiled = options.build(placeholders as never[]).compile();
  const slotOf = new Map(placeholders.map((p, i) => [p, i]));
  const seen = new Set<number>();
  const sources: Source[] = compiled.parameters.map((parameter) => {
    const slot = typeof parameter === "string" ? slotOf.get(parameter) : undefined;
    if (slot === undefined) return { constant: parameter };
    if (seen.has(slot)) throw shapeError({ sql: compiled.sql, problem: `slot ${slot} is used twice` });
    seen.add(slot);
    return { slot };
  });
  if (seen.size !== options.slots) {
    throw shapeError({ sql: compiled.sql, problem: `${options.slots - seen.size} slots are not parameters` });
  }
  const identity = sources.every((s, i) => "slot" in s && s.slot === i);
  return {
    with: (values) => {
      if (values.length !== options.slots) {
        throw shapeError({
          sql: compiled.sql,
          problem: `${values.length} values for ${options.slots} slots`,
        });
      }
      // The values as they are when Kysely put them in order (it does), else rearranged.
      const parameters = identity
        ? (values as unknown[])
        : sources.map((s) => ("slot" in s ? values[s.slot] : s.constant));
      return CompiledQuery.raw(compiled.sql, parameters);
    },
  };
}

function shapeError(options: { sql: string; problem: string }): WardenError {
  return new WardenError({
    code: "STORE_ERROR",
    message: `a compiled statement's shape is unusable (${options.problem}): ${options.sql.slice(0, 200)}`,
  });
}
