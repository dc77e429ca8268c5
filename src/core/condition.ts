/**
 * A small, serialisable condition language over facts (a step, a tool call, the agent input). Tool
 * rules and predicate bindings use it, so the compiled engine and the shield decide with the same code.
 * Field paths are dot-separated ("args.to", "context.user.age"); a missing field is `undefined`.
 */
import { z } from "zod";

export const COMPARISON_OPS = [
  "eq",
  "ne",
  "in",
  "notIn",
  "contains",
  "containsAny",
  "containsAll",
  "matches",
  "startsWith",
  "endsWith",
  "lt",
  "le",
  "gt",
  "ge",
  "exists",
  "empty",
] as const;
export type ComparisonOp = (typeof COMPARISON_OPS)[number];

export interface Comparison {
  field: string;
  op: ComparisonOp;
  value?: unknown;
  /** Text comparisons ignore case unless this is true. */
  caseSensitive?: boolean;
}
export type Condition = Comparison | { all: Condition[] } | { any: Condition[] } | { not: Condition };

export const ComparisonSchema = z.object({
  field: z.string().min(1),
  op: z.enum(COMPARISON_OPS),
  value: z.unknown().optional(),
  caseSensitive: z.boolean().optional(),
});

export const ConditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    ComparisonSchema,
    z.object({ all: z.array(ConditionSchema) }).strict(),
    z.object({ any: z.array(ConditionSchema) }).strict(),
    z.object({ not: ConditionSchema }).strict(),
  ]),
);

export function getPath(facts: unknown, path: string): unknown {
  let current: unknown = facts;
  for (const key of path.split(".")) {
    if (current === null || current === undefined || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function norm(text: string, caseSensitive: boolean | undefined): string {
  return caseSensitive ? text : text.toLowerCase();
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

function looseEqual(a: unknown, b: unknown, caseSensitive: boolean | undefined): boolean {
  if (typeof a === "string" && typeof b === "string")
    return norm(a, caseSensitive) === norm(b, caseSensitive);
  if (typeof a === "boolean" && typeof b === "string") return String(a) === b.toLowerCase();
  if (typeof a === "string" && typeof b === "boolean") return a.toLowerCase() === String(b);
  if (typeof a === "number" && typeof b === "string") return b.trim() !== "" && a === Number(b);
  if (typeof a === "string" && typeof b === "number") return a.trim() !== "" && Number(a) === b;
  return a === b;
}

function compareNumbers(
  actual: unknown,
  expected: unknown,
  test: (a: number, b: number) => boolean,
): boolean {
  const a = typeof actual === "number" ? actual : Number(actual);
  const b = typeof expected === "number" ? expected : Number(expected);
  if (actual === undefined || actual === null || actual === "" || Number.isNaN(a) || Number.isNaN(b))
    return false;
  return test(a, b);
}

const regexCache = new Map<string, RegExp>();
function regex(pattern: string, caseSensitive: boolean | undefined): RegExp {
  const key = `${caseSensitive ? "s" : "i"}:${pattern}`;
  let re = regexCache.get(key);
  if (!re) {
    re = new RegExp(pattern, caseSensitive ? "u" : "iu");
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(key, re);
  }
  return re;
}

export function evaluateComparison(c: Comparison, facts: unknown): boolean {
  const actual = getPath(facts, c.field);
  const cs = c.caseSensitive;
  switch (c.op) {
    case "eq":
      return looseEqual(actual, c.value, cs);
    case "ne":
      return !looseEqual(actual, c.value, cs);
    case "in":
      return asList(c.value).some((v) => looseEqual(actual, v, cs));
    case "notIn":
      return !asList(c.value).some((v) => looseEqual(actual, v, cs));
    case "contains": {
      if (Array.isArray(actual)) return actual.some((item) => looseEqual(item, c.value, cs));
      return norm(asText(actual), cs).includes(norm(asText(c.value), cs));
    }
    case "containsAny": {
      const text = norm(asText(actual), cs);
      return asList(c.value).some((v) => {
        const needle = norm(asText(v), cs);
        return needle !== "" && text.includes(needle);
      });
    }
    case "containsAll": {
      const text = norm(asText(actual), cs);
      return asList(c.value).every((v) => text.includes(norm(asText(v), cs)));
    }
    case "matches":
      return regex(asText(c.value), cs).test(asText(actual));
    case "startsWith":
      return norm(asText(actual), cs).startsWith(norm(asText(c.value), cs));
    case "endsWith":
      return norm(asText(actual), cs).endsWith(norm(asText(c.value), cs));
    case "lt":
      return compareNumbers(actual, c.value, (a, b) => a < b);
    case "le":
      return compareNumbers(actual, c.value, (a, b) => a <= b);
    case "gt":
      return compareNumbers(actual, c.value, (a, b) => a > b);
    case "ge":
      return compareNumbers(actual, c.value, (a, b) => a >= b);
    case "exists":
      return actual !== undefined && actual !== null;
    case "empty":
      return (
        actual === undefined ||
        actual === null ||
        actual === "" ||
        (Array.isArray(actual) && actual.length === 0) ||
        (typeof actual === "object" && Object.keys(actual as object).length === 0)
      );
  }
}

export function evaluateCondition(condition: Condition, facts: unknown): boolean {
  if ("all" in condition) return condition.all.every((c) => evaluateCondition(c, facts));
  if ("any" in condition) return condition.any.some((c) => evaluateCondition(c, facts));
  if ("not" in condition) return !evaluateCondition(condition.not, facts);
  return evaluateComparison(condition, facts);
}

/** Every field path a condition reads, for verification against the vocabulary. */
export function conditionFields(condition: Condition): string[] {
  if ("all" in condition) return condition.all.flatMap(conditionFields);
  if ("any" in condition) return condition.any.flatMap(conditionFields);
  if ("not" in condition) return conditionFields(condition.not);
  return [condition.field];
}
