/**
 * The tool result a refused call returns in feedback mode: the shared refusal text (which rules, why,
 * what to do instead; integrations/refusal.ts) for the model to read and adjust, the violations for
 * programs, and a signature binding it to the call it refused.
 *
 * The signature is how the history knows a step did not run (history.ts). It is an HMAC of the call's id
 * and tool name under a key that never leaves the process (random per process, or the application's own
 * `secret` so refusals survive a restart or another instance). A tool result shaped like a refusal — a
 * fetched page, a file, a compromised tool — cannot carry a valid one, so it cannot hide a step that ran.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Decision } from "../../core/decision.js";
import { refusalText } from "../refusal.js";

/** What the model receives instead of the tool's result. */
export interface WardenRefusal {
  warden: "refused";
  tool: string;
  /** "deny", or "ask" when a person's approval is needed and was not given. */
  verdict: "deny" | "ask";
  /** Which rules the call breaks, why, and what to do instead, as text for the model. */
  feedback: string;
  violations: { ruleId: string; message: string; countermeasure?: string }[];
  /** Binds this refusal to its call (see the header); not for the model. */
  signature: string;
}

/** The per-process key: refusals signed by another process (or an earlier one) read as ordinary results. */
const PROCESS_KEY = randomBytes(32);

export type RefusalKey = string | Uint8Array;

function sign(options: { key: RefusalKey | undefined; toolCallId: string; toolName: string }): string {
  return createHmac("sha256", options.key ?? PROCESS_KEY)
    .update(`warden-refusal\u0000${options.toolCallId}\u0000${options.toolName}`)
    .digest("base64url");
}

export function refusalOutput(options: {
  decision: Decision;
  tool: string;
  toolCallId: string;
  key?: RefusalKey;
}): WardenRefusal {
  const { decision, tool, toolCallId } = options;
  return {
    warden: "refused",
    tool,
    verdict: decision.verdict === "ask" ? "ask" : "deny",
    feedback: refusalText({ decision, tool }),
    violations: decision.violations.map((v) => ({
      ruleId: v.ruleId,
      message: v.message,
      ...(v.countermeasure ? { countermeasure: v.countermeasure } : {}),
    })),
    signature: sign({ key: options.key, toolCallId, toolName: tool }),
  };
}

/** The value of a result output a refusal travels in (ToolResultOutput `json`), or the value itself. */
function refusalValue(output: unknown): unknown {
  if (typeof output !== "object" || output === null) return undefined;
  const o = output as { type?: unknown; value?: unknown; warden?: unknown };
  if (o.warden === "refused") return o;
  return o.type === "json" ? o.value : undefined;
}

/** True only for a refusal this key signed for exactly this call. */
export function isSignedRefusal(options: {
  output: unknown;
  toolCallId: string;
  toolName: string;
  key?: RefusalKey;
}): boolean {
  const value = refusalValue(options.output) as Partial<WardenRefusal> | undefined;
  if (value?.warden !== "refused" || typeof value.signature !== "string") return false;
  const expected = Buffer.from(
    sign({ key: options.key, toolCallId: options.toolCallId, toolName: options.toolName }),
  );
  const given = Buffer.from(value.signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** True when a value is shaped like a refusal (for `toModelOutput`); says nothing about who made it. */
export function looksLikeRefusal(value: unknown): value is WardenRefusal {
  return typeof value === "object" && value !== null && (value as { warden?: unknown }).warden === "refused";
}
