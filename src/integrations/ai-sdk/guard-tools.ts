/**
 * `guardTools`: the AI SDK's tools, each call checked by Warden before it runs. The tools come back the
 * same (description, schema, everything), with `execute` guarded — and `needsApproval` too in the modes
 * that use it — so `generateText`/`streamText`/agents use them unchanged.
 *
 * What a refusal does is the mode:
 * - "feedback" (default; ShieldAgent's online guardrail): the call does not run; its result is a Warden
 *   refusal naming the rules, why, and what to do instead, which the model reads on its next step.
 * - "throw": a tripwire. The check runs in `needsApproval`, which the SDK calls before it executes
 *   anything, and a refusal throws WardenToolDeniedError out of `generateText` (`streamText` ends with it
 *   as the stream's error part, and `onError`); an `ask` too: nobody is asked in this mode. `execute`
 *   still checks, for callers that reach it another way.
 * - "approval": an `ask` becomes the SDK's tool approval (`needsApproval` answers true), and the call runs
 *   only once the conversation holds the person's approval of it; a deny is refused with feedback.
 *
 * Fail closed everywhere: a check that throws, times out, or cannot be made (arguments that are not an
 * object, a run longer than the history limit) is a refusal, never a run. Only a Decision with
 * `allowed: true` runs a call (or an approved `ask` in approval mode).
 *
 * The history is the conversation the SDK hands the tool (history.ts); the task is the user's messages
 * unless the application names it. The decision `needsApproval` reached is reused by `execute` for the
 * same call in the same step (keyed on the SDK's own message list), so a model-backed check is paid once.
 *
 * What it cannot guard: tools without `execute` (the client runs them) and provider-executed tools (the
 * provider runs them); they are returned as they are.
 */
import type { Tool, ToolExecutionOptions, ToolSet } from "ai";
import { z } from "zod";
import { type Decision, failureDecision } from "../../core/decision.js";
import { type ErrorCode, toWardenError } from "../../core/errors.js";
import { MAX_TEXT_CHARS, MAX_TRAJECTORY_STEPS } from "../../core/subject.js";
import { parseWith } from "../../core/validate.js";
import type { Guard } from "../../guard.js";
import { refusalText } from "../refusal.js";
import { approvedInMessages } from "./approval.js";
import { isDecisionLike } from "./decision-shape.js";
import { WardenToolDeniedError } from "./denied-error.js";
import { DEFAULT_HISTORY_LIMITS, type HistoryLimits, jsonText, runHistory } from "./history.js";
import { isSignedRefusal, type RefusalKey, refusalOutput } from "./refusal-output.js";

export type GuardMode = "feedback" | "throw" | "approval";

/** What guardTools needs of a guard: `createGuard`'s, or anything with its `checkToolCall`. */
export type ToolCallGuard = Pick<Guard, "checkToolCall">;

/** The call a context function is asked about. */
export interface GuardedCall {
  toolName: string;
  toolCallId: string;
  input: unknown;
  experimentalContext?: unknown;
}

export interface GuardToolsOptions<TOOLS extends ToolSet> {
  tools: TOOLS;
  guard: ToolCallGuard;
  /** What a refusal does (see the module header); default "feedback". */
  mode?: GuardMode;
  /** The user's task, when the application knows it better than the user's messages say. */
  task?: string;
  /** Facts the check should know (identity, cwd, session…): an object, or a function of the call. */
  context?:
    | Record<string, unknown>
    | ((call: GuardedCall) => Record<string, unknown> | Promise<Record<string, unknown>>);
  /** Longest tool result kept per history step, in characters (default 8192; head and tail kept). */
  maxObservationChars?: number;
  /** Most earlier steps a check sees; a longer run fails closed (default 1000). */
  maxHistorySteps?: number;
  /** Time limit of one check in ms; past it the call is refused (default: the guard's own limits). */
  timeoutMs?: number;
  /**
   * Key that signs refusals, so the history knows they did not run. Default: a random key per process;
   * give one (16+ characters) when a conversation outlives the process or moves between instances.
   */
  secret?: RefusalKey;
}

const OptionsSchema = z.object({
  tools: z.record(
    z.string(),
    z.custom<object>((v) => typeof v === "object" && v !== null, "must be a tool object"),
  ),
  guard: z.custom<ToolCallGuard>(
    (v) => typeof (v as { checkToolCall?: unknown } | null)?.checkToolCall === "function",
    "must be a Warden guard (createGuard) with checkToolCall",
  ),
  mode: z.enum(["feedback", "throw", "approval"]).default("feedback"),
  task: z.string().max(MAX_TEXT_CHARS).optional(),
  context: z
    .union([
      z.record(z.string(), z.unknown()),
      z.custom<(call: GuardedCall) => unknown>((v) => typeof v === "function", "must be a function"),
    ])
    .optional(),
  maxObservationChars: z.number().int().min(256).max(MAX_TEXT_CHARS).optional(),
  maxHistorySteps: z
    .number()
    .int()
    .min(0)
    .max(MAX_TRAJECTORY_STEPS - 1)
    .optional(),
  timeoutMs: z.number().int().positive().optional(),
  secret: z.union([z.string().min(16), z.instanceof(Uint8Array)]).optional(),
});

