/**
 * warden/openai-agents: Warden as guardrails of the OpenAI Agents SDK (@openai/agents, an optional
 * peer). The SDK's guardrails are plain objects the runner calls, so nothing of the SDK is loaded at run
 * time here — only its types — and the runner's own control flow carries Warden's answer:
 *
 * - `wardenToolInputGuardrail` (a tool's `inputGuardrails`): each function call is checked before it
 *   runs. A refused call does not run; in "feedback" mode (default) the model gets the refusal text as the
 *   tool's result (`rejectContent`) and can adjust; in "throw" mode the SDK's tripwire
 *   (`ToolInputGuardrailTripwireTriggered`, which the runner rejects wrapped in a `ToolCallError`) ends
 *   the run, its `outputInfo` holding the Decision and a `WardenToolDeniedError` (`wardenDenialOf(error)`
 *   finds it); in "approval" mode an "ask" runs only when a human approved the call through
 *   the SDK's approval flow (`needsApproval: wardenNeedsApproval(...)`, then `state.approve(...)`).
 * - `wardenInputGuardrail` (an agent's `inputGuardrails`): the user's input alone, checked before the
 *   agent starts (blocking, not in parallel, so no tool runs first). It trips on anything but an allow.
 * - `wardenOutputGuardrail` (an agent's `outputGuardrails`): the final answer with the input.
 *
 * What a policy can judge from the input alone depends on the policy: rules on the request (task
 * categories, identity and access, a model-decided policy such as agentharm) decide it; a policy of tool
 * rules only has nothing to judge in a request, so the check fails closed and the input guardrail trips
 * on every run — guard tool calls with the tool guardrail instead.
 *
 * The runner gives a guardrail no history, so this module keeps, per run (keyed by the run's
 * RunContext), the user's input the input guardrail saw and the calls the tool guardrail let through;
 * each tool check receives them as `input` and `history`. That memory lives in this process: a run
 * resumed from a serialized RunState (another process, `RunState.fromString`) starts with no history, so
 * a policy with temporal rules over earlier calls should resume runs in the process that started them.
 */
import type {
  AgentOutputType,
  InputGuardrail,
  OutputGuardrail,
  RunContext,
  TextOutput,
  ToolGuardrailFunctionOutput,
  ToolInputGuardrailDefinition,
} from "@openai/agents";
import type { Decision } from "../../core/decision.js";
import { WardenToolDeniedError } from "../denied-error.js";
import {
  decideClosed,
  type GuardMode,
  gateToolCall,
  isAllow,
  parseGateOptions,
  type TextGuard,
  type ToolCallGuard,
  type ToolHistoryStep,
} from "../tool-gate.js";

export { WardenToolDeniedError } from "../denied-error.js";
export type { GuardMode, TextGuard, ToolCallGuard } from "../tool-gate.js";

/** Facts about the run for the check (identity, session…): fixed, or read from the run's context. */
export type ContextOption = Record<string, unknown> | ((runContext: RunContext) => Record<string, unknown>);

export interface WardenToolInputGuardrailOptions {
  guard: ToolCallGuard;
  /** "feedback" (default), "throw" or "approval"; see the module header. */
  mode?: GuardMode;
  /** The guardrail's name in the SDK's results and traces (default "warden"). */
  name?: string;
  context?: ContextOption;
  /** Time limit of one check in ms; past it the call is refused (default: the guard's own limits). */
  timeoutMs?: number;
}

export interface WardenTextGuardrailOptions {
  guard: TextGuard;
  name?: string;
  context?: ContextOption;
  timeoutMs?: number;
}

/** What a guardrail's `outputInfo` holds: the Decision, its explanation, and the refusal when refused. */
export interface WardenOutputInfo {
  decision: Decision;
  explanation: string;
  refusal?: string;
  /** "throw" mode: the error that describes the refused call. */
  error?: WardenToolDeniedError;
  /** "approval" mode: an "ask" a human approved. */
  approvedByHuman?: boolean;
}

