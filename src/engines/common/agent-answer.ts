/**
 * The guarded agent's own final answer or action, read from its output log: what the guard passes
 * through when it allows. EHRAgent logs end with "Answer:" and the answer; SeeAct's final answer is the
 * ELEMENT / ACTION / VALUE triple; anything else falls back to the caller's context or the whole output.
 */
import type { Policy } from "../../core/policy.js";
import type { Subject } from "../../core/subject.js";
import { extractSeeActAction, formatSeeActAction } from "../compiled/extractors/seeact/index.js";

/** Line terminators as a multiline regex's `^` and `$` know them. */
const LINE_BREAKS = "\n\r\u2028\u2029";
/** After "Answer:", only whitespace up to the end of the line (or of the text). */
const REST_OF_ANSWER_LINE = /[^\S\n\r\u2028\u2029]*(?:[\n\r\u2028\u2029]|$)/y;

/**
 * The text after the last line that is "Answer:" and optional whitespace (what `/^Answer:\s*$/m` finds
 * last), trimmed. Searches backwards with lastIndexOf: the marker is near the end of every EHRAgent log,
 * and a regex over the whole output on every check costs more than the rest of the answer lookup.
 */
function afterLastAnswerLine(text: string): string | undefined {
  const marker = "Answer:";
  for (let at = text.lastIndexOf(marker); at >= 0; at = at === 0 ? -1 : text.lastIndexOf(marker, at - 1)) {
    if (at > 0 && !LINE_BREAKS.includes(text[at - 1]!)) continue;
    REST_OF_ANSWER_LINE.lastIndex = at + marker.length;
    // What the marker line's trailing whitespace adds is removed by trim() anyway.
    if (REST_OF_ANSWER_LINE.test(text)) return text.slice(at + marker.length).trim();
  }
  return undefined;
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
    const answer = afterLastAnswerLine(subject.output);
    if (answer !== undefined) return answer;
  }
  if (agent === "seeact") {
    const action = seeActAnswer(subject.output);
    if (action !== undefined) return action;
  }
  return subject.output;
}
