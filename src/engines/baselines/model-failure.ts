/**
 * What every model baseline answers when its model call fails (unreachable, timed out, an answer that
 * is not a verdict): a failure Decision in the engine's fail mode — closed, a deny, unless the caller
 * configured fail-open — with the agent's answer kept for fail-open.
 */
import { type Decision, failureDecision, type Trace } from "../../core/decision.js";
import { toWardenError } from "../../core/errors.js";
import { type Policy, policyRef } from "../../core/policy.js";

export function modelFailureDecision(options: {
  engine: string;
  policy: Policy;
  error: unknown;
  failMode: "closed" | "open";
  /** The agent's answer (engines/common/agent-answer.ts), passed through only in fail-open mode. */
  output: unknown;
  trace: Trace;
}): Decision {
  const e = toWardenError({ error: options.error, code: "MODEL_UNAVAILABLE" });
  return failureDecision({
    engine: options.engine,
    policy: policyRef(options.policy),
    code: e.code,
    message: e.message,
    mode: options.failMode,
    output: options.output,
    trace: options.trace,
  });
}