/** What one run has shown the guardrails so far. */
interface RunMemory {
  input?: string;
  history: ToolHistoryStep[];
}

const runs = new WeakMap<object, RunMemory>();

function memoryOf(runContext: object): RunMemory {
  let memory = runs.get(runContext);
  if (!memory) {
    memory = { history: [] };
    runs.set(runContext, memory);
  }
  return memory;
}

function contextOf(options: { context?: ContextOption; runContext: RunContext }) {
  const { context, runContext } = options;
  return typeof context === "function" ? context(runContext) : context;
}

/** The user's words in the run's input: the text itself, or the text of its user messages. */
export function inputText(options: { input: string | readonly unknown[] }): string {
  const { input } = options;
  if (typeof input === "string") return input;
  const texts: string[] = [];
  for (const item of input) {
    const message = item as { role?: unknown; content?: unknown };
    if (message?.role !== "user") continue;
    if (typeof message.content === "string") texts.push(message.content);
    else if (Array.isArray(message.content)) {
      for (const part of message.content) {
        const text = (part as { text?: unknown })?.text;
        if (typeof text === "string") texts.push(text);
      }
    }
  }
  return texts.join("\n");
}

function toolOutput(options: {
  behavior: "allow" | "rejectContent" | "throwException";
  info: WardenOutputInfo;
}): ToolGuardrailFunctionOutput {
  const { behavior, info } = options;
  if (behavior === "allow") return { behavior: { type: "allow" }, outputInfo: info };
  if (behavior === "throwException") return { behavior: { type: "throwException" }, outputInfo: info };
  return { behavior: { type: "rejectContent", message: info.refusal ?? info.explanation }, outputInfo: info };
}

/** A tool input guardrail that checks each function call with Warden before it runs. */
export function wardenToolInputGuardrail(
  options: WardenToolInputGuardrailOptions,
): ToolInputGuardrailDefinition {
  const { mode, timeoutMs, name } = parseGateOptions({
    value: options,
    what: "wardenToolInputGuardrail options",
  });
  const { guard } = options;
  return {
    type: "tool_input",
    name: name ?? "warden",
    run: async ({ context: runContext, toolCall }) => {
      const memory = memoryOf(runContext);
      const tool = toolCall.name;
      const context = contextOf({ ...(options.context ? { context: options.context } : {}), runContext });
      const outcome = await gateToolCall({
        guard,
        tool,
        rawArguments: toolCall.arguments,
        history: memory.history,
        ...(memory.input !== undefined ? { input: memory.input } : {}),
        ...(context ? { context } : {}),
        id: toolCall.callId,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      });
      const { decision } = outcome;
      if (outcome.kind === "run") {
        memory.history.push({ action: tool, args: outcome.args ?? {} });
        return toolOutput({ behavior: "allow", info: { decision, explanation: decision.explanation } });
      }
      // Only a determined "ask" that a human approved through the SDK's approval flow may run.
      if (
        outcome.kind === "ask" &&
        mode === "approval" &&
        runContext.isToolApproved({ toolName: tool, callId: toolCall.callId }) === true
      ) {
        memory.history.push({ action: tool, args: outcome.args ?? {} });
        return toolOutput({
          behavior: "allow",
          info: { decision, explanation: decision.explanation, approvedByHuman: true },
        });
      }
      const info: WardenOutputInfo = {
        decision,
        explanation: decision.explanation,
        refusal: outcome.refusal,
      };
      if (mode === "throw") {
        const error = new WardenToolDeniedError({
          toolName: tool,
          toolCallId: toolCall.callId,
          decision,
          message: outcome.refusal,
        });
        return toolOutput({ behavior: "throwException", info: { ...info, error } });
      }
      return toolOutput({ behavior: "rejectContent", info });
    },
  };
}

export interface WardenNeedsApprovalOptions {
  guard: ToolCallGuard;
  /** The tool's name, as the model calls it (the SDK does not pass it to `needsApproval`). */
  tool: string;
  context?: ContextOption;
  timeoutMs?: number;
}

