/**
 * Request bodies: `POST /v1/check` (a preloaded policy's name, the subject to check and, optionally, the
 * engine), `POST /v1/check/tool-call` (the same for one tool call) and `POST /v1/feedback` (the right
 * label for a check this server decided).
 */
import { z } from "zod";
import { SubjectSchema } from "../core/subject.js";
import { ToolCallSchema } from "../core/tool-call.js";
import { ENGINE_NAMES } from "../runtime/create-engine.js";

export const CheckRequestSchema = z
  .object({
    /** Name of a policy the server preloaded (see GET /v1/policies). */
    policy: z.string().min(1),
    subject: SubjectSchema,
    /** Engine to decide with; the server's default when absent. */
    engine: z.enum(ENGINE_NAMES).optional(),
  })
  .strict();
export type CheckRequest = z.output<typeof CheckRequestSchema>;
export type CheckRequestInput = z.input<typeof CheckRequestSchema>;

/** `POST /v1/check/tool-call`: one tool call about to run, without stringifying it into a subject. */
export const ToolCallRequestSchema = z
  .object({
    policy: z.string().min(1),
    /** `{ name, arguments, history?, input?, context?, id? }` (core/tool-call.ts). */
    call: ToolCallSchema,
    engine: z.enum(ENGINE_NAMES).optional(),
  })
  .strict();
export type ToolCallRequestInput = z.input<typeof ToolCallRequestSchema>;

export const FeedbackRequestSchema = z
  .object({
    /** The policy the check was made against. */
    policy: z.string().min(1),
    /** The subject exactly as it was checked. */
    subject: SubjectSchema,
    /** The right answer for that check. */
    label: z.enum(["allow", "deny"]),
  })
  .strict();
