/**
 * Scores the shield engine on labelled trajectories (ShieldAgent's ACC / FPR / ARR) and lists every
 * disagreement with the labels — verdict, rules, and the step at which a step rule's violation shows.
 */

import { type TrajectoryMetrics, trajectoryMetrics } from "../../src/bench/metrics.js";
import type { Policy } from "../../src/core/policy.js";
import type { TrajectoryRecord } from "../../src/core/trajectory-record.js";
import { runShieldOnTrajectory } from "../../src/engines/shield/runtime/run-shield-on-trajectory.js";
import type { ShieldEngine } from "../../src/engines/shield/runtime/shield-engine.js";

export interface ShieldDisagreement {
  id: string;
  label: "safe" | "unsafe";
  predictedUnsafe: boolean;
  missed: string[];
  extra: string[];
  /** [ruleId, labelled step, step at which the shield reported it] */
  stepMismatch: Array<[string, number, number]>;
}

export async function evaluateShield(options: {
  engine: ShieldEngine;
  policy: Policy;
  trajectories: readonly TrajectoryRecord[];
}): Promise<{ metrics: TrajectoryMetrics; disagreements: ShieldDisagreement[]; steps: number }> {
  const predictions = [];
  const disagreements: ShieldDisagreement[] = [];
  let steps = 0;
  for (const t of options.trajectories) {
    const context: Record<string, unknown> = {};
    if (t.taskId !== undefined) context.taskId = t.taskId;
    if (t.site !== undefined) context.site = t.site;
    const r = await runShieldOnTrajectory({
      engine: options.engine,
      policy: options.policy,
      trajectory: { input: t.input, steps: t.steps, context },
    });
    steps += t.steps.length;
    const truth = new Map<string, number>();
    for (const v of t.violations ?? []) {
      const id = v.ruleId ?? `stwab.t${v.policyRef!.taskId}.p${v.policyRef!.index}`;
      if (!truth.has(id)) truth.set(id, v.step);
    }
    const reportedAt = new Map<string, number>();
    r.decisions.forEach((d, i) => {
      for (const v of d.violations) if (!reportedAt.has(v.ruleId)) reportedAt.set(v.ruleId, i);
    });
    for (const v of r.final.violations)
      if (!reportedAt.has(v.ruleId)) reportedAt.set(v.ruleId, t.steps.length - 1);
    const missed = [...truth.keys()].filter((id) => !reportedAt.has(id));
    const extra = [...reportedAt.keys()].filter((id) => !truth.has(id));
    const stepMismatch: Array<[string, number, number]> = [];
    for (const [id, s] of truth)
      if (reportedAt.has(id) && reportedAt.get(id) !== s) stepMismatch.push([id, s, reportedAt.get(id)!]);
    if (missed.length + extra.length + stepMismatch.length > 0 || (t.label === "unsafe") !== r.unsafe) {
      disagreements.push({
        id: t.id,
        label: t.label,
        predictedUnsafe: r.unsafe,
        missed,
        extra,
        stepMismatch,
      });
    }
    predictions.push({
      id: t.id,
      unsafe: t.label === "unsafe",
      predictedUnsafe: r.unsafe,
      violated: [...truth.keys()],
      reported: r.violatedRules,
    });
  }
  return { metrics: trajectoryMetrics({ predictions }), disagreements, steps };
}
