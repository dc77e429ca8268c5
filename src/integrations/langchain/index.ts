/**
 * warden/langchain: LangChain tools guarded by Warden (@langchain/core, an optional peer). LangChain has
 * no guardrail hook a tool call must pass, and a callback handler can only throw, so Warden wraps the
 * tools: `wardenTools({ guard, tools })` returns tools with the same name, description and schema whose
 * body checks each call (its parsed arguments — what would really run) before the original tool runs.
 *
 * Modes, as in every integration:
 * - "feedback" (default): a refused call does not run; it returns a ToolMessage with status "error" (the
 *   plain text when not called with a tool call) naming the violated rules, why and what to do instead,
 *   so the model can adjust its next step.
 * - "throw": a refused call throws `WardenToolDeniedError`, which ends the agent's run.
 * - "approval": LangChain's core has no interrupt mechanism (LangGraph's `interrupt` is another
 *   package), so an "ask" goes to the `approve` callback the application gives; without one, or when it
 *   answers false or fails, the call is refused like a deny. A deny is never put to a human.
 *
 * Each `wardenTools` call keeps one history — the calls it let through, in order — passed to every later
 * check, so make one set of guarded tools per agent run (or conversation). A tool whose input is one
 * string (DynamicTool, `tool()` with a string schema) is checked as `{ input: <the string> }`, LangChain's
 * own shape for it; any other non-object input is refused.
 *
 * The tools are rebuilt with @langchain/core's DynamicStructuredTool, loaded at run time through
 * optional-import (MISSING_DEPENDENCY when the package is absent); the original runs through its own
 * `_call`, after its schema parsed the input exactly once.
 */
import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import type { ToolMessage } from "@langchain/core/messages";
import type {
  DynamicStructuredTool,
  StructuredToolInterface,
  ToolRunnableConfig,
} from "@langchain/core/tools";
import type { Decision } from "../../core/decision.js";
import { WardenError } from "../../core/errors.js";
import { importOptional } from "../../core/optional-import.js";
import { WardenToolDeniedError } from "../denied-error.js";
import {
  type GuardMode,
  gateToolCall,
  parseGateOptions,
  type ToolCallGuard,
  type ToolHistoryStep,
} from "../tool-gate.js";

export { WardenToolDeniedError } from "../denied-error.js";
export type { GuardMode, ToolCallGuard } from "../tool-gate.js";

/** What the `approve` callback is asked: a call Warden answered "ask" for. */
export interface ApprovalRequest {
  tool: string;
  args: Record<string, unknown>;
  decision: Decision;
  /** The tool call's id, when the tool was invoked with one. */
  id?: string;
}

export interface WardenToolsOptions {
  guard: ToolCallGuard;
  /** The tools to guard: made with `tool()`, DynamicStructuredTool, DynamicTool or a StructuredTool class. */
  tools: readonly StructuredToolInterface[];
  /** "feedback" (default), "throw" or "approval"; see the module header. */
  mode?: GuardMode;
  /** "approval" mode: a human's answer to an "ask" (true runs the call). */
  approve?: (request: ApprovalRequest) => Promise<boolean>;
  /** The user's task, for the checks: fixed, or read at each call. */
  input?: string | (() => string | undefined);
  /** Facts for the checks (identity, session…). */
  context?: Record<string, unknown>;
  /** Time limit of one check in ms; past it the call is refused (default: the guard's own limits). */
  timeoutMs?: number;
}

type ToolBody = (
  input: unknown,
  runManager?: CallbackManagerForToolRun,
  config?: ToolRunnableConfig,
) => unknown;

interface LangChainModules {
  tools: typeof import("@langchain/core/tools");
  messages: typeof import("@langchain/core/messages");
}

async function loadLangChain(): Promise<LangChainModules> {
  return importOptional({
    packageName: "@langchain/core",
    feature: "warden/langchain (guarded LangChain tools)",
    load: async () => ({
      tools: await import("@langchain/core/tools"),
      messages: await import("@langchain/core/messages"),
    }),
  });
}

