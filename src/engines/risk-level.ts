/**
 * GuardAgent App. N's risk level on every engine's Decision, written once: when the policy asks for it
 * (`risk: "violated-rules"`), the decision gets `risk` from the count of distinct rules it found
 * violated (core/risk.ts). A decision reached without evaluating the policy (`failure`: model down,
 * program never ran, fail-open) has no risk: its count is unknown, and its verdict already fails closed.
 * Applied once in runtime/create-engine.ts, around the deterministic floor, so the count is the one of
 * the decision that stands.
 */
import type { Decision } from "../core/decision.js";
import type { Policy } from "../core/policy.js";
import { riskOf } from "../core/risk.js";
import type { Engine } from "./engine.js";
import { inlineCheckOf, withInlineCheck } from "./inline-check.js";

/** The decision with `risk` when the policy asks for it and the policy was evaluated. */
export function addRiskLevel(options: { policy: Policy; decision: Decision }): Decision {
  const { policy, decision } = options;
  if (policy.risk !== "violated-rules" || decision.failure) return decision;
  return { ...decision, risk: riskOf({ allowed: decision.allowed, violations: decision.violations }) };
}

/** The engine with addRiskLevel on each check; every other member is the engine's own. */
export function withRiskLevel<E extends Engine>(options: { engine: E }): E {
  const { engine } = options;
  const wrapped = Object.create(engine) as E;
  Object.defineProperty(wrapped, "check", {
    value: async (o: Parameters<Engine["check"]>[0]) =>
      addRiskLevel({ policy: o.policy, decision: await engine.check(o) }),
    enumerable: true,
  });
  // The engine's inline check, with the risk level too (a wrapper never inherits one: inline-check.ts).
  const inline = inlineCheckOf({ engine });
  if (!inline) return wrapped;
  return withInlineCheck({
    engine: wrapped,
    inline: (o) => {
      const decision = inline(o);
      return decision && addRiskLevel({ policy: o.policy, decision });
    },
  });
}
