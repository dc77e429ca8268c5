/**
 * A labelled trajectory: what an agent was asked, the steps it took (Subject's Step shape) and whether
 * that was safe, with the violated rules and the step at which each shows. Shield weight training
 * (engines/shield/train), `warden policy train` and the benchmarks all read it, so it lives in core
 * beside Subject. The file format is JSONL, one labelled trajectory per line —
 * `{ id, taskId?, site?, input, steps, label, violations?, note?, suite?, meta? }` with steps in
 * Subject's Step shape (action, args, url, element, value, observation, ...). A violation names the rule
 * (`ruleId`) or the benchmark policy (`policyRef: { taskId, index }`) and the step at which it shows.
 * A line `{ "kind": "header", ... }` may open the file to say which suite it is and how it was made.
 * Every line is validated with zod; errors name the line and the field.
 */
import { z } from "zod";
import { stableStringify } from "../util/stable-json.js";
import { WardenError } from "./errors.js";
import { StepSchema } from "./subject.js";
import { formatIssues } from "./validate.js";

export const PolicyRefSchema = z.object({
  taskId: z.number().int().nonnegative(),
  index: z.number().int().nonnegative(),
});
export type PolicyRef = z.output<typeof PolicyRefSchema>;

export const TrajectoryViolationSchema = z
  .object({
    ruleId: z.string().min(1).optional(),
    policyRef: PolicyRefSchema.optional(),
    /** 0-based step at which the violation shows (for end-checked rules: the last step). */
    step: z.number().int().nonnegative(),
    /** The benchmark eval type, for breakdowns. */
    evalType: z.string().optional(),
  })
  .strict()
  .refine((v) => v.ruleId !== undefined || v.policyRef !== undefined, {
    message: "a violation needs ruleId or policyRef",
  });
export type TrajectoryViolation = z.output<typeof TrajectoryViolationSchema>;

export const TrajectoryRecordSchema = z
  .object({
    /** Which suite the record belongs to (our own suites say so: "warden/..."). */
    suite: z.string().min(1).optional(),
    id: z.string().min(1),
    taskId: z.number().int().nonnegative().optional(),
    site: z.string().optional(),
    /** The task intent: what the agent was asked. */
    input: z.string(),
    steps: z.array(StepSchema).min(1, "a trajectory has at least one step"),
    label: z.enum(["safe", "unsafe"]),
    violations: z.array(TrajectoryViolationSchema).optional(),
    note: z.string().optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    for (const [i, v] of (r.violations ?? []).entries()) {
      if (v.step >= r.steps.length) {
        ctx.addIssue({
          code: "custom",
          path: ["violations", i, "step"],
          message: `step ${v.step} is past the last step (${r.steps.length - 1})`,
        });
      }
    }
    if (r.label === "safe" && (r.violations ?? []).length > 0) {
      ctx.addIssue({ code: "custom", path: ["label"], message: "a safe trajectory lists no violations" });
    }
  });
export type TrajectoryRecord = z.output<typeof TrajectoryRecordSchema>;
export type TrajectoryRecordInput = z.input<typeof TrajectoryRecordSchema>;

export const TrajectoryHeaderSchema = z.looseObject({
  kind: z.literal("header"),
  suite: z.string().min(1),
  description: z.string().optional(),
});
export type TrajectoryHeader = z.output<typeof TrajectoryHeaderSchema>;

export interface ParsedTrajectories {
  header?: TrajectoryHeader;
  records: TrajectoryRecord[];
}

/**
 * Parses JSONL text. Blank lines are skipped; the first non-blank line may be a header. Throws one
 * WardenError (DATASET_INVALID) listing every bad line as `<source>:<line>: <field>: <problem>`.
 */
export function parseTrajectoriesJsonl(options: { text: string; source?: string }): ParsedTrajectories {
  const source = options.source ?? "trajectories";
  const problems: string[] = [];
  const records: TrajectoryRecord[] = [];
  const ids = new Set<string>();
  let header: TrajectoryHeader | undefined;
  let first = true;
  for (const [i, raw] of options.text.split(/\r?\n/).entries()) {
    const line = i + 1;
    if (raw.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      problems.push(`${source}:${line}: not JSON (${(error as Error).message})`);
      first = false;
      continue;
    }
    if (first && (value as { kind?: unknown } | null)?.kind === "header") {
      const h = TrajectoryHeaderSchema.safeParse(value);
      if (h.success) header = h.data;
      else problems.push(`${source}:${line}: ${formatIssues(h.error.issues)}`);
      first = false;
      continue;
    }
    first = false;
    const r = TrajectoryRecordSchema.safeParse(value);
    if (!r.success) {
      problems.push(`${source}:${line}: ${formatIssues(r.error.issues)}`);
      continue;
    }
    if (ids.has(r.data.id)) {
      problems.push(`${source}:${line}: id: duplicate id "${r.data.id}"`);
      continue;
    }
    ids.add(r.data.id);
    records.push(r.data);
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 20).join("\n");
    throw new WardenError({
      code: "DATASET_INVALID",
      message: `Invalid trajectories in ${source}:\n${shown}${problems.length > 20 ? `\n... and ${problems.length - 20} more` : ""}`,
      details: { problems },
    });
  }
  return header ? { header, records } : { records };
}

/** Writes records (and an optional header) as JSONL with sorted keys, one record per line. */
export function formatTrajectoriesJsonl(options: {
  records: readonly TrajectoryRecordInput[];
  header?: TrajectoryHeader;
}): string {
  const lines = options.header ? [stableStringify({ value: options.header })] : [];
  for (const r of options.records) lines.push(stableStringify({ value: r }));
  return `${lines.join("\n")}\n`;
}