/** Longest tool-call id passed on as the check's id (ids are short; a long one is left out, not refused). */
const MAX_ID_CHARS = 256;

interface Settings {
  guard: ToolCallGuard;
  mode: GuardMode;
  task: string | undefined;
  context: GuardToolsOptions<ToolSet>["context"];
  limits: HistoryLimits;
  timeoutMs: number | undefined;
  key: RefusalKey | undefined;
  /** Decisions `needsApproval` reached, for `execute` of the same call in the same step. */
  memo: WeakMap<object, Map<string, Promise<Decision>>>;
}

type AnyTool = Tool & Record<string, unknown>;
type ModelOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;
type CallOptions = Pick<
  ToolExecutionOptions,
  "toolCallId" | "messages" | "abortSignal" | "experimental_context"
>;

/** Only an explicit allow runs a call: anything else (ask, deny, a malformed answer) does not. */
function isAllowed(decision: Decision | undefined): boolean {
  return decision?.allowed === true && decision.verdict === "allow";
}

function failed(options: { code: ErrorCode; message: string }): Decision {
  return failureDecision({ engine: "ai-sdk", code: options.code, message: options.message });
}

function withTimeout(options: {
  check: Promise<Decision>;
  ms: number | undefined;
  tool: string;
}): Promise<Decision> {
  const { check, ms } = options;
  if (ms === undefined) return check;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Decision>((resolve) => {
    timer = setTimeout(
      () =>
        resolve(
          failed({
            code: "CHECK_TIMEOUT",
            message: `the check of ${options.tool} took longer than ${ms} ms`,
          }),
        ),
      ms,
    );
  });
  return Promise.race([check, late]).finally(() => clearTimeout(timer));
}

/** Warden's decision on one call; never throws (a failure is a fail-closed Decision). */
async function decide(options: {
  settings: Settings;
  toolName: string;
  input: unknown;
  call: CallOptions;
}): Promise<Decision> {
  const { settings, toolName, input, call } = options;
  try {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return failed({
        code: "INVALID_INPUT",
        message: `the arguments of ${toolName} are not a JSON object, so its rules cannot be applied`,
      });
    }
    const run = runHistory({
      messages: call.messages,
      skipToolCallId: call.toolCallId,
      isRefusal: (result) => isSignedRefusal({ ...result, key: settings.key }),
      limits: settings.limits,
    });
    if (run.tooLong) {
      return failed({
        code: "INVALID_INPUT",
        message: `the run has more than ${settings.limits.maxSteps} tool steps before this call (maxHistorySteps), so the check cannot see them all`,
      });
    }
    const context =
      typeof settings.context === "function"
        ? await settings.context({
            toolName,
            toolCallId: call.toolCallId,
            input,
            ...(call.experimental_context !== undefined
              ? { experimentalContext: call.experimental_context }
              : {}),
          })
        : settings.context;
    const task = settings.task ?? run.input;
    const check = settings.guard.checkToolCall({
      name: toolName,
      arguments: input as Record<string, unknown>,
      history: run.history,
      ...(task !== "" ? { input: task } : {}),
      ...(context !== undefined ? { context } : {}),
      ...(typeof call.toolCallId === "string" && call.toolCallId.length <= MAX_ID_CHARS
        ? { id: call.toolCallId }
        : {}),
    });
    const decision = await withTimeout({ check, ms: settings.timeoutMs, tool: toolName });
    if (!isDecisionLike(decision)) {
      return failed({
        code: "INTERNAL",
        message: `the guard answered the check of ${toolName} with no Decision`,
      });
    }
    return decision;
  } catch (error) {
    const problem = toWardenError({ error });
    return failed({ code: problem.code, message: `the check of ${toolName} failed: ${problem.message}` });
  }
}

function memoKey(options: { toolCallId: string; input: unknown }): string {
  return `${options.toolCallId}\u0000${jsonText(options.input)}`;
}

/** The decision for a call: the one `needsApproval` reached for it in this step, or a fresh check. */
function decisionFor(options: {
  settings: Settings;
  toolName: string;
  input: unknown;
  call: CallOptions;
  /** "store" (needsApproval) keeps it for execute; "take" (execute) uses it once. */
  memo: "store" | "take";
}): Promise<Decision> {
  const { settings, call } = options;
  const messages = call.messages as unknown;
  const canMemo = typeof messages === "object" && messages !== null;
  const key = memoKey({ toolCallId: call.toolCallId, input: options.input });
  if (canMemo && options.memo === "take") {
    const stored = settings.memo.get(messages)?.get(key);
    if (stored) {
      settings.memo.get(messages)?.delete(key);
      return stored;
    }
  }
  const decision = decide(options);
  if (canMemo && options.memo === "store") {
    let byCall = settings.memo.get(messages);
    if (!byCall) {
      byCall = new Map();
      settings.memo.set(messages, byCall);
    }
    byCall.set(key, decision);
  }
  return decision;
}

