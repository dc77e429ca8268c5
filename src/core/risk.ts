/**
 * Risk levels of GuardAgent's Q&A extension (appendix N): "no risk" for zero rule violations, "low
 * risk" for one, "medium risk" for two, "high risk" for three and "very high risk" for four — the count
 * of violated (pseudo-)rules, not the gravity of any one of them. The paper's CheckRiskScore answers
 * "invalid risk level" past four; Warden reads four or more as very high, so more violations never
 * read as less risk. A policy asks for it with `risk: "violated-rules"`, and its Decisions then carry
 * `risk` (src/engines/risk-level.ts adds it, once, for every engine).
 */
import { z } from "zod";

export const RISK_LEVELS = ["none", "low", "medium", "high", "very high"] as const;
export const RiskLevelSchema = z.enum(RISK_LEVELS);
export type RiskLevel = z.output<typeof RiskLevelSchema>;

export const RiskSchema = z.object({
  /** The level of the count below (GuardAgent App. N). */
  level: RiskLevelSchema,
  /** Distinct rules the decision found violated. */
  violatedRules: z.number().int().nonnegative(),
});
export type Risk = z.output<typeof RiskSchema>;

/** How a policy's Decisions get a risk level: the count of distinct violated rules. */
export const RiskModeSchema = z.enum(["violated-rules"]);

/** The level of a count of violated rules: 0 none, 1 low, 2 medium, 3 high, 4 or more very high. */
export function riskLevel(options: { violatedRules: number }): RiskLevel {
  const n = Math.max(0, Math.floor(options.violatedRules));
  return RISK_LEVELS[Math.min(n, RISK_LEVELS.length - 1)]!;
}

/**
 * The risk of an evaluated decision: its distinct violated rule ids counted. A refusal that names no
 * rule still broke one, so it counts at least one.
 */
export function riskOf(options: { allowed: boolean; violations: readonly { ruleId: string }[] }): Risk {
  const distinct = new Set(options.violations.map((v) => v.ruleId)).size;
  const violatedRules = options.allowed ? distinct : Math.max(1, distinct);
  return { level: riskLevel({ violatedRules }), violatedRules };
}
