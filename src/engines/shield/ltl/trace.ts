/**
 * Finite traces: a trace is a list of steps, each step a map atom -> boolean where a missing atom is
 * false. At the boundary (files, the CLI, HTTP bodies) a step may also be written as the list of the
 * atoms that are true at it: `[{"a": true, "b": false}, ["a", "c"]]` is a trace of two steps.
 */
import { z } from "zod";
import type { ErrorCode } from "../../../core/errors.js";
import { parseWith } from "../../../core/validate.js";
import { LTL_ATOM_PATTERN } from "./ast.js";

/** One step: atom -> truth value; an atom that is absent (or not `true`) is false. */
export type LtlStep = Readonly<Record<string, boolean | undefined>>;
export type LtlTrace = readonly LtlStep[];

/** Truth of an atom at a step, looking only at the step's own properties. */
export function holds(step: LtlStep, name: string): boolean {
  return Object.hasOwn(step, name) && step[name] === true;
}

const ATOM_MESSAGE = "atoms are lower-case identifiers [a-z_][a-z0-9_]*";

/** A trace as written outside: steps as objects atom -> boolean or as arrays of the true atoms. */
export const LtlTraceSchema = z.array(z.unknown()).transform((steps, ctx): LtlStep[] => {
  const out: LtlStep[] = [];
  steps.forEach((raw, index) => {
    // Null prototype: an atom named `__proto__` or `constructor` stays an ordinary key.
    const step: Record<string, boolean> = Object.create(null);
    if (Array.isArray(raw)) {
      raw.forEach((name, j) => {
        if (typeof name !== "string" || !LTL_ATOM_PATTERN.test(name)) {
          ctx.addIssue({
            code: "custom",
            path: [index, j],
            message: `expected an atom name (${ATOM_MESSAGE})`,
          });
        } else step[name] = true;
      });
    } else if (typeof raw === "object" && raw !== null) {
      for (const [name, value] of Object.entries(raw)) {
        if (!LTL_ATOM_PATTERN.test(name)) {
          ctx.addIssue({
            code: "custom",
            path: [index, name],
            message: `not an atom name (${ATOM_MESSAGE})`,
          });
        } else if (typeof value !== "boolean") {
          ctx.addIssue({ code: "custom", path: [index, name], message: "expected true or false" });
        } else step[name] = value;
      }
    } else {
      ctx.addIssue({
        code: "custom",
        path: [index],
        message: "a step is an object atom -> boolean or an array of the atoms that are true",
      });
    }
    out.push(step);
  });
  return out;
});

/**
 * Validates and normalises a trace from outside input. Throws WardenError (INVALID_INPUT unless
 * `code` says otherwise) naming each offending step and atom, e.g. "Invalid trace: 2.isOpen: not an
 * atom name ...".
 */
export function parseLtlTrace(options: { value: unknown; what?: string; code?: ErrorCode }): LtlStep[] {
  return parseWith({
    schema: LtlTraceSchema,
    value: options.value,
    what: options.what ?? "trace",
    ...(options.code === undefined ? {} : { code: options.code }),
  });
}
