/**
 * Imports ST-WebAgentBench's structured policies into Warden's policy artifact for the shield: every
 * benchmark policy becomes predicates with bindings (shared across tasks when identical) and one LTLf
 * rule scoped to its task, or a failure with a precise reason; the report counts both per eval type.
 * The per-policy semantics are documented in st-webagentbench-compile.ts.
 *
 * Rule ids are `stwab.t<task_id>.p<index>` where index is the policy's position in the task's
 * flattened policy list — the same reference the trajectory suite's labels use (`policyRef`).
 *
 * Every policy lands in exactly one count: compiled, failed (with a reason), skipped (an inverted
 * policy, below) or decoy (v1's is_fake_policy, which the benchmark's evaluator never reports as
 * violated: kept as a weight-0 informational rule, never counted as compiled).
 *
 * Inverted policies (st-webagentbench-inverted.ts): an is_program_html policy that leaves
 * check_absence to the evaluator's default although the task (or its own text) asks for the state
 * the default forbids. They are always listed in the report (count and rule ids). By default they are
 * SKIPPED, not compiled: a guard enforcing the literal reading would refuse every correct run of the
 * task — exactly what the user asked — so it would only ever block legitimate work, and the intended
 * reading (the state is required) is a task-completion check, not a safety rule, that the benchmark
 * does not evaluate as one. `inverted: "evaluator"` compiles them as the official evaluator reads them
 * (to reproduce its scores), still flagged: the rule's meta carries `inverted` and the reason.
 */
import type { Clause, Policy, TemporalRule } from "../../../core/policy.js";
import { PolicySchema } from "../../../core/policy.js";
import { parseWith } from "../../../core/validate.js";
import { atoms as ltlAtoms, parseLtl } from "../ltl/index.js";
import { createPredicateSet } from "./predicate-set.js";
import { compileStPolicy } from "./st-webagentbench-compile.js";
import { invertedReading, type StInversion } from "./st-webagentbench-inverted.js";
import {
  parseStTasks,
  type StMalformed,
  type StPolicy,
  type StTask,
  type StVersion,
} from "./st-webagentbench-schema.js";

export interface StImportFailure {
  taskId: number;
  index: number;
  evalType: string;
  reason: string;
}

export interface StEvalTypeCounts {
  total: number;
  compiled: number;
  failed: number;
  skipped: number;
  decoys: number;
}

/** What happens to inverted policies: skipped (default) or compiled as the evaluator reads them. */
export type StInvertedMode = "skip" | "evaluator";

export interface StInvertedPolicy extends StInversion {
  id: string;
  taskId: number;
  index: number;
}

export interface StImportReport {
  version: StVersion;
  tasks: number;
  /** compiled + failed + skipped + decoys. */
  total: number;
  compiled: number;
  failed: number;
  /** Inverted policies left out (mode "skip"). */
  skipped: number;
  /** is_fake_policy decoys: informational weight-0 rules, not counted as compiled. */
  decoys: { count: number; ids: string[] };
  /** Policies whose literal (evaluator's) reading inverts the task's or the policy's intent. */
  inverted: { mode: StInvertedMode; count: number; ids: string[]; policies: StInvertedPolicy[] };
  byEvalType: Record<string, StEvalTypeCounts>;
  failures: StImportFailure[];
  /** Records that did not validate (their policies are counted as failed when their id is known). */
  malformed: StMalformed[];
  predicates: number;
}

export interface StImportResult {
  policy: Policy;
  report: StImportReport;
}

/** The rule id of a benchmark policy. */
export function stRuleId(options: { taskId: number; index: number }): string {
  return `stwab.t${options.taskId}.p${options.index}`;
}

const SPECIFICATION = [
  "A web agent acting for a user in web applications (GitLab, SuiteCRM, a shopping admin panel) through",
  "BrowserGym actions: click, fill, select_option, press, hover, scroll, goto, go_back, send_msg_to_user",
  "(a message to the user) and answer (the final answer). Each step records the action, its element",
  "(text, selector), the typed value, the page URL and what the agent observed on the page.",
].join(" ");

type Outcome = "compiled" | "failed" | "skipped" | "decoys";

function bump(report: StImportReport, evalType: string, outcome: Outcome): void {
  const entry = report.byEvalType[evalType] ?? { total: 0, compiled: 0, failed: 0, skipped: 0, decoys: 0 };
  entry.total += 1;
  entry[outcome] += 1;
  report.byEvalType[evalType] = entry;
  report.total += 1;
  if (outcome === "decoys") report.decoys.count += 1;
  else report[outcome] += 1;
}

function sourceOf(task: StTask, policy: StPolicy, version: StVersion): string {
  const description = policy.description.trim() || policy.policy_template_id;
  return `${description} [template ${policy.policy_template_id}; ST-WebAgentBench ${version}, task ${task.task_id}, policy ${policy.index}]`;
}

/**
 * Compiles the benchmark's tasks (the parsed test.raw.json array, nested policy lists allowed) into a
 * policy artifact and an import report. `version` picks the release's evaluator semantics where they
 * differ (default: detected from the content — nested lists or is_fake_policy mean v1).
 */
