/**
 * Boundary validation of what callers hand a Store. Both backends apply the same rules, so a record that
 * one accepts the other accepts too and reads back identically: text must be well-formed UTF-16 without
 * NUL (PostgreSQL text cannot hold U+0000, and a lone surrogate cannot survive UTF-8), meta and workflow
 * plans must be JSON values (they are stored as JSON text, byte for byte).
 */
import { z } from "zod";
import { parseWith } from "../core/validate.js";
import type { NewDemonstration, NewWorkflow } from "./store.js";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text any backend can store and return unchanged. */
export const StorableTextSchema = z
  .string()
  .refine((s) => !s.includes("\u0000"), {
    message: "contains a NUL character (U+0000), which cannot be stored",
  })
  .refine((s) => !LONE_SURROGATE.test(s), {
    message: "contains a lone UTF-16 surrogate, which cannot be stored as UTF-8",
  });

const NameSchema = StorableTextSchema.pipe(z.string().min(1, "must not be empty").max(500));
const IdSchema = StorableTextSchema.pipe(z.string().min(1, "must not be empty").max(200));

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
