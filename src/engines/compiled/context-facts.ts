/**
 * The trust boundary between what the caller says and what the agent did. A check's `subject.context`
 * holds two kinds of fields:
 *
 * - FACTS about what the agent did or where it acted — they decide an allow, and whoever calls the API
 *   (possibly the agent itself) could forge them: `resources` (tables and columns read), `code` (the code
 *   the agent ran), `toolCall` / `toolCalls` (the calls it makes), `toolSchemas` (the tools' argument
 *   schemas, which give arguments their kinds: a forged schema can make a path look like text), `cwd`
 *   (the directory relative paths resolve against: a forged one moves `./x` anywhere) and `realPaths`
 *   (where the paths a command names lead, links resolved: a forged one could lead them inside an
 *   allow-list). These override
 *   extraction only when the check trusts the caller with them (`CheckTrust.contextFacts`: an API key
 *   with scope "facts", the MCP proxy, which builds them from the protocol message itself, a library
 *   guard made with `trustContextFacts`, `warden check --trust-context`, a benchmark over its own data).
 *   Otherwise the facts come from the agent's output (or trajectory); a supplied fact is only compared
 *   with the extracted one, and a disagreement — or a supplied fact the output does not show at all —
 *   leaves the fact undetermined, so the check fails closed. `toolSchemas`, `cwd` and `realPaths` have nothing to be
 *   compared with: from an untrusted caller they are ignored (and hidden from rule conditions), as if the
 *   caller had not sent them — which it could have done anyway.
 * - CALLER CONTEXT: the caller's description of the request, taken as given, like `input` itself: who the
 *   user is (`identity`, `role`, `user`, `userInfo`, `user_info`), the task (`task`, `taskId`, `site`,
 *   `trajectoryId`, `final`) and any other field a policy's conditions read as `context.…`. Whoever may
 *   send `input` may send these; restricting which policies a caller may use is the key's job.
 */
import type { CheckTrust } from "../../core/caller.js";
import type { Step, Subject } from "../../core/subject.js";
import { stableStringify } from "../../util/stable-json.js";
import { withFields } from "../../util/with-fields.js";
import { browserGymCall, isCode } from "../common/browsergym-action.js";
import { extractToolCalls, type ToolCall } from "./extractors/tool-calls/index.js";

/** Context fields that state facts about what the agent did; see the header. */
export const CONTEXT_FACT_KEYS = [
  "resources",
  "code",
  "toolCall",
  "toolCalls",
  "toolSchemas",
  "cwd",
  "realPaths",
] as const;
export type ContextFactKey = (typeof CONTEXT_FACT_KEYS)[number];

/** The sentence every undetermined fact from an untrusted caller ends with. */
export const NOT_TRUSTED = "context facts are not trusted from this caller";

export function trustsContextFacts(options: { trust?: CheckTrust | undefined }): boolean {
  return options.trust?.contextFacts === true;
}

/** The context fact keys this context supplies (present and not undefined). */
export function suppliedFacts(options: { context: Record<string, unknown> }): ContextFactKey[] {
  return CONTEXT_FACT_KEYS.filter((key) => options.context[key] !== undefined);
}

/**
 * The context as rule conditions and engines may read it: whole when the caller is trusted with facts,
 * else without the fact fields (a condition reading `context.toolCalls` or a path resolved against
 * `context.cwd` must not see what an untrusted caller claims).
 */
export function callerContext(options: {
  context: Record<string, unknown>;
  trust?: CheckTrust | undefined;
}): Record<string, unknown> {
  const { context } = options;
  if (trustsContextFacts(options) || suppliedFacts({ context }).length === 0) return context;
  // fromEntries, not assignment: an own "__proto__" key stays a key, never the copy's prototype (from
  // which context.cwd or context.toolCalls would then be read).
  return Object.fromEntries(
    Object.entries(context).filter(([key]) => !(CONTEXT_FACT_KEYS as readonly string[]).includes(key)),
  );
}

/** The subject with `callerContext` in place of its context (unchanged when nothing is dropped). */
export function withCallerContext(options: { subject: Subject; trust?: CheckTrust | undefined }): Subject {
  const { subject } = options;
  if (!subject.context) return subject;
  const context = callerContext({ context: subject.context, trust: options.trust });
  return context === subject.context ? subject : withFields({ base: subject, fields: { context } });
}

