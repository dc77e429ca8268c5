/**
 * What every framework integration does before a tool runs, written once: read the call's arguments
 * (a JSON object, or the call is refused), ask the guard, and turn its answer into one of three
 * outcomes — run, refuse (with the feedback text the model gets), or needs a human. The frameworks differ
 * only in how they carry those outcomes (a rejection message, a tripwire, an interruption), so the
 * adapters stay thin and mean the same thing.
 *
 * Fail closed throughout: a guard that throws, answers something that is not a Decision, or does not
 * answer within the timeout yields a fail-closed deny Decision, so the tool never runs on an error. Only
 * `allowed: true` with verdict "allow" lets a call run.
 */
import { z } from "zod";
import { type Decision, failureDecision } from "../core/decision.js";
import type { ErrorCode } from "../core/errors.js";
import type { ToolCallInput } from "../core/tool-call.js";
import { parseWith } from "../core/validate.js";
import type { Guard } from "../guard.js";
import { refusalText } from "./refusal.js";

/** How a refused call surfaces. */
export type GuardMode = "feedback" | "throw" | "approval";

export const GUARD_MODES: readonly GuardMode[] = ["feedback", "throw", "approval"];

/** One earlier step of the run, as the check's history takes it. */
export interface ToolHistoryStep {
  action: string;
  args: Record<string, unknown>;
  observation?: string;
}

/** The part of a Guard the tool guardrails use (a Guard from `createGuard`, or one with the same call). */
export type ToolCallGuard = Pick<Guard, "checkToolCall">;

/** The part of a Guard the input and output guardrails use. */
export type TextGuard = Pick<Guard, "check">;

/** What the adapter does with the call. */
export type GateOutcome =
  | { kind: "run"; decision: Decision }
  | { kind: "refuse"; decision: Decision; refusal: string }
  | { kind: "ask"; decision: Decision; refusal: string };

/**
 * Most earlier steps a check is given; a longer run is refused (fail closed) rather than shortened, since
 * dropping old steps could hide what a temporal rule needs. The same bound as warden/ai-sdk's default.
 */
export const MAX_HISTORY_STEPS = 1000;

/** The engine name on decisions the integration makes itself (the guard never answered). */
const ENGINE = "integration";

/**
 * A call's arguments as a JSON object. Frameworks hand them over as JSON text (OpenAI) or a value
 * (LangChain); anything else — an array, a number, text that is not JSON — is refused, since a rule on
 * `args:path` cannot be checked against arguments it cannot see.
 */
export function parseToolArguments(options: {
  raw: unknown;
}): { ok: true; args: Record<string, unknown> } | { ok: false; reason: string } {
  let value = options.raw;
  if (typeof value === "string") {
    if (value.trim() === "") return { ok: true, args: {} };
    try {
      value = JSON.parse(value);
    } catch {
      return { ok: false, reason: "the call's arguments are not valid JSON" };
    }
  }
  if (value === undefined) return { ok: true, args: {} };
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, reason: "the call's arguments are not a JSON object" };
  }
  return { ok: true, args: value as Record<string, unknown> };
}

/** A fail-closed deny the integration makes when the guard gave no usable answer. */
export function closedDecision(options: { code: ErrorCode; message: string }): Decision {
  return failureDecision({ engine: ENGINE, code: options.code, message: options.message });
}

function isDecision(value: unknown): value is Decision {
  const d = value as Partial<Decision> | null;
  return (
    typeof d === "object" &&
    d !== null &&
    typeof d.allowed === "boolean" &&
    (d.verdict === "allow" || d.verdict === "deny" || d.verdict === "ask") &&
    // An answer that contradicts itself (allowed, yet "ask") is not one to act on.
    d.allowed === (d.verdict === "allow") &&
    Array.isArray(d.violations) &&
    typeof d.explanation === "string"
  );
}

/**
 * Runs one check; whatever goes wrong becomes a fail-closed Decision. With `timeoutMs` it also has a
 * deadline of its own (without, the guard's own limits apply: `createGuard`'s service answers a check
 * past its limit with a CHECK_TIMEOUT deny). The timer is cleared either way.
 */
