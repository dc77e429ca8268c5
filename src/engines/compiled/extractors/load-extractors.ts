/**
 * The EHRAgent code extractor (a Python parser and interpreter, an SQL reader) and the task-category
 * classifier (its lexicon and vocabulary) are most of the compiled engine's code, yet only policies with
 * access rules, or with attribute rules, use them. A tool policy checked by `warden check` — a pre-tool
 * hook started on every action — must not pay for loading them, so they are imported when a policy that
 * needs them is first checked: the compiled engine's asynchronous entry points await
 * `loadExtractors` before the synchronous fact extraction runs. A synchronous use before that load is
 * a wiring bug, reported as an INTERNAL error (which fails the check closed), never a silent allow.
 * The library's root (src/index.ts) and the check workers register both up front (eager-extractors.ts),
 * so the engine's synchronous API works there as it always did.
 */
import { WardenError } from "../../../core/errors.js";
import type { Policy } from "../../../core/policy.js";

type EhrAgentModule = typeof import("./ehragent/index.js");
type TaskCategoryModule = typeof import("./task-category/index.js");

let ehrAgent: EhrAgentModule | undefined;
let taskCategory: TaskCategoryModule | undefined;

/** Registers modules already imported (eager-extractors.ts), so no load is needed. */
export function registerExtractors(options: {
  ehrAgent: EhrAgentModule;
  taskCategory: TaskCategoryModule;
}): void {
  ehrAgent = options.ehrAgent;
  taskCategory = options.taskCategory;
}

/** Which extractors a policy's compiled rules use: code extraction for access rules, the classifier for attribute rules. */
export function extractorsNeeded(options: { policy: Policy }): { ehrAgent: boolean; taskCategory: boolean } {
  const rules = options.policy.rules;
  return {
    ehrAgent: Boolean(rules?.access),
    taskCategory: (rules?.attributeRules?.length ?? 0) > 0,
  };
}

/**
 * Loads the extractors `policy` needs (every one with `all`), once per process; cheap once loaded. Await
 * it before the synchronous compiled-engine entry points (`assess`, `extract`, `decideFacts`).
 */
export async function loadExtractors(options: { policy?: Policy; all?: boolean }): Promise<void> {
  const needed = options.all
    ? { ehrAgent: true, taskCategory: true }
    : options.policy
      ? extractorsNeeded({ policy: options.policy })
      : { ehrAgent: false, taskCategory: false };
  if (needed.ehrAgent && !ehrAgent) ehrAgent = await import("./ehragent/index.js");
  if (needed.taskCategory && !taskCategory) taskCategory = await import("./task-category/index.js");
}

/**
 * Whether every extractor `policy` needs is loaded already, so a check may run at once (the synchronous
 * entry points, or without awaiting `loadExtractors`: a turn of the event loop per check for nothing).
 */
export function extractorsLoaded(options: { policy: Policy }): boolean {
  if (ehrAgent && taskCategory) return true;
  const needed = extractorsNeeded(options);
  return (!needed.ehrAgent || ehrAgent !== undefined) && (!needed.taskCategory || taskCategory !== undefined);
}

function notLoaded(what: string): WardenError {
  return new WardenError({
    code: "INTERNAL",
    message: `the ${what} was used before it was loaded (await loadExtractors first)`,
  });
}

/** The EHRAgent extractor, loaded by `loadExtractors`. */
export function loadedEhrAgent(): EhrAgentModule {
  if (!ehrAgent) throw notLoaded("EHRAgent code extractor");
  return ehrAgent;
}

/** The task-category classifier, loaded by `loadExtractors`. */
export function loadedTaskCategory(): TaskCategoryModule {
  if (!taskCategory) throw notLoaded("task-category classifier");
  return taskCategory;
}