function deniedError(options: {
  toolName: string;
  toolCallId: string;
  decision: Decision;
}): WardenToolDeniedError {
  return new WardenToolDeniedError({
    ...options,
    message: refusalText({ decision: options.decision, tool: options.toolName }),
  });
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === "function";
}

type Gate = { run: true } | { run: false; refusal: unknown };

/** Whether a call runs; in throw mode a refusal throws instead of answering. */
async function gate(options: {
  settings: Settings;
  toolName: string;
  input: unknown;
  call: CallOptions;
}): Promise<Gate> {
  const { settings, toolName, call } = options;
  const decision = await decisionFor({ ...options, memo: "take" });
  const approved =
    settings.mode === "approval" &&
    decision?.verdict === "ask" &&
    decision.failure === undefined &&
    approvedInMessages({ messages: call.messages, toolCallId: call.toolCallId });
  if (isAllowed(decision) || approved) {
    call.abortSignal?.throwIfAborted();
    return { run: true };
  }
  if (settings.mode === "throw") throw deniedError({ toolName, toolCallId: call.toolCallId, decision });
  return {
    run: false,
    refusal: refusalOutput({ decision, tool: toolName, toolCallId: call.toolCallId, key: settings.key }),
  };
}

function guardedExecute(options: { settings: Settings; toolName: string; tool: AnyTool }) {
  const { settings, toolName, tool } = options;
  const execute = tool.execute as (input: unknown, call: CallOptions) => unknown;
  // A streaming tool (async generator) stays one, so its preliminary results still stream.
  if (Object.prototype.toString.call(execute) === "[object AsyncGeneratorFunction]") {
    return async function* guarded(input: unknown, call: CallOptions) {
      const verdict = await gate({ settings, toolName, input, call });
      if (!verdict.run) {
        yield verdict.refusal;
        return;
      }
      yield* execute.call(tool, input, call) as AsyncIterable<unknown>;
    };
  }
  return async (input: unknown, call: CallOptions) => {
    const verdict = await gate({ settings, toolName, input, call });
    if (!verdict.run) return verdict.refusal;
    const result = execute.call(tool, input, call);
    if (!isAsyncIterable(result)) return await result;
    let last: unknown;
    for await (const value of result) last = value;
    return last;
  };
}

function guardedNeedsApproval(options: { settings: Settings; toolName: string; tool: AnyTool }) {
  const { settings, toolName, tool } = options;
  const own = tool.needsApproval;
  return async (input: unknown, call: CallOptions): Promise<boolean> => {
    const decision = await decisionFor({ settings, toolName, input, call, memo: "store" });
    if (settings.mode === "throw") {
      if (!isAllowed(decision)) throw deniedError({ toolName, toolCallId: call.toolCallId, decision });
    } else {
      if (decision?.verdict === "ask" && decision.failure === undefined) return true;
      // A deny is not put to a person: execute refuses it with feedback.
      if (!isAllowed(decision)) return false;
    }
    if (typeof own === "function") return Boolean(await own.call(tool, input, call));
    return own === true;
  };
}

function guardOne(options: { settings: Settings; toolName: string; tool: AnyTool }): AnyTool {
  const { settings, toolName, tool } = options;
  if (tool.type === "provider" || typeof tool.execute !== "function") return tool;
  const wrapped: AnyTool = { ...tool, execute: guardedExecute(options) } as AnyTool;
  if (settings.mode !== "feedback") wrapped.needsApproval = guardedNeedsApproval(options);
  const own = tool.toModelOutput;
  if (typeof own === "function") {
    // The tool's own conversion is for its results; a refusal goes to the model as it is.
    wrapped.toModelOutput = (arg: { toolCallId: string; input: unknown; output: unknown }) =>
      isSignedRefusal({ output: arg.output, toolCallId: arg.toolCallId, toolName, key: settings.key })
        ? ({ type: "json", value: arg.output } as ModelOutput)
        : own.call(tool, arg);
  }
  return wrapped;
}

/**
 * The same tools, each call checked by Warden before it runs (see the module header for the modes).
 *
 *   const guard = await createGuard({ policy: "mcp-tools" });
 *   const result = await generateText({ model, tools: guardTools({ tools, guard }), stopWhen: stepCountIs(5), prompt });
 */
export function guardTools<TOOLS extends ToolSet>(options: GuardToolsOptions<TOOLS>): TOOLS {
  const parsed = parseWith({ schema: OptionsSchema, value: options, what: "guardTools options" });
  const settings: Settings = {
    guard: options.guard,
    mode: parsed.mode,
    task: parsed.task,
    context: options.context,
    limits: {
      maxObservationChars: parsed.maxObservationChars ?? DEFAULT_HISTORY_LIMITS.maxObservationChars,
      maxSteps: parsed.maxHistorySteps ?? DEFAULT_HISTORY_LIMITS.maxSteps,
    },
    timeoutMs: parsed.timeoutMs,
    key: options.secret,
    memo: new WeakMap(),
  };
  const guarded: Record<string, AnyTool> = {};
  for (const [toolName, tool] of Object.entries(options.tools)) {
    guarded[toolName] = guardOne({ settings, toolName, tool: tool as AnyTool });
  }
  return guarded as TOOLS;
}
