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
 * Labels are what the benchmark's own evaluators would score: the generator's record of every step,
 * seen as the benchmark's harness records it, is judged by st-webagentbench-official.ts. A mutation the
 * evaluator does not score as a violation is labelled safe and counted as `missed`; any policy violated
 * as a side effect is in the trajectory's note and labels; a trajectory on which an evaluator would
 * raise (the benchmark then has no safety report) is left out and counted. The importer's own reading
 * (st-webagentbench-oracle.ts) is kept beside it: `importerReadingDiffers` counts the trajectories
 * where the two readings label differently, per eval type. Each eval type's mutation sits beside its
 * compiler in st-webagentbench-eval-types.ts; the plans are built in st-webagentbench-plan.ts.
 */

import type { TrajectoryHeader, TrajectoryRecord } from "../../src/core/trajectory-record.js";
import { stRuleId } from "../../src/engines/shield/import/st-webagentbench.js";
import { invertedReading } from "../../src/engines/shield/import/st-webagentbench-inverted.js";
import type { StPolicy, StTask, StVersion } from "../../src/engines/shield/import/st-webagentbench-schema.js";
import { type SafeVariant, semanticsOf } from "./st-webagentbench-eval-types.js";
import { judgeOfficially } from "./st-webagentbench-official.js";
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
  /** Tasks for which no planned run is scored safe (their policies conflict under the evaluator). */
  tasksWithoutSafe: number[];
  /** Trajectories left out because an evaluator would raise on them (no safety report). */
  unscorable: number;
  /**
   * Trajectories the importer's reading (st-webagentbench-oracle.ts) labels differently from the
   * benchmark's evaluators, by the eval types either reading names ("safe" when neither names one).
   */
  importerReadingDiffers: { total: number; byEvalType: Record<string, number>; ids: string[] };
  /** With `balance`: re-planned safe runs added, and safe runs still missing for per-task balance. */
  balance?: { added: number; shortfall: number };
}

export interface StSuite {
  header: TrajectoryHeader;
  trajectories: StSuiteTrajectory[];
  stats: StSuiteStats;
}

/** Which reading labels the suite: the benchmark's evaluators (default) or the importer's own. */
export type StLabelReading = "official" | "importer";

function record(
  facts: TaskFacts,
  id: string,
  plan: Plan,
  rng: () => number,
  note: string,
  reading: StLabelReading,
): { trajectory: StSuiteTrajectory; violated: Set<number>; error?: string; importerDiffers?: string[] } {
  const { truth, steps } = materialise(facts, plan, rng);
  const official = judgeOfficially({ task: facts.task, steps: truth, version: facts.version });
  const importer = judgeTrajectory({ task: facts.task, steps: truth, version: facts.version });
  const found = reading === "official" ? official.violations : importer;
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
  const a = new Set(official.violations.map((v) => v.index));
  const b = new Set(importer.map((v) => v.index));
  const differs = [...official.violations, ...importer]
    .filter((v) => a.has(v.index) !== b.has(v.index))
    .map((v) => v.evalType);
  return {
    trajectory,
    violated: new Set(found.map((v) => v.index)),
    ...(official.error !== undefined && reading === "official" ? { error: official.error } : {}),
    ...(differs.length > 0 ? { importerDiffers: [...new Set(differs)] } : {}),
  };
}

const SAFE_PLAN_VARIANTS = [
  { askAction: true, fills: true },
  { askAction: false, fills: true },
  { askAction: false, fills: false },
] as const;

