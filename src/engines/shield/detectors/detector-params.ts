/**
 * Shared plumbing of the shipped detectors: validate a binding's params once (zod, at the policy
 * boundary; a bad parameter is a WardenError naming it) and read the text a detector looks at.
 */
import type { z } from "zod";
import { compatibleText } from "../../../core/canonical/text.js";
import { getPath } from "../../../core/condition.js";
import { parseWith } from "../../../core/validate.js";
import type { StepFacts } from "../assign/step-facts.js";

const cache = new WeakMap<object, WeakMap<object, unknown>>();

/** Parses detector params with `schema`, memoised per params object (bindings are reused per step). */
export function parseDetectorParams<S extends z.ZodType>(options: {
  schema: S;
  params: Record<string, unknown>;
  detector: string;
}): z.output<S> {
  const { schema, params } = options;
  let perSchema = cache.get(schema);
  if (!perSchema) {
    perSchema = new WeakMap();
    cache.set(schema, perSchema);
  }
  if (perSchema.has(params)) return perSchema.get(params) as z.output<S>;
  const parsed = parseWith({
    schema,
    value: params,
    what: `params of detector '${options.detector}'`,
    path: "params",
    code: "INVALID_POLICY",
  });
  perSchema.set(params, parsed);
  return parsed;
}

/** The text at `field` (or `fallback`); lists are newline-joined; undefined when the field is absent. */
export function readText(options: {
  facts: StepFacts;
  field: string | undefined;
  fallback: string;
}): string | undefined {
  const value = getPath(options.facts, options.field ?? options.fallback);
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (Array.isArray(value))
    return value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join("\n");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/**
 * The text and, where it differs, its compatibility form (core/canonical/text.ts): detectors of what must
 * not leak look in both, so digits in full width or a key broken by zero-width spaces is still found.
 */
export function leakTexts(options: { text: string }): string[] {
  const compatible = compatibleText({ text: options.text });
  return compatible === options.text ? [options.text] : [options.text, compatible];
}