/**
 * A tool's `needsApproval` that asks a human whenever Warden does not simply allow the call. Use it with
 * `wardenToolInputGuardrail({ mode: "approval" })`, which still refuses a deny after approval: a human
 * can lift an "ask", never a deny.
 */
export function wardenNeedsApproval(
  options: WardenNeedsApprovalOptions,
): (runContext: RunContext, input: unknown, callId?: string) => Promise<boolean> {
  parseGateOptions({ value: { ...options, name: options.tool }, what: "wardenNeedsApproval options" });
  const { guard, tool, timeoutMs } = options;
  return async (runContext, input, callId) => {
    const memory = memoryOf(runContext);
    const context = contextOf({ ...(options.context ? { context: options.context } : {}), runContext });
    const outcome = await gateToolCall({
      guard,
      tool,
      rawArguments: input,
      history: memory.history,
      ...(memory.input !== undefined ? { input: memory.input } : {}),
      ...(context ? { context } : {}),
      ...(callId !== undefined ? { id: callId } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
    return outcome.kind !== "run";
  };
}

/**
 * The WardenToolDeniedError behind a failed run, if a refused call ended it ("throw" mode). The runner
 * wraps the guardrail's tripwire (`ToolCallError` → `ToolInputGuardrailTripwireTriggered` → its
 * `outputInfo`); this looks through those layers so the application need not know them.
 */
export function wardenDenialOf(options: { error: unknown }): WardenToolDeniedError | undefined {
  let current: unknown = options.error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === "object"; depth++) {
    if (WardenToolDeniedError.is(current)) return current;
    const layer = current as {
      error?: unknown;
      cause?: unknown;
      result?: { output?: { outputInfo?: unknown } };
    };
    const info = layer.result?.output?.outputInfo as { error?: unknown } | undefined;
    if (WardenToolDeniedError.is(info?.error)) return info.error;
    current = layer.error ?? layer.cause;
  }
  return undefined;
}

function tripwire(decision: Decision) {
  const allowed = isAllow(decision);
  const outputInfo: WardenOutputInfo = { decision, explanation: decision.explanation };
  return { tripwireTriggered: !allowed, outputInfo };
}

/**
 * An input guardrail: the user's input, checked before the agent starts. It runs blocking (not in
 * parallel with the model), so a tripped input never reaches a tool.
 */
export function wardenInputGuardrail(options: WardenTextGuardrailOptions): InputGuardrail {
  const { timeoutMs, name } = parseGateOptions({ value: options, what: "wardenInputGuardrail options" });
  const { guard } = options;
  return {
    name: name ?? "warden-input",
    runInParallel: false,
    execute: async ({ input, context: runContext }) => {
      const text = inputText({ input });
      memoryOf(runContext).input = text;
      const context = contextOf({ ...(options.context ? { context: options.context } : {}), runContext });
      const decision = await decideClosed({
        run: () => guard.check({ input: text, output: "", ...(context ? { context } : {}) }),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      });
      return tripwire(decision);
    },
  };
}

/** An output guardrail: the agent's final answer (as text; structured output as JSON) with its input. */
export function wardenOutputGuardrail<TOutput extends AgentOutputType = TextOutput>(
  options: WardenTextGuardrailOptions,
): OutputGuardrail<TOutput> {
  const { timeoutMs, name } = parseGateOptions({ value: options, what: "wardenOutputGuardrail options" });
  const { guard } = options;
  return {
    name: name ?? "warden-output",
    execute: async ({ agentOutput, context: runContext }) => {
      const output = typeof agentOutput === "string" ? agentOutput : JSON.stringify(agentOutput ?? null);
      const memory = memoryOf(runContext);
      const context = contextOf({ ...(options.context ? { context: options.context } : {}), runContext });
      const decision = await decideClosed({
        run: () => guard.check({ input: memory.input ?? "", output, ...(context ? { context } : {}) }),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      });
      return tripwire(decision);
    },
  };
}
