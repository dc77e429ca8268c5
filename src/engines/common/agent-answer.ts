/**
 * The guarded agent's own final answer or action, read from its output log: what the guard passes
 * through when it allows. EHRAgent logs end with "Answer:" and the answer; SeeAct's final answer is the
 * ELEMENT / ACTION / VALUE triple; anything else falls back to the caller's context or the whole output.
 */
import type { Policy } from "../../core/policy.js";
import type { Subject } from "../../core/subject.js";
import { extractSeeActAction, formatSeeActAction } from "../compiled/extractors/seeact/index.js";

function afterLastMarker(text: string, marker: RegExp): string | undefined {
  let last: RegExpExecArray | undefined;
  for (const m of text.matchAll(new RegExp(marker.source, `${marker.flags.replace("g", "")}g`))) {
    last = m as RegExpExecArray;
  }
  if (!last) return undefined;
  return text.slice((last.index ?? 0) + last[0].length).trim();
}

function seeActAnswer(output: string): string | undefined {
  const action = extractSeeActAction({ output });
  if (!action.action) return undefined;
  return formatSeeActAction({ element: action.element, action: action.action, value: action.value });
}

export function agentAnswer(options: { policy?: Policy; subject: Subject }): unknown {
  const { subject } = options;
  const context = subject.context ?? {};
  if ("answer" in context && context.answer !== undefined) return context.answer;
  const agent = options.policy?.agent;
  if (agent === "ehragent" || /\nAnswer:\s*\n/.test(subject.output)) {
    const answer = afterLastMarker(subject.output, /^Answer:\s*$/m);
    if (answer !== undefined) return answer;
  }
  if (agent === "seeact") {
    const action = seeActAnswer(subject.output);
    if (action !== undefined) return action;
  }
  return subject.output;
}
