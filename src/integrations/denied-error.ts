/**
 * The tripwire of `mode: "throw"`: a refused call ends the run with this typed error, carrying the
 * Decision. It is not a WardenError: nothing failed — the check answered, and the application chose to
 * stop on a refusal rather than tell the model. `WardenToolDeniedError.is` recognises one across copies of
 * the package (a bundled and an installed warden), where `instanceof` would not. Shared by every
 * integration (warden/ai-sdk, warden/openai-agents, warden/langchain).
 */
import type { Decision } from "../core/decision.js";

const MARK = Symbol.for("warden.ToolDeniedError");

export class WardenToolDeniedError extends Error {
  readonly toolName: string;
  readonly toolCallId: string;
  readonly decision: Decision;

  constructor(options: { toolName: string; toolCallId: string; decision: Decision; message: string }) {
    super(options.message);
    this.name = "WardenToolDeniedError";
    this.toolName = options.toolName;
    this.toolCallId = options.toolCallId;
    this.decision = options.decision;
    Object.defineProperty(this, MARK, { value: true });
  }

  static is(error: unknown): error is WardenToolDeniedError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[MARK] === true;
  }
}
