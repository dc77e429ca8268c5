/**
 * Labelled data for weight training. The file format is the trajectory JSONL of
 * src/core/trajectory-record.ts (one labelled trajectory per line); the labels become examples:
 * - per-step labels, when a record carries `meta.stepLabels`: an array with one entry per step,
 *   "safe", "unsafe" or null (unlabelled), plus optionally `meta.endLabel` ("safe"/"unsafe") for the
 *   judgement of the complete trajectory;
 * - otherwise per-trajectory labels: a safe trajectory makes every step and its end safe examples; an
 *   unsafe one makes each step named by a violation unsafe (or its end, when the violated rule is
 *   checked at the end), the steps before its first violated step safe, and its end safe when no
 *   violated rule is an end rule. Steps after the first violation are left out: what the agent did
 *   after a violation is not labelled either way.
 * Rule ids come from `violations[].ruleId`, or from `policyRef` in the ST-WebAgentBench form.
 */
import { z } from "zod";
import type { Policy } from "../../../core/policy.js";
import type { StepInput } from "../../../core/subject.js";
import type { TrajectoryRecord } from "../../../core/trajectory-record.js";
import { parseWith } from "../../../core/validate.js";

export type StepLabel = "safe" | "unsafe";

export interface LabelledExample {
  trajectory: { input: string; steps: readonly StepInput[]; context?: Record<string, unknown> };
  /** The labelled step, or "end" for the judgement of the complete trajectory. */
  step: number | "end";
  label: StepLabel;
  /** Where the example came from (record id), for reports. */
  id?: string;
}

const StepLabelsSchema = z.array(z.enum(["safe", "unsafe"]).nullable());

function ruleIdOf(v: NonNullable<TrajectoryRecord["violations"]>[number]): string {
  return v.ruleId ?? (v.policyRef ? `stwab.t${v.policyRef.taskId}.p${v.policyRef.index}` : "");
}

/** The context a record's rules are selected with (task and site scopes). */
export function recordContext(options: { record: TrajectoryRecord }): Record<string, unknown> {
  const r = options.record;
  const context: Record<string, unknown> = {};
  if (r.taskId !== undefined) context.taskId = r.taskId;
  if (r.site !== undefined) context.site = r.site;
  return context;
}

export function examplesFromRecords(options: {
  records: readonly TrajectoryRecord[];
  policy: Policy;
}): LabelledExample[] {
  const endRules = new Set(
    (options.policy.rules?.temporalRules ?? []).filter((r) => r.check === "end").map((r) => r.id),
  );
  const out: LabelledExample[] = [];
  for (const record of options.records) {
    const trajectory = { input: record.input, steps: record.steps, context: recordContext({ record }) };
    const add = (step: number | "end", label: StepLabel) =>
      out.push({ trajectory, step, label, id: record.id });
    const meta = record.meta ?? {};
    if (meta.stepLabels !== undefined) {
      const labels = parseWith({
        schema: StepLabelsSchema.length(record.steps.length, `one label per step (${record.steps.length})`),
        value: meta.stepLabels,
        what: `step labels of ${record.id}`,
        path: "meta.stepLabels",
        code: "DATASET_INVALID",
      });
      labels.forEach((l, i) => {
        if (l !== null) add(i, l);
      });
      const end = meta.endLabel;
      if (end === "safe" || end === "unsafe") add("end", end);
      continue;
    }
    if (record.label === "safe") {
      for (let i = 0; i < record.steps.length; i += 1) add(i, "safe");
      add("end", "safe");
      continue;
    }
    const stepViolations = new Set<number>();
    let endViolated = false;
    for (const v of record.violations ?? []) {
      if (endRules.has(ruleIdOf(v))) endViolated = true;
      else stepViolations.add(v.step);
    }
    if (stepViolations.size === 0 && !endViolated) endViolated = true;
    const first = stepViolations.size > 0 ? Math.min(...stepViolations) : record.steps.length;
    for (let i = 0; i < first; i += 1) add(i, "safe");
    for (const s of [...stepViolations].sort((a, b) => a - b)) add(s, "unsafe");
    add("end", endViolated ? "unsafe" : "safe");
  }
  return out;
}
