/**
 * The one answer every engine returns, whatever produced it: allow/deny, which rules were violated and
 * why, the guard-railed output, what it cost, and a trace of how it was reached.
 */
import { z } from "zod";
import { onFirstUse } from "../util/first-use.js";
import { ERROR_CODES, type ErrorCode } from "./errors.js";
import { RiskSchema } from "./risk.js";

/**
 * The schemas, built on first use: only the HTTP server's route catalog parses or describes a Decision
 * with them (engines build Decisions with the functions below), and building them at module load cost
 * every start of `warden hook` a dozen zod objects per field.
 */
function buildSchemas() {
  const ViolationSchema = z.object({
    /** Stable id of the rule in the policy artifact, e.g. "access.nursing" or "rule.car". */
    ruleId: z.string(),
    /** Human-readable message, e.g. "User without a driver's license cannot buy or rent a car". */
    message: z.string(),
    /** The guard-request sentence or policy clause the rule came from. */
    source: z.string().optional(),
    /** Structured reasons, e.g. `{ inaccessible: { diagnosis: ["diagnosisname"] } }`. */
    details: z.record(z.string(), z.unknown()).optional(),
    /** What the agent could do instead (ShieldAgent countermeasure). */
    countermeasure: z.string().optional(),
  });

  const CostSchema = z.object({
    llmCalls: z.number().int().nonnegative(),
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    /** Wall time of the whole check in milliseconds. */
    ms: z.number().nonnegative(),
  });

  const AttemptSchema = z.object({
    /** 0 = first program, 1.. = debugging rounds. */
    round: z.number().int().nonnegative(),
    code: z.string(),
    ok: z.boolean(),
    /** Error kind and message when the program failed. */
    error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }).optional(),
    /** Everything the program printed. */
    log: z.string(),
    ms: z.number().nonnegative(),
  });

  const TraceSchema = z.object({
    plan: z.string().optional(),
    code: z.string().optional(),
    attempts: z.array(AttemptSchema).default([]),
    /** Ids of the demonstrations retrieved from memory for this check. */
    demonstrations: z.array(z.string()).optional(),
    /** Facts extracted for the compiled path (tables/columns read, element/action/value, tool call...). */
    facts: z.record(z.string(), z.unknown()).optional(),
    /** Raw model answer (baseline engines). */
    raw: z.string().optional(),
    /** Free-form notes explaining the path taken (fallbacks, confidence...). */
    notes: z.array(z.string()).optional(),
  });

  const VerdictSchema = z.enum(["allow", "deny", "ask"]);

  const FailureSchema = z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    /** "closed" = denied because undecidable (the default); "open" = allowed by explicit configuration. */
    mode: z.enum(["closed", "open"]),
  });

  /** One engine's own answer to a check, as it stood before views were combined. */
  const DecisionViewSchema = z.object({
    engine: z.string(),
    allowed: z.boolean(),
    label: z.union([z.literal(0), z.literal(1)]),
    verdict: VerdictSchema,
    violations: z.array(ViolationSchema),
    explanation: z.string(),
    failure: FailureSchema.optional(),
  });

  /**
   * The second view of a model engine's decision (the deterministic floor, src/engines/deterministic-
   * floor.ts): what the compiled rules said (`determined` = every fact they need was determined), what the
   * model said, and which of the two the decision follows. A determined compiled deny or ask always wins.
   */
  const DecisionViewsSchema = z.object({
    compiled: DecisionViewSchema.extend({ determined: z.boolean() }).optional(),
    model: DecisionViewSchema.optional(),
    decidedBy: z.enum(["compiled", "model"]),
  });

  /**
   * The approval a decision carries (src/runtime/approvals.ts, the MCP proxy's elicitation): an `ask`
   * becomes a request a human approves or denies; a re-check of the same question after approval is an
   * allow naming it. `status` is what it was when the decision was made.
   */
  const ApprovalRefSchema = z.object({
    id: z.string(),
    status: z.enum(["pending", "approved", "denied", "expired"]).optional(),
    /** ISO time after which a pending approval is denied (and an approved one no longer reused). */
    expiresAt: z.string().optional(),
  });

  const DecisionSchema = z.object({
    allowed: z.boolean(),
    /** GuardAgent's O_l: 0 = guard requests satisfied, 1 = violated (or undecidable, fail-closed). */
    label: z.union([z.literal(0), z.literal(1)]),
    /** allow / deny / ask (a human must confirm before the action runs; `allowed` is then false). */
    verdict: VerdictSchema,
    violations: z.array(ViolationSchema),
    explanation: z.string(),
    /** The guard-railed output: the agent's answer or action when allowed, null when denied. */
    output: z.unknown(),
    engine: z.string(),
    policy: z.object({ name: z.string(), version: z.string() }).optional(),
    cost: CostSchema,
    trace: TraceSchema.optional(),
    /** Set when the decision was not reached by evaluating the policy (model down, code never ran...). */
    failure: FailureSchema.optional(),
    /** Model engines behind the deterministic floor: the compiled and the model view, side by side. */
    views: DecisionViewsSchema.optional(),
    /**
     * GuardAgent App. N's risk level, from the number of distinct violated rules (src/core/risk.ts):
     * present when the policy asks for it (`risk: "violated-rules"`) and the policy was evaluated.
     */
    risk: RiskSchema.optional(),
    /** The approval an `ask` became, or the one a re-check after approval was allowed by. */
    approval: ApprovalRefSchema.optional(),
  });
  return {
    ViolationSchema,
    CostSchema,
    AttemptSchema,
    TraceSchema,
    VerdictSchema,
    DecisionViewSchema,
    DecisionViewsSchema,
    ApprovalRefSchema,
    DecisionSchema,
  };
}
type Schemas = ReturnType<typeof buildSchemas>;
const built = onFirstUse(buildSchemas);

