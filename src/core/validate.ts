/**
 * Boundary validation: parse outside input with a zod schema and answer bad input with a WardenError
 * whose message names every offending field by its path.
 */
import type { z } from "zod";
import { type ErrorCode, WardenError } from "./errors.js";

export function formatIssues(issues: readonly z.core.$ZodIssue[], prefix = ""): string {
  return issues
    .map((issue) => {
      const path = [prefix, ...issue.path.map(String)].filter((p) => p !== "").join(".");
      return `${path || "(root)"}: ${issue.message}`;
    })
    .join("; ");
}

export function parseWith<S extends z.ZodType>(options: {
  schema: S;
  value: unknown;
  /** What is being validated, e.g. "policy file policies/x.json" or "request body". */
  what: string;
  /** Prefix for field paths, e.g. "subject". */
  path?: string;
  code?: ErrorCode;
}): z.output<S> {
  const result = options.schema.safeParse(options.value);
  if (result.success) return result.data;
  const fields = result.error.issues.map((issue) =>
    [options.path ?? "", ...issue.path.map(String)].filter((p) => p !== "").join("."),
  );
  throw new WardenError({
    code: options.code ?? "INVALID_INPUT",
    message: `Invalid ${options.what}: ${formatIssues(result.error.issues, options.path)}`,
    details: { fields, issues: result.error.issues },
  });
}