/** Whether two lists name the same calls (name and arguments), whatever their order or wire format. */
export function sameToolCalls(options: {
  a: readonly Pick<ToolCall, "name" | "args">[];
  b: readonly Pick<ToolCall, "name" | "args">[];
}): boolean {
  // The same calls, as objects, in the same order are the same calls: no canonical text is needed (a
  // check's output call and its trajectory's last step usually share their arguments object).
  const { a: left, b: right } = options;
  if (
    left.length === right.length &&
    left.every((c, i) => c.name === right[i]?.name && c.args === right[i]?.args)
  ) {
    return true;
  }
  const key = (calls: readonly Pick<ToolCall, "name" | "args">[]) =>
    calls.map((c) => stableStringify({ value: { name: c.name, args: c.args } })).sort();
  const a = key(options.a);
  const b = key(options.b);
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

/** Whether two table -> columns maps name the same tables and columns (case and order aside). */
export function sameResources(options: {
  a: Record<string, readonly string[]>;
  b: Record<string, readonly string[]>;
}): boolean {
  const canonical = (resources: Record<string, readonly string[]>) => {
    const byTable = new Map<string, Set<string>>();
    for (const [table, columns] of Object.entries(resources)) {
      const set = byTable.get(table.toLowerCase()) ?? new Set<string>();
      for (const column of columns) set.add(String(column).toLowerCase());
      byTable.set(table.toLowerCase(), set);
    }
    return [...byTable.entries()]
      .map(([table, columns]) => `${table}:${[...columns].sort().join(",")}`)
      .sort()
      .join(";");
  };
  return canonical(options.a) === canonical(options.b);
}

/**
 * The call a trajectory step shows: its action and arguments, or, when the action is a BrowserGym call
 * string (`goto("https://…")`, run as Python), the call it runs, its arguments by BrowserGym's parameter
 * names and positions (`arg0`…) with the step's own arguments over them. Undefined when the action is
 * code that is not one call Warden reads (browsergym-action.ts).
 */
export function stepCall(step: Step): ToolCall | undefined {
  if (!isCode({ text: step.action })) return { name: step.action, args: step.args, format: "plain" };
  const call = browserGymCall({ text: step.action });
  // Spreads define own properties, so an argument named __proto__ stays an argument.
  return call && { ...call, args: { ...call.args, ...step.args }, format: "plain" };
}

/** The tool calls a check judges, or why they are undetermined. */
export interface ResolvedToolCalls {
  calls: ToolCall[];
  /** Why the calls are undetermined (the check fails closed), in words; absent when determined. */
  problem?: string;
  /** Said in the trace: where the calls came from, or how a context claim was compared. */
  note?: string;
}

/**
 * The calls of the agent output, else the trajectory's last step — from a trusted caller, the context's
 * `toolCalls` / `toolCall` first. From an untrusted caller those are only compared with what the output
 * (or trajectory) shows: a disagreement, or calls the output does not show, are a problem.
 */
export function resolveToolCalls(options: {
  subject: Subject;
  trust?: CheckTrust | undefined;
}): ResolvedToolCalls {
  const { subject } = options;
  const context = subject.context ?? {};
  const claimed = context.toolCalls ?? context.toolCall;
  const trusted = trustsContextFacts(options);
  const extracted = extractToolCalls({ value: trusted ? (claimed ?? subject.output) : subject.output });
  const steps = subject.trajectory ?? [];
  const last = steps[steps.length - 1];
  const lastCall: ToolCall | undefined = last && stepCall(last);
  // What the agent shows it is doing: the output's calls, else the trajectory's last step.
  const observed = extracted.calls.length > 0 ? extracted.calls : lastCall ? [lastCall] : [];
  // The last step is judged beside the output's calls, not hidden by them: a replay then judges every
  // step, and a harmless call in the output cannot cover the step it follows.
  const calls =
    lastCall && !observed.some((c) => sameToolCalls({ a: [c], b: [lastCall] }))
      ? [...observed, lastCall]
      : observed;
  let problem: string | undefined;
  // A reading cut short (a bound, text that may hide more calls) is undetermined even when a trajectory
  // step could stand in for it: the hidden call may be the one that breaks a rule.
  if (extracted.confidence === "low" || calls.length === 0) {
    problem = extracted.reason ?? "none found in the agent output";
  }
  // Code the last step runs that is not one call Warden reads may run any call.
  if (last && !lastCall) {
    problem = `the last step's action is code that is not one call Warden can read (${JSON.stringify(last.action.slice(0, 80))})`;
  }
  if (trusted || claimed === undefined) return { calls, ...(problem ? { problem } : {}) };
  const which = context.toolCalls !== undefined ? "toolCalls" : "toolCall";
  if (calls.length === 0) {
    return {
      calls,
      problem: `the context gives ${which}, but ${NOT_TRUSTED} and the agent output shows no tool call`,
    };
  }
  if (problem) return { calls, problem };
  const stated = extractToolCalls({ value: claimed });
  if (!sameToolCalls({ a: stated.calls, b: observed })) {
    return {
      calls,
      problem: `the context's ${which} disagrees with the tool call in the agent output (${NOT_TRUSTED}, so they are compared, not taken)`,
    };
  }
  return { calls, note: `the context's ${which} agrees with the agent output (${NOT_TRUSTED}: compared)` };
}
