/**
 * A tool call as the check sees it, whichever face received it (the library's `checkToolCall`, HTTP
 * `POST /v1/check/tool-call`, the MCP proxy, coding-agent hooks, framework integrations): the call's name
 * and arguments, the steps before it, the user's task and known facts. One subject is built from it, so a
 * call means the same thing on every face.
 *
 * The subject carries the call three ways: as the agent's output (the protocol message the text-reading
 * engines see), as structured context (`toolCalls`, so no parsing is needed), and as the last step of the
 * trajectory (for step-wise engines and temporal rules), after the earlier steps.
 *
 * `toolCalls` and `toolSchemas` are the face's own facts: caller-supplied context never replaces them (a
 * context naming another call, or a schema that makes a path look like plain text, would let the check
 * judge something other than what runs).
 */
import { z } from "zod";
import { withFields } from "../util/with-fields.js";
import {
  ContextSchema,
  type Step,
  StepSchema,
  type Subject,
  SubjectSchema,
  TrajectoryStepsSchema,
} from "./subject.js";

export const ToolCallSchema = z
  .object({
    /** The tool's name as the framework or provider calls it ("email_send", "mcp__github__create_issue"). */
    name: StepSchema.shape.action,
    /** The call's arguments: a JSON object. */
    arguments: StepSchema.shape.args,
    /** Earlier steps of this run, oldest first: `{ action, args, observation? }` (observation = the result). */
    history: TrajectoryStepsSchema.optional(),
    /** What the agent was asked: the user's task or messages so far, as text. */
    input: SubjectSchema.shape.input.optional(),
    /** Facts the caller knows (identity, cwd, session…); see the header for what it cannot replace. */
    context: ContextSchema.optional(),
    /** The caller's id for this check. */
    id: SubjectSchema.shape.id,
  })
  .strict();
export type ToolCall = z.output<typeof ToolCallSchema>;
export type ToolCallInput = z.input<typeof ToolCallSchema>;

/** What a step may say besides its action and arguments (a web step's page, element, value…). */
export type StepDetails = Omit<Step, "action" | "args">;

export function toolCallSubject(options: {
  /** The tool name as the policy knows it (after any prefix or name mapping). */
  tool: string;
  args: Record<string, unknown>;
  /** The agent's task, when known. */
  task?: string;
  /** Facts the face was given (identity, user attributes...). */
  context?: Record<string, unknown>;
  /** Steps already taken in this session or run, oldest first. */
  history?: readonly Step[];
  /** The tool's input schema (an MCP upstream's `tools/list`), when known. */
  inputSchema?: unknown;
  /** The rest of the step this call is (a server-side session's step: url, element, value…). */
  details?: StepDetails;
  id?: string;
}): Subject {
  const { tool, args } = options;
  const configured = configuredContext(options.context);
  return {
    input: options.task ?? "",
    output: JSON.stringify({ method: "tools/call", params: { name: tool, arguments: args } }),
    // withFields, not literals beginning with the spread: on Node 20 those cost microseconds (with-fields.ts).
    context: withFields({
      base: configured,
      fields: {
        toolCalls: [{ name: tool, arguments: args }],
        ...(options.inputSchema !== undefined ? { toolSchemas: { [tool]: options.inputSchema } } : {}),
      },
    }),
    trajectory: trajectoryOf({
      history: options.history ?? [],
      step: withFields({ base: options.details, fields: { action: tool, args } }),
    }),
    ...(options.id !== undefined ? { id: options.id } : {}),
  };
}

/** The caller's context without the face's own facts (undefined when there is none: no copy to make). */
function configuredContext(
  context: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (context === undefined) return undefined;
  const { toolCalls: _calls, toolCall: _call, toolSchemas: _schemas, ...configured } = context;
  return configured;
}

/**
 * The earlier steps and this one, in one array built at its length. Copies: a face may fill in a step's
 * observation later, while this check may still be running. A frozen step cannot change, so it is shared
 * (the MCP proxy freezes its steps and replaces them).
 */
function trajectoryOf(options: { history: readonly Step[]; step: Step }): Step[] {
  const { history } = options;
  const steps = new Array<Step>(history.length + 1);
  for (let i = 0; i < history.length; i++) {
    const step = history[i] as Step;
    steps[i] = Object.isFrozen(step) ? step : { ...step };
  }
  steps[history.length] = options.step;
  return steps;
}