/** The original tool's body, which runs once Warden allowed the call. */
function bodyOf(original: StructuredToolInterface): ToolBody {
  const body = (original as unknown as { _call?: unknown })._call;
  if (typeof body !== "function") {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `wardenTools: tool "${String(original?.name)}" is not a LangChain StructuredTool (it has no _call)`,
      details: { field: "tools" },
    });
  }
  return (input, runManager, config) => body.call(original, input, runManager, config);
}

/** The arguments as the check sees them: the parsed object, or a single-string input as `{ input }`. */
function argumentsOf(parsed: unknown): unknown {
  return typeof parsed === "string" ? { input: parsed } : parsed;
}

function inputOf(input: WardenToolsOptions["input"]): string | undefined {
  return typeof input === "function" ? input() : input;
}

/** A human's yes, or false: an approver that fails or answers anything but `true` refuses. */
async function approved(options: { approve: WardenToolsOptions["approve"]; request: ApprovalRequest }) {
  if (!options.approve) return false;
  try {
    return (await options.approve(options.request)) === true;
  } catch {
    return false;
  }
}

/** Guards LangChain tools with Warden; see the module header. */
export async function wardenTools(options: WardenToolsOptions): Promise<DynamicStructuredTool[]> {
  const { mode, timeoutMs } = parseGateOptions({ value: options, what: "wardenTools options" });
  if (!Array.isArray(options.tools)) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "wardenTools: tools must be an array of LangChain tools",
      details: { field: "tools" },
    });
  }
  const bodies = options.tools.map(bodyOf);
  const langchain = await loadLangChain();
  const history: ToolHistoryStep[] = [];
  const { guard } = options;

  return options.tools.map((original, index) => {
    const body = bodies[index]!;
    const tool = original.name;
    const refusedResult = (refusal: string, decision: Decision, callId: string | undefined): unknown => {
      const content = (original as { responseFormat?: string }).responseFormat === "content_and_artifact";
      if (callId === undefined) return content ? [refusal, { warden: decision }] : refusal;
      return new langchain.messages.ToolMessage({
        content: refusal,
        status: "error",
        tool_call_id: callId,
        name: tool,
        ...(content ? { artifact: { warden: decision } } : {}),
      }) satisfies ToolMessage;
    };
    return new langchain.tools.DynamicStructuredTool({
      name: tool,
      description: original.description,
      schema: original.schema,
      responseFormat:
        (original as { responseFormat?: "content" | "content_and_artifact" }).responseFormat ?? "content",
      returnDirect: original.returnDirect,
      ...(original.metadata ? { metadata: original.metadata } : {}),
      ...(original.tags ? { tags: original.tags } : {}),
      ...(original.callbacks ? { callbacks: original.callbacks } : {}),
      func: async (parsed: unknown, runManager?: CallbackManagerForToolRun, config?: ToolRunnableConfig) => {
        const callId = config?.toolCall?.id;
        const input = inputOf(options.input);
        const outcome = await gateToolCall({
          guard,
          tool,
          rawArguments: argumentsOf(parsed),
          history,
          ...(input !== undefined ? { input } : {}),
          ...(options.context ? { context: options.context } : {}),
          ...(callId !== undefined ? { id: callId } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        });
        const { decision } = outcome;
        const args = outcome.args ?? {};
        const runs =
          outcome.kind === "run" ||
          (outcome.kind === "ask" &&
            mode === "approval" &&
            (await approved({
              approve: options.approve,
              request: { tool, args, decision, ...(callId !== undefined ? { id: callId } : {}) },
            })));
        if (runs) {
          history.push({ action: tool, args });
          return body(parsed, runManager, config);
        }
        const { refusal } = outcome;
        if (mode === "throw") {
          throw new WardenToolDeniedError({
            toolName: tool,
            toolCallId: callId ?? "",
            decision,
            message: refusal,
          });
        }
        return refusedResult(refusal, decision, callId);
      },
    });
  });
}