/** Re-planned safe runs of one task (other seeds, every plan variant), kept when scored safe. */
function balanceTask(options: {
  facts: TaskFacts;
  seed: number;
  reading: StLabelReading;
  keep: (r: ReturnType<typeof record>) => boolean;
  runs: readonly StSuiteTrajectory[];
  stats: { added: number; shortfall: number };
}): void {
  const { facts, seed, reading } = options;
  const id = facts.task.task_id;
  let safe = options.runs.filter((t) => t.label === "safe").length;
  const unsafe = options.runs.length - safe;
  for (let k = 1; safe < unsafe && k <= 2 * unsafe; k += 1) {
    const variant = SAFE_PLAN_VARIANTS[k % SAFE_PLAN_VARIANTS.length]!;
    const plan = safePlan(facts, createRng(hashSeed(seed, facts.version, id, "safe", k)), variant);
    const r = record(
      facts,
      `t${id}-safe-${k}`,
      plan,
      createRng(hashSeed(seed, id, "m", k)),
      `another planned safe run (seed ${k}), added to balance the task's safe and unsafe runs`,
      reading,
    );
    if (r.violated.size > 0 || r.error !== undefined) continue;
    if (options.keep(r)) {
      safe += 1;
      options.stats.added += 1;
    }
  }
  options.stats.shortfall += Math.max(0, unsafe - safe);
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
  /**
   * "official" (default): labels as the benchmark's evaluators score the runs. "importer": labels by the
   * importer's own reading of the eval specs — a consistency check of the pipeline, not a benchmark label.
   */
  labels?: StLabelReading;
  /**
   * Add re-planned safe runs (other seeds of the safe plan) until each task has as many runs scored safe
   * as unsafe, where the planner finds them; what it cannot find is counted in `balance.shortfall`.
   */
  balance?: boolean;
}): StSuite {
  const reading = options.labels ?? "official";
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
    unscorable: 0,
    importerReadingDiffers: { total: 0, byEvalType: {}, ids: [] },
    ...(options.balance ? { balance: { added: 0, shortfall: 0 } } : {}),
  };
  const keep = (r: ReturnType<typeof record>): boolean => {
    if (r.error !== undefined) {
      stats.unscorable += 1;
      return false;
    }
    if (r.importerDiffers) {
      stats.importerReadingDiffers.total += 1;
      stats.importerReadingDiffers.ids.push(r.trajectory.id);
      for (const t of r.importerDiffers)
        stats.importerReadingDiffers.byEvalType[t] = (stats.importerReadingDiffers.byEvalType[t] ?? 0) + 1;
    }
    trajectories.push(r.trajectory);
    return true;
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
    const taskStart = trajectories.length;
    // Try the full plan, then simpler ones, until one violates nothing.
    let safe: Plan | null = null;
    let safeResult: ReturnType<typeof record> | null = null;
    for (const variant of SAFE_PLAN_VARIANTS) {
      const plan = safePlan(facts, createRng(hashSeed(options.seed, version, task.task_id, "safe")), variant);
      const r = record(
        facts,
        `t${task.task_id}-safe`,
        plan,
        createRng(hashSeed(options.seed, task.task_id, "m")),
        "planned to respect every policy",
        reading,
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
    keep(safeResult!);
    for (const policy of task.policies) {
      const type = evalType(policy);
      const m = semanticsOf({ policy })?.mutate({
        facts,
        base: safe!,
        policy,
        rng,
        violates: (plan) => {
          const j = {
            task: facts.task,
            steps: materialise(facts, plan, createRng(1)).truth,
            version: facts.version,
          };
          const found = reading === "official" ? judgeOfficially(j).violations : judgeTrajectory(j);
          return found.some((v) => v.index === policy.index);
        },
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
        reading,
      );
      if (r.error !== undefined) {
        keep(r);
        continue;
      }
      if (r.violated.has(policy.index)) bump(type, "generated");
      else {
        bump(type, "missed");
        r.trajectory.note = `${r.trajectory.note} — the ${reading === "official" ? "benchmark's evaluator" : "importer's reading"} does NOT score it as violated`;
      }
      const side = [...r.violated].filter((i) => i !== policy.index && !safeResult!.violated.has(i));
      if (side.length > 0)
        r.trajectory.note = `${r.trajectory.note}; also violates ${side.map((i) => `policy ${i}`).join(", ")}`;
      keep(r);
    }
    // Safe variants some eval types add (once per task, whatever the number of such policies).
    const variants = new Map<string, { variant: SafeVariant; policies: StPolicy[] }>();
    for (const policy of task.policies) {
      for (const variant of semanticsOf({ policy })?.safeVariants ?? []) {
        const entry = variants.get(variant.name) ?? { variant, policies: [] };
        entry.policies.push(policy);
        variants.set(variant.name, entry);
      }
    }
    for (const { variant, policies } of variants.values()) {
      const plan = variant.plan(safe!, policies);
      if (plan) keep(record(facts, `t${task.task_id}-${variant.name}`, plan, rng, variant.note, reading));
    }
    if (stats.balance)
      balanceTask({
        facts,
        seed: options.seed,
        reading,
        keep,
        runs: trajectories.slice(taskStart),
        stats: stats.balance,
      });
  }
  stats.trajectories = trajectories.length;
  stats.safe = trajectories.filter((t) => t.label === "safe").length;
  stats.unsafe = stats.trajectories - stats.safe;
  return {
    header: {
      kind: "header",
      suite: ST_SUITE_NAME,
      description:
        reading === "official"
          ? "Warden's own trajectory suite for ST-WebAgentBench: trajectories generated from the benchmark's tasks and policies, labelled as the benchmark's evaluators would score them (our reimplementation of their semantics). Not part of the benchmark."
          : "Warden's own trajectory suite for ST-WebAgentBench, labelled by the importer's own reading of the eval specs: a consistency check of the pipeline, not benchmark labels. Not part of the benchmark.",
      seed: options.seed,
      version,
    },
    trajectories,
    stats,
  };
}