export async function decideClosed(options: {
  run: () => Promise<Decision>;
  timeoutMs?: number;
}): Promise<Decision> {
  const { timeoutMs } = options;
  let timer: NodeJS.Timeout | undefined;
  const deadline =
    timeoutMs === undefined
      ? undefined
      : new Promise<Decision>((resolve) => {
          timer = setTimeout(
            () =>
              resolve(
                closedDecision({
                  code: "CHECK_TIMEOUT",
                  message: `the guard did not answer within ${timeoutMs} ms`,
                }),
              ),
            timeoutMs,
          );
        });
  const checked = (async () => {
    try {
      const decision = await options.run();
      return isDecision(decision)
        ? decision
        : closedDecision({
            code: "INTERNAL",
            message: "the guard answered something that is not a Decision",
          });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return closedDecision({ code: "INTERNAL", message: `the guard failed: ${message}` });
    }
  })();
  if (deadline === undefined) return checked;
  try {
    return await Promise.race([checked, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** True only for an answer that lets the action go ahead. */
export function isAllow(decision: Decision): boolean {
  return decision.allowed === true && decision.verdict === "allow";
}

/** Checks one call and says what to do with it. */
export async function gateToolCall(options: {
  guard: ToolCallGuard;
  /** The tool's name as the framework calls it (the guard maps it to the policy's name). */
  tool: string;
  /** The arguments as the framework handed them over (JSON text or a value). */
  rawArguments: unknown;
  history?: readonly ToolHistoryStep[];
  input?: string;
  context?: Record<string, unknown>;
  id?: string;
  timeoutMs?: number;
}): Promise<GateOutcome & { args?: Record<string, unknown> }> {
  const { guard, tool } = options;
  const parsed = parseToolArguments({ raw: options.rawArguments });
  if (!parsed.ok) {
    const decision = closedDecision({ code: "INVALID_INPUT", message: parsed.reason });
    return { kind: "refuse", decision, refusal: refusalText({ decision, tool }) };
  }
  const history = options.history ?? [];
  if (history.length >= MAX_HISTORY_STEPS) {
    const decision = closedDecision({
      code: "INVALID_INPUT",
      message: `the run has taken ${history.length} steps, more than a check's history holds`,
    });
    return { kind: "refuse", decision, refusal: refusalText({ decision, tool }) };
  }
  const call: ToolCallInput = {
    name: tool,
    arguments: parsed.args,
    ...(history.length > 0 ? { history: history.map((step) => ({ ...step })) } : {}),
    ...(options.input !== undefined ? { input: options.input } : {}),
    ...(options.context !== undefined ? { context: options.context } : {}),
    ...(options.id !== undefined ? { id: options.id } : {}),
  };
  const decision = await decideClosed({
    run: () => guard.checkToolCall(call),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
  const args = parsed.args;
  if (isAllow(decision)) return { kind: "run", decision, args };
  const refusal = refusalText({ decision, tool });
  // A failure is never a question for a human: only a determined "ask" is.
  if (decision.verdict === "ask" && decision.failure === undefined)
    return { kind: "ask", decision, refusal, args };
  return { kind: "refuse", decision, refusal, args };
}

/** The options every adapter shares, checked when the adapter is built (a typo fails at startup). */
const GateOptionsSchema = z.looseObject({
  guard: z.custom<object>((value) => typeof value === "object" && value !== null, "a Guard is required"),
  mode: z.enum(GUARD_MODES as [GuardMode, ...GuardMode[]]).default("feedback"),
  timeoutMs: z.number().int().positive().max(3_600_000).optional(),
  name: z.string().min(1).max(200).optional(),
});

/** Reads an adapter's options at the boundary: a WardenError INVALID_INPUT names the bad field. */
export function parseGateOptions(options: { value: unknown; what: string }): {
  mode: GuardMode;
  timeoutMs?: number;
  name?: string;
} {
  const parsed = parseWith({ schema: GateOptionsSchema, value: options.value, what: options.what });
  return {
    mode: parsed.mode,
    ...(parsed.timeoutMs !== undefined ? { timeoutMs: parsed.timeoutMs } : {}),
    ...(parsed.name !== undefined ? { name: parsed.name } : {}),
  };
}
