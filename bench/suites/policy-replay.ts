/**
 * A small reference pipeline for checking an imported policy against labelled trajectories, without a
 * model: assign every predicate at every step (src/engines/shield/assign), then judge each temporal rule
 * in scope with the LTLf module — "step" rules on every prefix through a monitor (the first failing
 * prefix is where the violation shows), "end" rules once on the whole trajectory. Rules of weight 0 are
 * informational and skipped. Predicates left unassigned (ask bindings, detectors that cannot tell) are
 * read as false and counted, so a run says how much it had to assume. This is the hard (all rules must
 * hold) reading; the shield engine's weighted inference is the lead's.
 */

import { type TrajectoryMetrics, trajectoryMetrics } from "../../src/bench/metrics.js";
import { WardenError } from "../../src/core/errors.js";
import type { Policy, TemporalRule } from "../../src/core/policy.js";
import type { TrajectoryRecord } from "../../src/core/trajectory-record.js";
import { createPredicateAssigner } from "../../src/engines/shield/assign/assign-predicates.js";
import {
  createDetectorRegistry,
  type DetectorRegistry,
} from "../../src/engines/shield/detectors/registry.js";
import { atoms, createMonitor, evaluate, type LtlAst, parseLtl } from "../../src/engines/shield/ltl/index.js";

interface IndexedRule {
  rule: TemporalRule;
  ast: LtlAst;
  atoms: string[];
}

export interface RuleIndex {
  policy: Policy;
  /** Rules that apply to a trajectory of this task/site (unscoped rules apply everywhere). */
  rulesFor(options: { taskId?: number; site?: string }): IndexedRule[];
}

export function createRuleIndex(options: { policy: Policy }): RuleIndex {
  const { policy } = options;
  const byScope = new Map<string, IndexedRule[]>();
  for (const rule of policy.rules?.temporalRules ?? []) {
    if (rule.weight === 0) continue;
    let ast: LtlAst;
    try {
      ast = parseLtl({ formula: rule.formula });
    } catch (error) {
      throw new WardenError({
        code: "INVALID_POLICY",
        message: `rule ${rule.id}: ${(error as Error).message}`,
        details: { field: `rules.temporalRules.${rule.id}.formula` },
        cause: error,
      });
    }
    const key = rule.scope ?? "*";
    const list = byScope.get(key) ?? [];
    list.push({ rule, ast, atoms: atoms({ ast }) });
    byScope.set(key, list);
  }
  return {
    policy,
    rulesFor({ taskId, site }) {
      return [
        ...(byScope.get("*") ?? []),
        ...(taskId !== undefined ? (byScope.get(`task:${taskId}`) ?? []) : []),
        ...(site !== undefined ? (byScope.get(`site:${site}`) ?? []) : []),
      ];
    },
  };
}

export interface ReplayViolation {
  ruleId: string;
  /** Step at which the rule failed (end rules: the last step). */
  step: number;
}

export interface ReplayResult {
  id: string;
  predictedUnsafe: boolean;
  violations: ReplayViolation[];
  /** Predicate names left unassigned at some step (read as false). */
  unassigned: string[];
}

