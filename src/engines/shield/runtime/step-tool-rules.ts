/**
 * The policy's tool rules and `toolDefault` applied by the shield at each step, so a policy that mixes
 * tool rules and temporal rules is judged whole by the engine that decides: the step's action and
 * arguments are the call, the caller's context and the task are what conditions may read (as in the
 * compiled engine). A tool-rule deny or ask stands whatever the circuits say — they judge other rules,
 * and an allow from them is no permission for what a tool rule forbids. A tool rule's outcome that
 * could not be determined fails closed (or open, if so configured) unless the step is denied anyway.
 */
import { type Decision, denyDecision, failureDecision, type Violation } from "../../../core/decision.js";
import { type Effect, type Policy, policyRef } from "../../../core/policy.js";
import type { Step } from "../../../core/subject.js";
import { stepCall } from "../../compiled/context-facts.js";
import {
  matchToolRule,
  type ToolCall,
  type ToolRuleMatch,
} from "../../compiled/extractors/tool-calls/index.js";
import { explainDenial } from "./shield-violations.js";
import { SHIELD_ENGINE_NAME } from "./step-decision.js";

/** Whether the policy governs tool calls: it has tool rules or states a default for them. */
export function governsTools(options: { policy: Policy }): boolean {
  const rules = options.policy.rules;
  return (rules?.toolRules?.length ?? 0) > 0 || rules?.toolDefault !== undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The step as a tool call (the call a BrowserGym action string runs: compiled/context-facts.ts), with
 * its tool's schema when the caller gave one (`context.toolSchemas`); undefined when the action is code
 * that is not one call Warden reads.
 */
function callOf(step: Step, context: Record<string, unknown>): ToolCall | undefined {
  const call = stepCall(step);
  if (!call) return undefined;
  const schemas = context.toolSchemas;
  const inputSchema = isRecord(schemas) && Object.hasOwn(schemas, call.name) ? schemas[call.name] : undefined;
  return inputSchema === undefined ? call : { ...call, inputSchema };
}

const STRICTNESS: Record<Effect, number> = { allow: 0, ask: 1, deny: 2 };

const UNREADABLE = "the step's action is code that is not one call Warden can read";
/** A step no tool rule can be read against: undetermined, so it fails closed below. */
const unreadableMatch: ToolRuleMatch = {
  effect: "deny",
  matches: [],
  defaulted: false,
  reason: UNREADABLE,
  undetermined: [UNREADABLE],
};

/** The step's decision with the policy's tool rules applied (unchanged when it has none). */
export function applyStepToolRules(options: {
  decision: Decision;
  policy: Policy;
  step: Step;
  index: number;
  input: string;
  context?: Record<string, unknown>;
  failMode: "closed" | "open";
}): Decision {
  const { decision, policy, step } = options;
  if (!governsTools({ policy })) return decision;
  const context = options.context ?? {};
  const rules = policy.rules!;
  const call = callOf(step, context);
  const match = call
    ? matchToolRule({
        rules: rules.toolRules ?? [],
        call,
        default: rules.toolDefault ?? "deny",
        facts: { context, input: options.input },
        ...(rules.argumentKinds ? { argumentKinds: rules.argumentKinds } : {}),
        ...(rules.paths ? { paths: rules.paths } : {}),
      })
    : unreadableMatch;
  const trace = decision.trace ?? { attempts: [] };
  const notes = [...(trace.notes ?? [])];
  const facts = { ...(trace.facts ?? {}) };
  const where = `Step ${options.index} (${step.action})`;

  if (match.undetermined && match.undetermined.length > 0) {
    const why = `whether the tool rules allow "${step.action}" (${match.undetermined.join("; ")})`;
    facts.toolRules = { effect: null, undetermined: match.undetermined };
    if (decision.verdict === "deny" && !decision.failure) {
      notes.push(`could not determine ${why}, but the step is denied anyway`);
      return { ...decision, trace: { ...trace, facts, notes } };
    }
    return failureDecision({
      engine: decision.engine,
      policy: policyRef(policy),
      code: "EXTRACTION_FAILED",
      message: `could not determine ${why}`,
      mode: options.failMode,
      output: step,
      cost: decision.cost,
      trace: { ...trace, facts, notes },
    });
  }

  facts.toolRules = { effect: match.effect, rule: match.rule?.id ?? "tool.default" };
  if (match.effect === "allow") {
    notes.push(`tool rules: ${match.reason}`);
    return { ...decision, trace: { ...trace, facts, notes } };
  }
  const violation: Violation = {
    ruleId: match.rule?.id ?? "tool.default",
    message:
      match.rule?.message ?? `No tool rule allows "${step.action}"; the policy's default is ${match.effect}`,
    ...(match.rule?.source ? { source: match.rule.source } : {}),
    details: { tool: step.action, args: step.args, effect: match.effect, step: options.index },
  };
  // The circuits' own violations are kept when they stand; a failure or an allow gives way.
  const standing = decision.allowed || decision.failure ? [] : decision.violations;
  if (decision.failure) notes.push(`the circuits could not decide (${decision.failure.message})`);
  const circuitsVerdict: Effect = decision.allowed || decision.failure ? "allow" : decision.verdict;
  const verdict = STRICTNESS[circuitsVerdict] > STRICTNESS[match.effect] ? circuitsVerdict : match.effect;
  const violations = [violation, ...standing];
  return denyDecision({
    engine: decision.engine || SHIELD_ENGINE_NAME,
    policy: policyRef(policy),
    violations,
    verdict: verdict === "allow" ? "deny" : verdict,
    explanation: explainDenial({ violations, where }),
    cost: decision.cost,
    trace: { ...trace, facts, notes },
  });
}
