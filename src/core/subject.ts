/**
 * What Warden checks: the guarded agent's input I_i and output log I_o as text (GuardAgent's view), and
 * optionally a trajectory of steps (ShieldAgent's view) and structured context the caller already knows.
 */
import { z } from "zod";

/** One step of an agent: a tool call or a web action, with what it saw. */
export const StepSchema = z.object({
  /** Action or tool name: "click", "fill", "goto", "send_message", "mcp:github.create_issue"... */
  action: z.string().min(1),
  /** Tool-call arguments or action parameters. */
  args: z.record(z.string(), z.unknown()).default({}),
  /** Page URL at the time of the step (web agents). */
  url: z.string().optional(),
  /** Target element: a CSS selector, an accessibility name or the element's text. */
  element: z.string().optional(),
  /** Typed or selected value (web agents). */
  value: z.string().optional(),
  /** What the agent observed after/before the step: page text, tool result. */
  observation: z.string().optional(),
  /** The agent's own reasoning for this step, when logged. */
  thought: z.string().optional(),
  /** Free-form extra facts about the step. */
  meta: z.record(z.string(), z.unknown()).optional(),
});
export type Step = z.output<typeof StepSchema>;
export type StepInput = z.input<typeof StepSchema>;

export const SubjectSchema = z.object({
  /** I_i: what the agent was asked, e.g. "Identity: nursing\nQuestion: ...". */
  input: z.string(),
  /** I_o: the agent's output log, e.g. knowledge + generated code + answer. */
  output: z.string().default(""),
  /** Steps taken so far; the last step is the one being decided by step-wise engines. */
  trajectory: z.array(StepSchema).optional(),
  /**
   * Facts the caller already knows in structured form (identity, user attributes, tool calls...).
   * Extractors prefer these over parsing text.
   */
  context: z.record(z.string(), z.unknown()).optional(),
  /** Caller's id for this check (benchmark record id, request id). */
  id: z.string().optional(),
});
export type Subject = z.output<typeof SubjectSchema>;
export type SubjectInput = z.input<typeof SubjectSchema>;