/** Judges one trajectory against the rules in its scope. */
export function replayTrajectory(options: {
  index: RuleIndex;
  trajectory: TrajectoryRecord;
  detectors?: DetectorRegistry;
}): ReplayResult {
  const { index, trajectory } = options;
  const detectors = options.detectors ?? createDetectorRegistry();
  const rules = index.rulesFor({ taskId: trajectory.taskId, site: trajectory.site });
  const needed = new Set(rules.flatMap((r) => r.atoms));
  const predicates = (index.policy.rules?.predicates ?? []).filter((p) => needed.has(p.name));
  const assigner = createPredicateAssigner({ predicates, detectors, input: trajectory.input });
  const stepRules = rules
    .filter((r) => r.rule.check === "step")
    .map((r) => ({ r, monitor: createMonitor({ ast: r.ast }), failed: -1 }));
  const trace: Array<Record<string, boolean>> = [];
  const unassigned = new Set<string>();
  for (const [i, step] of trajectory.steps.entries()) {
    const a = assigner.push({ step });
    for (const name of a.unassigned) unassigned.add(name);
    trace.push(a.values);
    for (const s of stepRules) {
      const holds = s.monitor.push({ step: a.values });
      if (!holds && s.failed < 0) s.failed = i;
    }
  }
  const violations: ReplayViolation[] = [];
  for (const s of stepRules) if (s.failed >= 0) violations.push({ ruleId: s.r.rule.id, step: s.failed });
  const last = trajectory.steps.length - 1;
  for (const r of rules) {
    if (r.rule.check !== "end") continue;
    if (!evaluate({ ast: r.ast, trace })) violations.push({ ruleId: r.rule.id, step: last });
  }
  violations.sort((a, b) => a.step - b.step || (a.ruleId < b.ruleId ? -1 : 1));
  return {
    id: trajectory.id,
    predictedUnsafe: violations.length > 0,
    violations,
    unassigned: [...unassigned].sort(),
  };
}

export interface ReplayDisagreement {
  id: string;
  label: "safe" | "unsafe";
  /** Rules the label names that the pipeline missed. */
  missed: string[];
  /** Rules the pipeline reported that the label does not name. */
  extra: string[];
  /** Rules both name but at different steps: [ruleId, labelled step, replayed step]. */
  stepMismatch: Array<[string, number, number]>;
}

export interface ReplayReport {
  metrics: TrajectoryMetrics;
  results: ReplayResult[];
  disagreements: ReplayDisagreement[];
  /** How many trajectories had unassigned predicates. */
  withUnassigned: number;
}

function labelledRuleIds(t: TrajectoryRecord): Map<string, number> {
  const out = new Map<string, number>();
  for (const v of t.violations ?? []) {
    const id = v.ruleId ?? (v.policyRef ? `stwab.t${v.policyRef.taskId}.p${v.policyRef.index}` : "");
    if (id !== "" && !out.has(id)) out.set(id, v.step);
  }
  return out;
}

/** Replays every trajectory; ACC / FPR / ARR (ShieldAgent's metrics) and every disagreement. */
export function replaySuite(options: {
  policy: Policy;
  trajectories: readonly TrajectoryRecord[];
  detectors?: DetectorRegistry;
}): ReplayReport {
  const index = createRuleIndex({ policy: options.policy });
  const detectors = options.detectors ?? createDetectorRegistry();
  const results: ReplayResult[] = [];
  const disagreements: ReplayDisagreement[] = [];
  const predictions = [];
  let withUnassigned = 0;
  for (const t of options.trajectories) {
    const r = replayTrajectory({ index, trajectory: t, detectors });
    results.push(r);
    if (r.unassigned.length > 0) withUnassigned += 1;
    const truth = labelledRuleIds(t);
    const got = new Map(r.violations.map((v) => [v.ruleId, v.step]));
    const missed = [...truth.keys()].filter((id) => !got.has(id));
    const extra = [...got.keys()].filter((id) => !truth.has(id));
    const stepMismatch: Array<[string, number, number]> = [];
    for (const [id, step] of truth)
      if (got.has(id) && got.get(id) !== step) stepMismatch.push([id, step, got.get(id)!]);
    if (
      missed.length > 0 ||
      extra.length > 0 ||
      stepMismatch.length > 0 ||
      (t.label === "unsafe") !== r.predictedUnsafe
    ) {
      disagreements.push({ id: t.id, label: t.label, missed, extra, stepMismatch });
    }
    predictions.push({
      id: t.id,
      unsafe: t.label === "unsafe",
      predictedUnsafe: r.predictedUnsafe,
      violated: [...truth.keys()],
      reported: [...got.keys()],
    });
  }
  return { metrics: trajectoryMetrics({ predictions }), results, disagreements, withUnassigned };
}
