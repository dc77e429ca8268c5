/**
 * What Warden checks: the guarded agent's input I_i and output log I_o as text (GuardAgent's view), and
 * optionally a trajectory of steps (ShieldAgent's view) and structured context the caller already knows.
 *
 * Every face parses subjects with these schemas, so their limits hold everywhere: a trajectory length,
 * string sizes and a nesting depth for free-form values (args, meta, context) far beyond any real agent
 * log, but small enough that nothing downstream (serialising, walking arguments) can overflow the stack
 * or run out of memory. The depth is measured iteratively and named by its path.
 */
import { z } from "zod";
import { depthProblem } from "./limits.js";

/** Most steps in one trajectory (the longest benchmark trajectories have a few hundred). */
export const MAX_TRAJECTORY_STEPS = 10_000;
/** Deepest nesting of an args/meta/context value (objects and arrays; real tool calls nest < 10). */
export const MAX_VALUE_DEPTH = 64;
/** Longest text field: input, output, a step's observation, thought or value. */
export const MAX_TEXT_CHARS = 16 * 1024 * 1024;
/** Longest url or element of a step. */
export const MAX_LOCATOR_CHARS = 1024 * 1024;
/** Longest action name or subject id. */
export const MAX_NAME_CHARS = 4096;

const text = () => z.string().max(MAX_TEXT_CHARS, `at most ${MAX_TEXT_CHARS} characters`);
const locator = () => z.string().max(MAX_LOCATOR_CHARS, `at most ${MAX_LOCATOR_CHARS} characters`);

/** A free-form JSON object (args, meta, context) no deeper than MAX_VALUE_DEPTH. */
const boundedRecord = () =>
  z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const deep = depthProblem({ value, maxDepth: MAX_VALUE_DEPTH });
    if (!deep) return;
    ctx.addIssue({
      code: "custom",
      message: `nested more than ${MAX_VALUE_DEPTH} levels deep (at ${deep.path})`,
    });
  });

/** Structured facts the caller knows: a JSON object (never an array or a scalar). */
export const ContextSchema = boundedRecord();

/** One step of an agent: a tool call or a web action, with what it saw. */
export const StepSchema = z.object({
  /** Action or tool name: "click", "fill", "goto", "send_message", "mcp:github.create_issue"... */
  action: z.string().min(1).max(MAX_NAME_CHARS, `at most ${MAX_NAME_CHARS} characters`),
  /** Tool-call arguments or action parameters. */
  args: boundedRecord().default({}),
  /** Page URL at the time of the step (web agents). */
  url: locator().optional(),
  /** Target element: a CSS selector, an accessibility name or the element's text. */
  element: locator().optional(),
  /** Typed or selected value (web agents). */
  value: text().optional(),
  /** What the agent observed after/before the step: page text, tool result. */
  observation: text().optional(),
  /** The agent's own reasoning for this step, when logged. */
  thought: text().optional(),
  /** Free-form extra facts about the step. */
  meta: boundedRecord().optional(),
});
export type Step = z.output<typeof StepSchema>;
export type StepInput = z.input<typeof StepSchema>;

/** The steps of one trajectory, at most MAX_TRAJECTORY_STEPS. */
export const TrajectoryStepsSchema = z
  .array(StepSchema)
  .max(MAX_TRAJECTORY_STEPS, `at most ${MAX_TRAJECTORY_STEPS} steps`);

export const SubjectSchema = z.object({
  /** I_i: what the agent was asked, e.g. "Identity: nursing\nQuestion: ...". */
  input: text(),
  /** I_o: the agent's output log, e.g. knowledge + generated code + answer. */
  output: text().default(""),
  /** Steps taken so far; the last step is the one being decided by step-wise engines. */
  trajectory: TrajectoryStepsSchema.optional(),
  /**
   * Facts the caller already knows in structured form (identity, user attributes, tool calls...).
   * Extractors prefer these over parsing text.
   */
  context: ContextSchema.optional(),
  /** Caller's id for this check (benchmark record id, request id). */
  id: z.string().max(MAX_NAME_CHARS, `at most ${MAX_NAME_CHARS} characters`).optional(),
});
export type Subject = z.output<typeof SubjectSchema>;
export type SubjectInput = z.input<typeof SubjectSchema>;
