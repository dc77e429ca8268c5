/**
 * Structured output by instruction rather than by provider feature: the schema goes into the prompt
 * as JSON Schema, the reply is parsed leniently and validated with zod, and a failed reply is answered
 * with its validation errors. This works the same against OpenAI, Anthropic, any OpenAI-compatible
 * server, Ollama, a local GGUF model and a scripted test model.
 */
import { z } from "zod";
import { formatIssues } from "../core/validate.js";
import { extractJson } from "./json-extract.js";

export type JsonSchemaObject = Record<string, unknown>;

/** Keeps the prompt small: the $schema URI tells the model nothing. */
export function schemaToJson(options: { schema: z.ZodType }): JsonSchemaObject {
  const json = z.toJSONSchema(options.schema, { io: "input", unrepresentable: "any" }) as JsonSchemaObject;
  const { $schema: _ignored, ...rest } = json;
  return rest;
}

export function structuredInstruction(options: {
  jsonSchema: JsonSchemaObject;
  schemaName?: string;
  schemaDescription?: string;
}): string {
  const lines = ["Reply with a single JSON value and nothing else: no prose, no code fences."];
  if (options.schemaName) lines.push(`The value is a "${options.schemaName}".`);
  if (options.schemaDescription) lines.push(options.schemaDescription);
  lines.push("It must conform to this JSON Schema:", JSON.stringify(options.jsonSchema));
  return lines.join("\n");
}

export type ReplyCheck<T> = { ok: true; value: T } | { ok: false; errors: string };

export function checkStructuredReply<T>(options: { text: string; schema: z.ZodType<T> }): ReplyCheck<T> {
  const extracted = extractJson({ text: options.text });
  if (!extracted.ok) return { ok: false, errors: extracted.error };
  const result = options.schema.safeParse(extracted.value);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, errors: formatIssues(result.error.issues) };
}

/** The user turn of a re-ask: names what was wrong so the model can fix exactly that. */
export function repairMessage(options: { errors: string }): string {
  return [
    "Your reply could not be used. Problems found:",
    options.errors,
    "Reply again with only the corrected JSON value, conforming to the schema.",
  ].join("\n");
}
