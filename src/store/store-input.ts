/**
 * Boundary validation of what callers hand a Store. Both backends apply the same rules, so a record that
 * one accepts the other accepts too and reads back identically: text must be well-formed UTF-16 without
 * NUL (PostgreSQL text cannot hold U+0000, and a lone surrogate cannot survive UTF-8), meta and workflow
 * plans must be JSON values (they are stored as JSON text, byte for byte).
 */
import { z } from "zod";
import { CALLER_SCOPES } from "../core/caller.js";
import { parseWith } from "../core/validate.js";
import type { NewApiKey, NewDemonstration, NewWorkflow } from "./store.js";

/** String#isWellFormed (ES2024; in V8 since Node 20.0), which the project's `lib` setting predates. */
type WellFormedCheck = string & { isWellFormed(): boolean };

/** Text any backend can store and return unchanged (String#isWellFormed: no lone UTF-16 surrogate). */
export const StorableTextSchema = z.string().check(storableCheck);

/**
 * Storable text of at most `max` characters (and, with `nonEmpty`, at least one): StorableTextSchema's
 * check, then the length, as one schema. Not `StorableTextSchema.pipe(z.string().max(max))`, which runs a
 * second schema with a parse state of its own per field (the audit log validates up to a dozen texts per
 * decision); the result is the same, the length not checked once the text is refused.
 */
export function storableText(options: { max: number; nonEmpty?: boolean }) {
  const storable = z.string().check(storableCheck);
  return (options.nonEmpty ? storable.min(1, "must not be empty") : storable).max(options.max);
}

/**
 * StorableTextSchema's rule (one refinement, native scans: it runs on every text field of every audit row).
 * A refused text stops its schema's later checks (`continue: false`), as a failed pipe did: a length check
 * would run anyway otherwise.
 */
function storableCheck(ctx: z.core.ParsePayload<string>): void {
  const text = ctx.value;
  if (text.includes("\u0000")) {
    ctx.issues.push({
      code: "custom",
      input: text,
      message: "contains a NUL character (U+0000), which cannot be stored",
      continue: false,
    });
  } else if (!(text as WellFormedCheck).isWellFormed()) {
    ctx.issues.push({
      code: "custom",
      input: text,
      message: "contains a lone UTF-16 surrogate, which cannot be stored as UTF-8",
      continue: false,
    });
  }
}

const NameSchema = storableText({ max: 500, nonEmpty: true });
const IdSchema = storableText({ max: 200, nonEmpty: true });

export const NewDemonstrationSchema = z.object({
  id: IdSchema.optional(),
  policy: NameSchema,
  input: StorableTextSchema,
  output: StorableTextSchema,
  plan: StorableTextSchema,
  code: StorableTextSchema,
  label: z.union([z.literal(0), z.literal(1)]).optional(),
  origin: z.enum(["seed", "user", "learned"]),
  meta: z.record(z.string(), z.json()).optional(),
});

export const NewWorkflowSchema = z.object({
  id: IdSchema.optional(),
  policy: NameSchema,
  action: NameSchema,
  query: StorableTextSchema,
  plan: z.json(),
  verdict: z.enum(["allow", "deny", "ask"]),
});

/** Names that denote callers without a key: a key may not pose as one of them. */
const RESERVED_CALLER_NAMES = ["anonymous", "library"];

/**
 * An API key's name: it appears in decisions, logs and the audit trail, so it is a short plain token
 * (letters, digits, '.', '_', '-') that needs no quoting anywhere.
 */
export const ApiKeyNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    "use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
  )
  .refine((s) => !RESERVED_CALLER_NAMES.includes(s.toLowerCase()), {
    message: `is reserved for callers without a key (${RESERVED_CALLER_NAMES.join(", ")})`,
  });

export const ApiKeyScopesSchema = z
  .array(
    z.enum(CALLER_SCOPES, {
      error: (issue) =>
        `unknown scope ${JSON.stringify(issue.input)} (expected one of ${CALLER_SCOPES.join(", ")})`,
    }),
  )
  .min(1, "give at least one scope")
  .transform((scopes) => [...new Set(scopes)]);

export const ApiKeyPoliciesSchema = z
  .array(NameSchema)
  .min(1, "give at least one policy, or leave policies out for every policy")
  .transform((policies) => [...new Set(policies)]);

/** A key's rate limit in requests per second: positive and finite (fractions allowed: 0.5 = one per 2 s). */
export const ApiKeyRateSchema = z.number().positive().max(1_000_000);

/** A rate as the CLI takes it: "5", "0.5" or "5/s" requests per second. */
export const RateTextSchema = z
  .string()
  .regex(/^\d+(\.\d+)?(\/s)?$/, 'requests per second, e.g. "5" or "5/s"')
  .transform((text) => Number(text.replace(/\/s$/, "")))
  .pipe(ApiKeyRateSchema);

/** SHA-256 in lower-case hex, as key-directory.ts computes it. */
export const ApiKeyHashSchema = z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lower-case hex");

export const NewApiKeySchema = z.object({
  name: ApiKeyNameSchema,
  scopes: ApiKeyScopesSchema,
  policies: ApiKeyPoliciesSchema.optional(),
  ratePerSecond: ApiKeyRateSchema.optional(),
  hash: ApiKeyHashSchema,
});

export function parseNewApiKey(options: { key: unknown }): NewApiKey {
  return parseWith({ schema: NewApiKeySchema, value: options.key, what: "API key", path: "key" });
}

/** Validates one argument of an API-key store call. */
export function parseApiKeyArgument<S extends z.ZodType>(options: {
  schema: S;
  value: unknown;
  field: string;
}): z.output<S> {
  return parseWith({
    schema: options.schema,
    value: options.value,
    what: "store argument",
    path: options.field,
  });
}

export function parseNewDemonstration(options: { demonstration: unknown }): NewDemonstration {
  const parsed = parseWith({
    schema: NewDemonstrationSchema,
    value: options.demonstration,
    what: "demonstration",
    path: "demonstration",
  });
  return parsed as NewDemonstration;
}

export function parseNewWorkflow(options: { workflow: unknown }): NewWorkflow {
  return parseWith({
    schema: NewWorkflowSchema,
    value: options.workflow,
    what: "workflow",
    path: "workflow",
  });
}

/** Validates one named argument of a store call (a policy name, an id, an action). */
export function parseName(options: {
  value: unknown;
  field: string;
  optional?: boolean;
}): string | undefined {
  const schema = options.field === "id" ? IdSchema : NameSchema;
  return parseWith({
    schema: options.optional ? schema.optional() : schema,
    value: options.value,
    what: "store argument",
    path: options.field,
  });
}
