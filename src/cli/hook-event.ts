/**
 * What `warden hook` reads and answers, apart from how it runs: a coding agent's pre-tool event (Claude
 * Code's PreToolUse JSON: `session_id`, `cwd`, `tool_name`, `tool_input`, `hook_event_name`,
 * `transcript_path`) becomes one tool call for `checkToolCall` (core/tool-call.ts), and the Decision
 * becomes the answer in the agent's contract, a refusal's reason in the words every integration uses
 * (integrations/refusal.ts). Pure functions, so the mapping is tested without a process.
 *
 * The event comes from the agent's own harness, not from the model: its `cwd` and the call are the real
 * ones, so the check trusts them as facts (as the MCP proxy trusts the call it forwards). The earlier
 * calls of the session that may have run (allowed or asked) are the trajectory, so temporal rules see
 * them; refused calls never ran and are not history.
 *
 * Every answer that is not an allow refuses: Claude Code runs the tool on exit 0 with "allow", asks the
 * user on "ask", and refuses on "deny"; its other exit codes (except 2) let the tool run, so a failure
 * is answered as a deny on exit 0, never as an error exit.
 */
import { z } from "zod";
import type { Decision } from "../core/decision.js";
import type { Step } from "../core/subject.js";
import type { ToolCallInput } from "../core/tool-call.js";
import { parseWith } from "../core/validate.js";
import { refusalText } from "../integrations/refusal.js";
import type { SessionEvent } from "../store/session-log.js";

export const HOOK_FORMATS = ["claude-code", "generic"] as const;
export type HookFormat = (typeof HOOK_FORMATS)[number];

/** The longest tool name, session id and path the hook accepts (each far beyond a real one). */
const MAX_NAME = 512;
const MAX_PATH = 4096;

export const HookEventSchema = z
  .object({
    session_id: z.string().min(1).max(MAX_NAME),
    /** The agent's working directory: the workspace. Absent: workspace rules are undetermined. */
    cwd: z.string().min(1).max(MAX_PATH).optional(),
    tool_name: z.string().min(1).max(MAX_NAME),
    tool_input: z.record(z.string(), z.unknown()).default({}),
    /** Only PreToolUse is a question the hook answers. */
    hook_event_name: z.literal("PreToolUse").optional(),
    transcript_path: z.string().max(MAX_PATH).optional(),
  })
  .passthrough();
export type HookEvent = z.output<typeof HookEventSchema>;

/** The event, validated (errors name the field). */
export function parseHookEvent(options: { value: unknown }): HookEvent {
  return parseWith({ schema: HookEventSchema, value: options.value, what: "hook event (stdin)" });
}

/** The session's earlier calls that may have run (allowed, or asked and perhaps confirmed), as steps. */
export function historySteps(options: { events: readonly SessionEvent[] }): Step[] {
  return options.events.filter((e) => e.verdict !== "deny").map((e) => ({ action: e.tool, args: e.args }));
}

/** The call to check: the tool and its input, the workspace and session as context, the history before it. */
export function hookToolCall(options: { event: HookEvent; history: readonly Step[] }): ToolCallInput {
  const { event } = options;
  return {
    name: event.tool_name,
    arguments: event.tool_input,
    context: {
      ...(event.cwd !== undefined ? { cwd: event.cwd } : {}),
      sessionId: event.session_id,
    },
    history: [...options.history],
  };
}

/** How strict a decision is: an allow, an ask, a deny (any other refusal). */
function strictness(decision: Decision): number {
  if (decision.allowed) return 0;
  return decision.verdict === "ask" ? 1 : 2;
}

/** The stricter of two decisions on one event (the first when they are as strict). */
export function stricterDecision(options: { first: Decision; second: Decision }): Decision {
  return strictness(options.second) > strictness(options.first) ? options.second : options.first;
}

/** The reason shown with the answer: the shared refusal text, or what allowed the call. */
export function hookReason(options: { decision: Decision; tool: string }): string {
  const { decision } = options;
  if (!decision.allowed) return refusalText({ decision, tool: options.tool });
  if (decision.failure) {
    return `Warden could not decide (${decision.failure.code}: ${decision.failure.message}); allowed because the guard runs fail-open`;
  }
  return `Warden: ${decision.explanation || decision.verdict}`;
}

/**
 * What an allow answers in Claude Code's contract. "defer" (the default) answers no decision, so the
 * agent's own permission settings still apply: Warden refuses and holds calls, and never lets through a
 * call the user's settings would have asked about (a PreToolUse "allow" skips Claude Code's permission
 * prompt). "grant" answers "allow", for setups where Warden's policy is the only gate.
 */
export const ON_ALLOW = ["defer", "grant"] as const;
export type OnAllow = (typeof ON_ALLOW)[number];

export type HookAnswer =
  | Record<string, never>
  | {
      hookSpecificOutput: {
        hookEventName: "PreToolUse";
        permissionDecision: "allow" | "deny" | "ask";
        permissionDecisionReason: string;
      };
    }
  | { decision: "allow" | "deny" | "ask"; reason: string; rules: string[] };

/** The answer in the agent's contract. A decision that is not allowed is never answered "allow". */
export function hookAnswer(options: {
  decision: Decision;
  tool: string;
  format: HookFormat;
  /** Claude Code's answer to an allow (default "defer": no decision, see ON_ALLOW). */
  onAllow?: OnAllow;
}): HookAnswer {
  const { decision } = options;
  const verdict = decision.allowed ? "allow" : decision.verdict === "ask" ? "ask" : "deny";
  const reason = hookReason({ decision, tool: options.tool });
  if (options.format === "generic") {
    return { decision: verdict, reason, rules: [...new Set(decision.violations.map((v) => v.ruleId))] };
  }
  if (verdict === "allow" && (options.onAllow ?? "defer") === "defer") return {};
  return {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: verdict,
      permissionDecisionReason: reason,
    },
  };
}

/** The answer when no decision could be made (bad input, a store error, an internal error): a deny. */
export function hookFailureAnswer(options: { error: unknown; format: HookFormat }): HookAnswer {
  const { error } = options;
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  const reason = `Warden could not check this call (${typeof code === "string" ? `${code}: ` : ""}${message}), so it is refused`;
  if (options.format === "generic") return { decision: "deny", reason, rules: [] };
  return {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: reason,
    },
  };
}
