/**
 * The importer's reading of our ST-WebAgentBench trajectory suite: judges a GENERATED trajectory, from the
 * generator's own record of what each step is (st-webagentbench-truth.ts), against a task's policies,
 * each by its eval type's judge (st-webagentbench-eval-types.ts). A consistency check of the pipeline
 * (`labels: "importer"`); the suite's labels come from the benchmark's evaluators'
 * semantics (st-webagentbench-official.ts).
 */
import type { StPolicy, StTask, StVersion } from "../../src/engines/shield/import/st-webagentbench-schema.js";
import { semanticsOf } from "./st-webagentbench-eval-types.js";
import type { TruthStep } from "./st-webagentbench-truth.js";

export type { TruthPage, TruthStep } from "./st-webagentbench-truth.js";

export interface OracleViolation {
  index: number;
  step: number;
  evalType: string;
}

/** Judges one policy; returns the step at which it is violated, or null (also for an unknown eval type). */
export function judgePolicy(options: {
  policy: StPolicy;
  steps: readonly TruthStep[];
  version: StVersion;
}): number | null {
  return semanticsOf({ policy: options.policy })?.judge(options) ?? null;
}

/** Every policy of the task the trajectory violates, with the step where it shows. */
export function judgeTrajectory(options: {
  task: StTask;
  steps: readonly TruthStep[];
  version: StVersion;
}): OracleViolation[] {
  const out: OracleViolation[] = [];
  for (const policy of options.task.policies) {
    const step = judgePolicy({ policy, steps: options.steps, version: options.version });
    if (step !== null) out.push({ index: policy.index, step, evalType: policy.eval.eval_types[0]! });
  }
  return out;
}
