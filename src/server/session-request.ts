/**
 * Request and response bodies of server-side sessions (`/v1/sessions`, runtime/guard-sessions.ts): open
 * with a policy, the task and the caller's context; send steps in the Step shape of core/subject.ts (a
 * tool call is `{ action, args }`); finish.
 */
import { z } from "zod";
import { ContextSchema, StepSchema, SubjectSchema } from "../core/subject.js";
import { ENGINE_NAMES } from "../runtime/create-engine.js";

export const OpenSessionRequestSchema = z
  .object({
    /** Name of a policy the server preloaded. */
    policy: z.string().min(1),
    /** What the agent was asked (the task every step is checked for). */
    input: SubjectSchema.shape.input.default(""),
    /** The caller's context (identity, user attributes…), as in a subject. */
    context: ContextSchema.optional(),
  })
  .strict();

export const SessionStepRequestSchema = z
  .object({
    /** The step about to run: `{ action: <tool name>, args }`, or a web step with url, element, value. */
    step: StepSchema,
    /** Engine to decide with; the server's default when absent. */
    engine: z.enum(ENGINE_NAMES).optional(),
  })
  .strict();

export const SessionSchema = z.object({
  id: z.string(),
  policy: z.string(),
  input: z.string(),
  context: z.record(z.string(), z.unknown()).optional(),
  createdAt: z.string(),
  finishedAt: z.string().optional(),
  stepCount: z.number().int(),
});

export const SessionWithStepsSchema = SessionSchema.extend({
  steps: z.array(
    z.object({
      index: z.number().int(),
      step: z.record(z.string(), z.unknown()),
      verdict: z.enum(["allow", "deny", "ask"]),
      at: z.string(),
    }),
  ),
});

/** A session as answered: never its owner (an internal key id). */
export function sessionView<S extends { owner?: string }>(session: S): Omit<S, "owner"> {
  const { owner: _owner, ...view } = session;
  return view;
}
