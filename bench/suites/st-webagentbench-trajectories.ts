/**
 * Our own trajectory suite for ST-WebAgentBench ("warden/st-webagentbench-trajectories"): the benchmark
 * ships tasks and policies but no trajectories, so this builds them at run time, deterministically from
 * the real tasks and a seed (no dataset content is committed). For every task it plans a trajectory that
 * tries to respect every policy (navigating within the site, asking before consent-gated actions,
 * performing required sequences and exact counts, typing only allowed values, leaving the final page in
 * the required state), then one mutation per policy that violates it the way an agent would (visiting
 * the forbidden page, clicking "Delete", typing the sensitive value, skipping the confirmation...).
 * Steps are BrowserGym-like — actions with element texts, selectors and element HTML, URLs under the
 * task's site, page observations as HTML — and a mix of logging styles (`click('a12')` strings and
 * structured steps, synonyms such as "type"/"navigate").
 *
 * Labels come from construction: the generator's own record of every step is judged by the oracle
 * (st-webagentbench-oracle.ts); a mutation that fails to violate its target policy, and any policy
 * violated as a side effect, are recorded in the trajectory's note and labels. Each eval type's
 * mutation and judge sit beside its compiler in st-webagentbench-eval-types.ts; the plans they work on
 * are built in st-webagentbench-plan.ts.
 */

import type { TrajectoryHeader, TrajectoryRecord } from "../../src/core/trajectory-record.js";
import { stRuleId } from "../../src/engines/shield/import/st-webagentbench.js";
import { invertedReading } from "../../src/engines/shield/import/st-webagentbench-inverted.js";
import type { StTask, StVersion } from "../../src/engines/shield/import/st-webagentbench-schema.js";
import { type SafeVariant, semanticsOf } from "./st-webagentbench-eval-types.js";
import { judgeTrajectory } from "./st-webagentbench-oracle.js";
import {
  analyse,
  createRng,
  evalType,
  hashSeed,
  materialise,
  type Plan,
  safePlan,
  type TaskFacts,
  withConsent,
} from "./st-webagentbench-plan.js";

export const ST_SUITE_NAME = "warden/st-webagentbench-trajectories";

/* ------------------------------------------------------------------ the suite */

export interface StSuiteTrajectory extends TrajectoryRecord {
  taskId: number;
}

export interface StSuiteStats {
  tasks: number;
  trajectories: number;
  safe: number;
  unsafe: number;
  /** Per eval type: mutations that produced their violation, and those with no realistic violation. */
  byEvalType: Record<string, { generated: number; missed: number; skipped: number }>;
  /** Tasks whose policies leave no trajectory violating nothing (contradictory policies). */
  tasksWithoutSafe: number[];
}

export interface StSuite {
  header: TrajectoryHeader;
  trajectories: StSuiteTrajectory[];
  stats: StSuiteStats;
}

function record(
  facts: TaskFacts,
  id: string,
  plan: Plan,
  rng: () => number,
  note: string,
): { trajectory: StSuiteTrajectory; violated: Set<number> } {
  const { truth, steps } = materialise(facts, plan, rng);
  // The judges decide which policies count: a decoy's judge never reports a violation.
  const found = judgeTrajectory({ task: facts.task, steps: truth, version: facts.version });
  const trajectory: StSuiteTrajectory = {
    suite: ST_SUITE_NAME,
    id,
    taskId: facts.task.task_id,
    site: facts.site,
    input: facts.task.intent,
    steps,
    label: found.length > 0 ? "unsafe" : "safe",
    ...(found.length > 0
      ? {
          violations: found.map((v) => ({
            ruleId: stRuleId({ taskId: facts.task.task_id, index: v.index }),
            policyRef: { taskId: facts.task.task_id, index: v.index },
            step: v.step,
            evalType: v.evalType,
          })),
        }
      : {}),
    note,
  };
  return { trajectory, violated: new Set(found.map((v) => v.index)) };
}

/**
 * Builds the suite from the benchmark's tasks (as loaded by loadStWebAgentBench). Deterministic for a
 * given seed. `maxTasks` keeps only the first n tasks (by id) for quick runs.
 */
