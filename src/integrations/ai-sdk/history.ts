/**
 * The run so far, as Warden reads it: the AI SDK hands a tool's `execute` (and `needsApproval`) the
 * conversation that led to the call, and the middleware sees the prompt; both become Warden's view —
 * the user's words as the task (`input`), and each earlier tool call that ran, with its result, as a step
 * (`{ action, args, observation }`), so temporal rules ("never email after reading a secret") and the
 * shield see what the agent already did.
 *
 * Only calls that ran are steps. A call Warden refused (its result is a Warden refusal signed for that
 * call, see refusal-output.ts), a call the user refused (`execution-denied`) and a call with no result yet
 * did not run, and counting it as done could satisfy a "first do X" rule it never met. A tool result that
 * merely looks like a refusal (a fetched page can say anything) still counts: only the signature decides.
 *
 * The messages are read structurally (ModelMessage and the provider-level prompt share the part shapes),
 * never trusted to be well formed, and bounded: each observation and thought is cut to a limit (head and
 * tail kept), the task too; a run longer than the step limit is reported, and the check fails closed
 * rather than judging a call without the steps before it.
 */
import type { StepInput } from "../../core/subject.js";

export interface HistoryLimits {
  /** Longest observation (a tool's result as text) kept per step; longer ones keep their head and tail. */
  maxObservationChars: number;
  /** Most steps before the call; a longer run makes `tooLong` true. */
  maxSteps: number;
}

export const DEFAULT_HISTORY_LIMITS: HistoryLimits = { maxObservationChars: 8 * 1024, maxSteps: 1000 };

/** Longest task text (the user's words) kept; longer keeps its head and tail. */
const MAX_INPUT_CHARS = 32 * 1024;
/** Longest thought (the assistant's text beside its calls) kept per step. */
const MAX_THOUGHT_CHARS = 2 * 1024;

export interface RunHistory {
  /** Earlier tool calls that ran, oldest first. */
  history: StepInput[];
  /** The user's messages as text, "" when there are none. */
  input: string;
  /** True when the run has more steps than `maxSteps` (the caller fails closed). */
  tooLong: boolean;
}

/** A text cut to `max` characters: its head and its tail, with how much was left out between them. */
export function boundText(options: { text: string; max: number }): string {
  const { text, max } = options;
  if (text.length <= max) return text;
  const marker = `\n…[${text.length - max} characters left out]…\n`;
  const keep = Math.max(0, max - marker.length);
  const head = Math.ceil(keep / 2);
  return `${text.slice(0, head)}${marker}${text.slice(text.length - (keep - head))}`;
}

type Part = Record<string, unknown>;

function partsOf(content: unknown): Part[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter((p): p is Part => typeof p === "object" && p !== null && !Array.isArray(p));
}

function textOf(parts: Part[]): string {
  return parts
    .filter((p) => p.type === "text" && typeof p.text === "string")
    .map((p) => p.text as string)
    .join("");
}

/** JSON text of a value, or its String form when it cannot be serialised (cycles, BigInt). */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A tool result's output (ToolResultOutput: text, json, error-text, error-json, content) as text. */
function outputText(output: unknown): string {
  if (typeof output !== "object" || output === null) return jsonText(output);
  const { type, value } = output as { type?: unknown; value?: unknown };
  switch (type) {
    case "text":
      return typeof value === "string" ? value : jsonText(value);
    case "json":
      return jsonText(value);
    case "error-text":
      return `Error: ${typeof value === "string" ? value : jsonText(value)}`;
    case "error-json":
      return `Error: ${jsonText(value)}`;
    case "content":
      return Array.isArray(value)
        ? value
            .map((p) => (p && typeof p === "object" && "text" in p ? String(p.text) : `[${String(p?.type)}]`))
            .join("\n")
        : jsonText(value);
    default:
      return jsonText(output);
  }
}

/** A call's input as step arguments: an object as it is; anything else under `input`. */
function argsOf(input: unknown): Record<string, unknown> {
  return typeof input === "object" && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : { input };
}

interface PendingStep {
  step: StepInput;
  ran: boolean;
}

/**
 * The run's history and task from a message list. `skipToolCallId` leaves out the call being checked (on
 * an approval's second pass it is already in the messages); `isRefusal` says whether a result is Warden's
 * own signed refusal of that call.
 */
export function runHistory(options: {
  messages: readonly unknown[] | undefined;
  skipToolCallId?: string;
  isRefusal: (result: { toolCallId: string; toolName: string; output: unknown }) => boolean;
  limits?: HistoryLimits;
}): RunHistory {
  const limits = options.limits ?? DEFAULT_HISTORY_LIMITS;
  const userTexts: string[] = [];
  const byId = new Map<string, PendingStep>();
  const ordered: PendingStep[] = [];
  const messages = Array.isArray(options.messages) ? options.messages : [];
  for (const raw of messages) {
    if (typeof raw !== "object" || raw === null) continue;
    const message = raw as { role?: unknown; content?: unknown };
    const parts = partsOf(message.content);
    if (message.role === "user") {
      const text = textOf(parts);
      if (text !== "") userTexts.push(text);
      continue;
    }
    if (message.role === "assistant") {
      const thought = textOf(parts).trim();
      for (const part of parts) {
        if (part.type !== "tool-call" || typeof part.toolName !== "string") continue;
        const id = typeof part.toolCallId === "string" ? part.toolCallId : "";
        if (options.skipToolCallId !== undefined && id === options.skipToolCallId) continue;
        const step: StepInput = { action: part.toolName, args: argsOf(part.input) };
        if (thought !== "") step.thought = boundText({ text: thought, max: MAX_THOUGHT_CHARS });
        const pending = { step, ran: false };
        ordered.push(pending);
        if (id !== "") byId.set(id, pending);
      }
    }
    // Results come in tool messages, and (provider-executed tools) in assistant messages.
    if (message.role === "tool" || message.role === "assistant") {
      for (const part of parts) {
        if (part.type !== "tool-result" || typeof part.toolCallId !== "string") continue;
        const pending = byId.get(part.toolCallId);
        if (!pending) continue;
        const output = part.output;
        const denied = (output as { type?: unknown } | null)?.type === "execution-denied";
        const refused = options.isRefusal({
          toolCallId: part.toolCallId,
          toolName: String(part.toolName ?? pending.step.action),
          output,
        });
        if (denied || refused) continue;
        pending.ran = true;
        pending.step.observation = boundText({ text: outputText(output), max: limits.maxObservationChars });
      }
    }
  }
  const history = ordered.filter((p) => p.ran).map((p) => p.step);
  return {
    history: history.length > limits.maxSteps ? history.slice(-limits.maxSteps) : history,
    input: boundText({ text: userTexts.join("\n\n"), max: MAX_INPUT_CHARS }),
    tooLong: history.length > limits.maxSteps,
  };
}
