/**
 * Asking the human behind the agent's MCP client to approve a call the policy answered `ask`, through
 * MCP elicitation (`elicitation/create`, form mode): a message naming the tool, its arguments and the
 * rules, and a requested schema with one boolean property, `approve`. Only an `accept` whose content is
 * exactly `approve: true` approves; a decline, a cancel, `approve: false`, any other answer, an error or
 * no answer in time refuses — with the reason, so the agent can tell its user what happened.
 */
import type { Decision } from "../core/decision.js";

/** How long the proxy waits for the human's answer by default (then the call is refused). */
export const DEFAULT_ELICITATION_TIMEOUT_MS = 120_000;
/** How many characters of the arguments the message shows (the whole call is still what is checked). */
const MAX_ARGS_CHARS = 2000;

/**
 * Whether the client's `initialize` capabilities allow form elicitation: `elicitation: {}` (form, the
 * original meaning) or `elicitation: { form: … }`. A client declaring only `url` mode cannot show a form.
 */
export function supportsFormElicitation(options: { capabilities: unknown }): boolean {
  const elicitation = (options.capabilities as { elicitation?: unknown } | null | undefined)?.elicitation;
  if (typeof elicitation !== "object" || elicitation === null || Array.isArray(elicitation)) return false;
  const modes = elicitation as { form?: unknown; url?: unknown };
  if (Object.keys(modes).length === 0) return true;
  return typeof modes.form === "object" && modes.form !== null;
}

/** The params of the `elicitation/create` request for one held call. */
export function approvalElicitation(options: {
  /** What the agent called: the tool's name, or "resources/read (uri)" for a content request. */
  label: string;
  args: Record<string, unknown>;
  decision: Decision;
}): { message: string; requestedSchema: Record<string, unknown> } {
  const { label, decision } = options;
  const policy = decision.policy
    ? `policy ${decision.policy.name} v${decision.policy.version}`
    : "the policy";
  const args = JSON.stringify(options.args, null, 2) ?? "{}";
  const shown = args.length > MAX_ARGS_CHARS ? `${args.slice(0, MAX_ARGS_CHARS)}…` : args;
  const rules = decision.violations.map((v) => `- [${v.ruleId}] ${v.message}`);
  const message = [
    `Warden holds the call to ${label}: ${policy} requires your confirmation before it runs.`,
    `Arguments:\n${shown}`,
    ...(rules.length > 0 ? [`Rules:\n${rules.join("\n")}`] : [`Reason: ${decision.explanation}`]),
    "Approve this call?",
  ].join("\n\n");
  return {
    message,
    requestedSchema: {
      type: "object",
      properties: {
        approve: {
          type: "boolean",
          title: "Approve",
          description: `Run ${label} with these arguments`,
          default: false,
        },
      },
      required: ["approve"],
    },
  };
}

export type ApprovalAnswer = { approved: true } | { approved: false; reason: string };

/**
 * What the client's answer means: approved only for `{ action: "accept", content: { approve: true } }`.
 * `outcome` is the JSON-RPC response body (result or error), or `timeout` / `closed` / `cancelled`.
 */
export function readApprovalAnswer(options: {
  outcome: { result?: unknown; error?: { message?: unknown } } | "timeout" | "cancelled";
  timeoutMs: number;
}): ApprovalAnswer {
  const { outcome } = options;
  if (outcome === "timeout")
    return {
      approved: false,
      reason: `no answer to the confirmation request within ${options.timeoutMs} ms`,
    };
  if (outcome === "cancelled") return { approved: false, reason: "the call was cancelled while it waited" };
  if (outcome.error !== undefined) {
    const message = typeof outcome.error?.message === "string" ? outcome.error.message : "an error";
    return { approved: false, reason: `the client answered the confirmation request with ${message}` };
  }
  const result = outcome.result as { action?: unknown; content?: unknown } | null | undefined;
  const action = result?.action;
  if (action === "decline") return { approved: false, reason: "the user declined the call" };
  if (action === "cancel") return { approved: false, reason: "the user dismissed the confirmation request" };
  if (action !== "accept") return { approved: false, reason: "the client's answer was not understood" };
  const approve = (result?.content as { approve?: unknown } | null | undefined)?.approve;
  if (approve === true) return { approved: true };
  return { approved: false, reason: "the user did not approve the call (approve: false)" };
}