export function buildStWebAgentBenchSuite(options: {
  tasks: readonly StTask[];
  seed: number;
  version?: StVersion;
  maxTasks?: number;
  /**
   * Policies whose literal reading inverts their intent (st-webagentbench-inverted.ts): "skip"
   * (default, as the importer does) leaves them out of the labels; "evaluator" labels them as the
   * benchmark's evaluator reads them (import with the same setting).
   */
  inverted?: "skip" | "evaluator";
}): StSuite {
  const version = options.version ?? "latest";
  const tasks = [...options.tasks]
    .sort((a, b) => a.task_id - b.task_id)
    .slice(0, options.maxTasks ?? Number.POSITIVE_INFINITY);
  const trajectories: StSuiteTrajectory[] = [];
  const stats: StSuiteStats = {
    tasks: tasks.length,
    trajectories: 0,
    safe: 0,
    unsafe: 0,
    byEvalType: {},
    tasksWithoutSafe: [],
  };
  const bump = (type: string, key: "generated" | "missed" | "skipped") => {
    const s = stats.byEvalType[type] ?? { generated: 0, missed: 0, skipped: 0 };
    s[key] += 1;
    stats.byEvalType[type] = s;
  };
  for (const given of tasks) {
    const task =
      (options.inverted ?? "skip") === "skip"
        ? { ...given, policies: given.policies.filter((policy) => !invertedReading({ task: given, policy })) }
        : given;
    const rng = createRng(hashSeed(options.seed, version, task.task_id));
    const facts = analyse(task, version);
    // Try the full plan, then simpler ones, until one violates nothing.
    let safe: Plan | null = null;
    let safeResult: ReturnType<typeof record> | null = null;
    for (const variant of [
      { askAction: true, fills: true },
      { askAction: false, fills: true },
      { askAction: false, fills: false },
    ]) {
      const plan = safePlan(facts, createRng(hashSeed(options.seed, version, task.task_id, "safe")), variant);
      const r = record(
        facts,
        `t${task.task_id}-safe`,
        plan,
        createRng(hashSeed(options.seed, task.task_id, "m")),
        "planned to respect every policy",
      );
      if (!safe || r.violated.size < (safeResult?.violated.size ?? Number.POSITIVE_INFINITY)) {
        safe = plan;
        safeResult = r;
      }
      if (r.violated.size === 0) break;
    }
    if (safeResult!.violated.size > 0) {
      stats.tasksWithoutSafe.push(task.task_id);
      safeResult!.trajectory.note = `planned to respect every policy; the task's policies conflict, so it still violates ${[...safeResult!.violated].map((i) => `policy ${i}`).join(", ")}`;
    }
    trajectories.push(safeResult!.trajectory);
    for (const policy of task.policies) {
      const type = evalType(policy);
      const m = semanticsOf({ policy })?.mutate({
        facts,
        base: safe!,
        policy,
        rng,
        violates: (plan) =>
          judgeTrajectory({
            task: facts.task,
            steps: materialise(facts, plan, createRng(1)).truth,
            version: facts.version,
          }).some((v) => v.index === policy.index),
      });
      if (!m) {
        bump(type, "skipped");
        continue;
      }
      const plan = m.consent ? { ops: withConsent(facts, m.plan.ops), final: m.plan.final } : m.plan;
      const r = record(
        facts,
        `t${task.task_id}-p${policy.index}`,
        plan,
        rng,
        `violates policy ${policy.index} (${type}): ${m.how}`,
      );
      if (r.violated.has(policy.index)) bump(type, "generated");
      else {
        bump(type, "missed");
        r.trajectory.note = `${r.trajectory.note} — the mutation did NOT violate it`;
      }
      const side = [...r.violated].filter((i) => i !== policy.index && !safeResult!.violated.has(i));
      if (side.length > 0)
        r.trajectory.note = `${r.trajectory.note}; also violates ${side.map((i) => `policy ${i}`).join(", ")}`;
      trajectories.push(r.trajectory);
    }
    // Safe variants some eval types add (once per task, whatever the number of such policies).
    const variants = new Map<string, SafeVariant>();
    for (const policy of task.policies) {
      const variant = semanticsOf({ policy })?.safeVariant;
      if (variant) variants.set(variant.name, variant);
    }
    for (const variant of variants.values()) {
      const plan = variant.plan(safe!);
      if (plan)
        trajectories.push(
          record(facts, `t${task.task_id}-${variant.name}`, plan, rng, variant.note).trajectory,
        );
    }
  }
  stats.trajectories = trajectories.length;
  stats.safe = trajectories.filter((t) => t.label === "safe").length;
  stats.unsafe = stats.trajectories - stats.safe;
  return {
    header: {
      kind: "header",
      suite: ST_SUITE_NAME,
      description:
        "Warden's own trajectory suite for ST-WebAgentBench: trajectories generated from the benchmark's tasks and policies, labelled by construction. Not part of the benchmark.",
      seed: options.seed,
      version,
    },
    trajectories,
    stats,
  };
}
