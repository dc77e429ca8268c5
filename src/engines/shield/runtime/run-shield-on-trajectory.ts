/**
 * Runs the shield over a recorded trajectory, step by step and then as a whole, for the CLI and the
 * benchmarks: every step is decided (a denied step stays in the trajectory — it was taken — so later
 * steps are judged on what really happened), `blockedAt` is the first step not allowed, and
 * `violatedRules` lists every rule reported on the way (the step decisions and the end decision).
 */
import type { Decision } from "../../../core/decision.js";
import type { Policy } from "../../../core/policy.js";
import type { StepInput } from "../../../core/subject.js";
import type { ShieldEngine } from "./shield-engine.js";

export interface ShieldTrajectoryResult {
  decisions: Decision[];
  blockedAt?: number;
  /** The end decision (rules checked on the complete trajectory). */
  final: Decision;
  /** Rule ids reported anywhere, in order of first report. */
  violatedRules: string[];
  /** True when a step or the end was not allowed. */
  unsafe: boolean;
}

export async function runShieldOnTrajectory(options: {
  engine: ShieldEngine;
  policy: Policy;
  trajectory: { input: string; steps: readonly StepInput[]; context?: Record<string, unknown> };
  signal?: AbortSignal;
}): Promise<ShieldTrajectoryResult> {
  const { engine, policy, trajectory } = options;
  const session = engine.openSession({
    policy,
    input: trajectory.input,
    ...(trajectory.context ? { context: trajectory.context } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const decisions: Decision[] = [];
  let blockedAt: number | undefined;
  for (const [i, step] of trajectory.steps.entries()) {
    const d = await session.step({ step });
    decisions.push(d);
    if (!d.allowed && blockedAt === undefined) blockedAt = i;
  }
  const final = await session.finish();
  const violatedRules: string[] = [];
  for (const d of [...decisions, final])
    for (const v of d.violations) if (!violatedRules.includes(v.ruleId)) violatedRules.push(v.ruleId);
  return {
    decisions,
    ...(blockedAt !== undefined ? { blockedAt } : {}),
    final,
    violatedRules,
    unsafe: blockedAt !== undefined || !final.allowed,
  };
}