export const ViolationSchema = z.lazy(() => built().ViolationSchema);
export type Violation = z.output<Schemas["ViolationSchema"]>;
export const CostSchema = z.lazy(() => built().CostSchema);
export type Cost = z.output<Schemas["CostSchema"]>;
export const AttemptSchema = z.lazy(() => built().AttemptSchema);
export type Attempt = z.output<Schemas["AttemptSchema"]>;
export const TraceSchema = z.lazy(() => built().TraceSchema);
export type Trace = z.output<Schemas["TraceSchema"]>;
export const VerdictSchema = z.lazy(() => built().VerdictSchema);
export type Verdict = z.output<Schemas["VerdictSchema"]>;
export const DecisionViewSchema = z.lazy(() => built().DecisionViewSchema);
export type DecisionView = z.output<Schemas["DecisionViewSchema"]>;
export const DecisionViewsSchema = z.lazy(() => built().DecisionViewsSchema);
export type DecisionViews = z.output<Schemas["DecisionViewsSchema"]>;
export const ApprovalRefSchema = z.lazy(() => built().ApprovalRefSchema);
export type ApprovalRef = z.output<Schemas["ApprovalRefSchema"]>;
export const DecisionSchema = z.lazy(() => built().DecisionSchema);
export type Decision = z.output<Schemas["DecisionSchema"]>;

export function zeroCost(): Cost {
  return { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 };
}

export function addCost(a: Cost, b: Partial<Cost>): Cost {
  return {
    llmCalls: a.llmCalls + (b.llmCalls ?? 0),
    inputTokens: a.inputTokens + (b.inputTokens ?? 0),
    outputTokens: a.outputTokens + (b.outputTokens ?? 0),
    ms: a.ms + (b.ms ?? 0),
  };
}

interface DecisionBase {
  engine: string;
  policy?: { name: string; version: string };
  cost?: Cost;
  trace?: Trace;
}

/**
 * A Decision from its fields, keys in this order, `policy` and `trace` left out when not given. One
 * object literal per combination rather than spreads: each is built in its final shape in one step,
 * which counts on the compiled engine's path (a few microseconds per check).
 */
function decisionOf(
  fields: Omit<Decision, "policy" | "trace" | "failure" | "views"> & Pick<DecisionBase, "policy" | "trace">,
): Decision {
  const { allowed, label, verdict, violations, explanation, output, engine, policy, cost, trace } = fields;
  if (policy) {
    return trace
      ? { allowed, label, verdict, violations, explanation, output, engine, policy, cost, trace }
      : { allowed, label, verdict, violations, explanation, output, engine, policy, cost };
  }
  return trace
    ? { allowed, label, verdict, violations, explanation, output, engine, cost, trace }
    : { allowed, label, verdict, violations, explanation, output, engine, cost };
}

export function allowDecision(options: DecisionBase & { output: unknown; explanation?: string }): Decision {
  return decisionOf({
    allowed: true,
    label: 0,
    verdict: "allow",
    violations: [],
    explanation: options.explanation ?? "No rule of the policy is violated.",
    output: options.output,
    engine: options.engine,
    policy: options.policy,
    cost: options.cost ?? zeroCost(),
    trace: options.trace,
  });
}

export function denyDecision(
  options: DecisionBase & { violations: Violation[]; explanation?: string; verdict?: "deny" | "ask" },
): Decision {
  const { violations } = options;
  return decisionOf({
    allowed: false,
    label: 1,
    verdict: options.verdict ?? "deny",
    violations,
    explanation:
      options.explanation ??
      (violations.length > 0 ? violations.map((v) => v.message).join("; ") : "The policy is violated."),
    output: null,
    engine: options.engine,
    policy: options.policy,
    cost: options.cost ?? zeroCost(),
    trace: options.trace,
  });
}

/**
 * A decision reached without evaluating the policy: the model was unreachable, every program failed, a
 * fact could not be determined. Fail-closed (deny) unless the caller explicitly configured fail-open.
 */
export function failureDecision(
  options: DecisionBase & {
    code: ErrorCode;
    message: string;
    mode?: "closed" | "open";
    /** The agent's answer, passed through only in fail-open mode. */
    output?: unknown;
  },
): Decision {
  const mode = options.mode ?? "closed";
  const base = {
    engine: options.engine,
    ...(options.policy ? { policy: options.policy } : {}),
    cost: options.cost ?? zeroCost(),
    ...(options.trace ? { trace: options.trace } : {}),
    failure: { code: options.code, message: options.message, mode },
  };
  if (mode === "open") {
    return {
      ...base,
      allowed: true,
      label: 0,
      verdict: "allow",
      violations: [],
      explanation: `Allowed without a check (fail-open configured): ${options.message}`,
      output: options.output ?? null,
    };
  }
  return {
    ...base,
    allowed: false,
    label: 1,
    verdict: "deny",
    violations: [{ ruleId: "warden.undecidable", message: options.message }],
    explanation: `Denied because the check could not be completed (fail-closed): ${options.message}`,
    output: null,
  };
}