export function importStWebAgentBench(options: {
  tasks: unknown;
  version?: StVersion;
  name?: string;
  /** Inverted policies: "skip" (default) or "evaluator" (compiled as the evaluator reads them). */
  inverted?: StInvertedMode;
}): StImportResult {
  const invertedMode = options.inverted ?? "skip";
  const parsed = parseStTasks({ value: options.tasks });
  const version = options.version ?? parsed.detectedVersion;
  const preds = createPredicateSet();
  const rules: TemporalRule[] = [];
  const clauses: Clause[] = [];
  const used = new Set<string>();
  const requests: string[] = [];
  const report: StImportReport = {
    version,
    tasks: parsed.tasks.length,
    total: 0,
    compiled: 0,
    failed: 0,
    skipped: 0,
    decoys: { count: 0, ids: [] },
    inverted: { mode: invertedMode, count: 0, ids: [], policies: [] },
    byEvalType: {},
    failures: [],
    malformed: parsed.malformed,
    predicates: 0,
  };

  const tasks = [...parsed.tasks].sort((a, b) => a.task_id - b.task_id);
  for (const task of tasks) {
    for (const policy of task.policies) {
      const evalType = policy.eval.eval_types[0]!;
      const result = compileStPolicy({ preds, version, task, policy });
      let reason = result.ok ? "" : result.reason;
      if (result.ok) {
        try {
          const names = ltlAtoms({ ast: parseLtl({ formula: result.formula }) });
          const unknown = names.filter((n) => !preds.has(n));
          if (unknown.length > 0) reason = `formula uses unknown predicates: ${unknown.join(", ")}`;
        } catch (error) {
          reason = `formula does not parse: ${(error as Error).message}`;
        }
      }
      if (!result.ok || reason !== "") {
        report.failures.push({ taskId: task.task_id, index: policy.index, evalType, reason });
        bump(report, evalType, "failed");
        continue;
      }
      const id = stRuleId({ taskId: task.task_id, index: policy.index });
      const decoy = evalType === "is_fake_policy";
      const inversion = decoy ? undefined : invertedReading({ task, policy });
      if (inversion) {
        report.inverted.count += 1;
        report.inverted.ids.push(id);
        report.inverted.policies.push({ id, taskId: task.task_id, index: policy.index, ...inversion });
        if (invertedMode === "skip") {
          bump(report, evalType, "skipped");
          continue;
        }
        result.notes.push(`inverted reading, compiled as the evaluator reads it: ${inversion.reason}`);
      }
      if (decoy) report.decoys.ids.push(id);
      bump(report, evalType, decoy ? "decoys" : "compiled");
      for (const p of result.predicates) used.add(p);
      const description = policy.description.trim() || policy.policy_template_id;
      if (!requests.includes(description)) requests.push(description);
      const actionPredicates = result.predicates.filter((p) => preds.get(p)?.kind === "action");
      rules.push({
        id,
        formula: result.formula,
        description,
        type: actionPredicates.length > 0 ? "action" : "physical",
        weight: result.weight,
        effect: result.effect,
        message: result.message,
        countermeasure: result.countermeasure,
        source: sourceOf(task, policy, version),
        scope: `task:${task.task_id}`,
        check: result.check,
        meta: {
          benchmark: "st-webagentbench",
          version,
          evalType,
          taskId: task.task_id,
          policyIndex: policy.index,
          templateId: policy.policy_template_id,
          ...(policy.policy_category ? { category: policy.policy_category } : {}),
          ...(policy.source ? { policySource: policy.source } : {}),
          ...(task.sites.length > 0 ? { sites: task.sites } : {}),
          ...(result.notes.length > 0 ? { notes: result.notes } : {}),
          ...(inversion ? { inverted: { basis: inversion.basis, values: inversion.values } } : {}),
          ...(decoy ? { decoy: true } : {}),
        },
      });
      clauses.push({
        id: `clause.${id}`,
        text: description,
        definitions: {},
        scope: `task:${task.task_id}`,
        document: `ST-WebAgentBench test.raw.json (${version})`,
        reference: `task ${task.task_id}, policy ${policy.index} (${[policy.policy_template_id, policy.policy_category, policy.source].filter(Boolean).join(", ")})`,
      });
    }
  }
  // Policies of records that did not validate still count, so the totals match the file.
  for (const m of parsed.malformed) {
    if (m.taskId !== undefined && m.index !== undefined) {
      report.failures.push({
        taskId: m.taskId,
        index: m.index,
        evalType: "(malformed)",
        reason: `malformed policy: ${m.reason}`,
      });
      bump(report, "(malformed)", "failed");
    }
  }

  const predicates = preds.list().filter((p) => used.has(p.name));
  report.predicates = predicates.length;
  const policy = parseWith({
    schema: PolicySchema,
    value: {
      kind: "warden.policy",
      name: options.name ?? `st-webagentbench-${version}`,
      version: "1",
      description: `ST-WebAgentBench (${version}) safety and trust policies compiled into predicates and LTLf rules: ${report.compiled} of ${report.total} policies, ${predicates.length} predicates${report.decoys.count > 0 ? `; ${report.decoys.count} decoy policies kept as informational weight-0 rules` : ""}${report.inverted.count > 0 ? `; ${report.inverted.count} policies whose literal reading inverts their intent ${invertedMode === "skip" ? "skipped" : "compiled as the evaluator reads them"} (${report.inverted.ids.join(", ")})` : ""}.`,
      agent: "web",
      specification: SPECIFICATION,
      requests: requests.join("\n"),
      rules: {
        vocabulary: {
          actions: [
            "click",
            "fill",
            "select_option",
            "press",
            "hover",
            "scroll",
            "goto",
            "go_back",
            "send_msg_to_user",
            "answer",
          ],
        },
        predicates,
        temporalRules: rules,
        clauses,
      },
    },
    what: "imported ST-WebAgentBench policy",
    code: "INTERNAL",
  });
  return { policy, report };
}
