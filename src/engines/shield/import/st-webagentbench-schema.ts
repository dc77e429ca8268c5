/**
 * The shape of ST-WebAgentBench's task file (`test.raw.json`): tasks with an intent, sites and a list of
 * structured policies, each with an `eval` block saying how a violation shows in a trajectory. Parsing
 * is per record: a malformed task or policy is reported by id and skipped, the rest still loads. The
 * original release nests some policies one level deep in lists; they are flattened here, and every
 * policy keeps its position in the flattened list (`index`), which is how rules and labels refer to it.
 */
import { z } from "zod";
import { formatIssues } from "../../../core/validate.js";

const optionalString = z.string().nullish();

export const StSequenceItemSchema = z.looseObject({
  action_type: z.string().min(1),
  action_selector: optionalString,
  element_selector: optionalString,
  element_text: optionalString,
});
export type StSequenceItem = z.output<typeof StSequenceItemSchema>;

export const StHtmlTargetSchema = z.looseObject({
  url: z.string(),
  locator: z.string().nullish(),
  required_contents: z.record(z.string(), z.unknown()),
});
export type StHtmlTarget = z.output<typeof StHtmlTargetSchema>;

export const StEvalSchema = z.looseObject({
  eval_types: z.array(z.string()).min(1, "needs at least one eval type"),
  must_include: optionalString,
  must_include_action: optionalString,
  url_note: optionalString,
  reference_url: optionalString,
  element_selector: optionalString,
  element_selectors: z.array(z.string()).nullish(),
  url: optionalString,
  locator: optionalString,
  required_contents: z.record(z.string(), z.unknown()).nullish(),
  action_sequence: z.array(StSequenceItemSchema).nullish(),
  matching_type: optionalString,
  action_type: optionalString,
  global_count: z.number().int().nullish(),
  global_count_less_than: z.number().int().nullish(),
  only_fill: z.array(z.union([z.string(), z.number()]).transform(String)).nullish(),
  sensitive_data: optionalString,
  program_html: z.array(StHtmlTargetSchema).nullish(),
  check_absence: z.boolean().nullish(),
  leak_only: z.boolean().nullish(),
  check_action_args: z.boolean().nullish(),
});
export type StEval = z.output<typeof StEvalSchema>;

export const StPolicySchema = z.looseObject({
  policy_template_id: z.string().min(1),
  policy_template: optionalString,
  description: z.string(),
  policy_category: optionalString,
  source: optionalString,
  eval: StEvalSchema,
});

export type StPolicy = z.output<typeof StPolicySchema> & {
  /** Position in the task's flattened policy list. */
  index: number;
};

const StTaskHeadSchema = z.looseObject({
  task_id: z.number().int().nonnegative(),
  intent: z.string(),
  sites: z.array(z.string()).default([]),
  start_url: z.string().default(""),
  intent_template_id: z.number().int().nullish(),
  instantiation_dict: z.record(z.string(), z.unknown()).nullish(),
  policies: z.array(z.unknown()),
});

export interface StTask {
  task_id: number;
  intent: string;
  sites: string[];
  start_url: string;
  intent_template_id?: number | null;
  instantiation_dict?: Record<string, unknown> | null;
  /** The task's policies, flattened, each with its index. */
  policies: StPolicy[];
  /** Any other field of the record, kept as it is. */
  [key: string]: unknown;
}

export interface StMalformed {
  /** "task 12", "task 12 policy 3" or "record #5" (no usable task_id). */
  id: string;
  taskId?: number;
  index?: number;
  reason: string;
}

export type StVersion = "latest" | "v1";

export interface StParseResult {
  tasks: StTask[];
  malformed: StMalformed[];
  /** Policies that sat in a nested list (the original release's layout). */
  nestedPolicies: number;
  /** Version the content looks like: "v1" when it has nested policy lists or is_fake_policy. */
  detectedVersion: StVersion;
}

/** Parses the task list record by record; never throws on content, only on a non-array. */
export function parseStTasks(options: { value: unknown }): StParseResult {
  const { value } = options;
  const tasks: StTask[] = [];
  const malformed: StMalformed[] = [];
  let nestedPolicies = 0;
  let fake = false;
  if (!Array.isArray(value)) {
    return {
      tasks,
      malformed: [{ id: "(root)", reason: "expected a JSON array of tasks" }],
      nestedPolicies,
      detectedVersion: "latest",
    };
  }
  value.forEach((record, position) => {
    const head = StTaskHeadSchema.safeParse(record);
    if (!head.success) {
      const rawId = (record as { task_id?: unknown } | null)?.task_id;
      const id = typeof rawId === "number" ? `task ${rawId}` : `record #${position}`;
      malformed.push({
        id,
        ...(typeof rawId === "number" ? { taskId: rawId } : {}),
        reason: formatIssues(head.error.issues),
      });
      return;
    }
    const { policies: rawPolicies, ...rest } = head.data as z.output<typeof StTaskHeadSchema> & {
      task_id: number;
      intent: string;
      sites: string[];
      start_url: string;
    };
    const flat: unknown[] = [];
    for (const entry of rawPolicies) {
      if (Array.isArray(entry)) {
        nestedPolicies += entry.length;
        flat.push(...entry);
      } else flat.push(entry);
    }
    const policies: StPolicy[] = [];
    flat.forEach((raw, index) => {
      const parsed = StPolicySchema.safeParse(raw);
      if (!parsed.success) {
        malformed.push({
          id: `task ${rest.task_id} policy ${index}`,
          taskId: rest.task_id,
          index,
          reason: formatIssues(parsed.error.issues),
        });
        return;
      }
      if (parsed.data.eval.eval_types.includes("is_fake_policy")) fake = true;
      policies.push({ ...parsed.data, index });
    });
    tasks.push({ ...rest, policies });
  });
  return { tasks, malformed, nestedPolicies, detectedVersion: nestedPolicies > 0 || fake ? "v1" : "latest" };
}
