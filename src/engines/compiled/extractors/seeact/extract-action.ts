/**
 * Deterministic parse of a SeeAct-style output log into ELEMENT / ACTION / VALUE. Handles the shapes
 * real logs take ("(Final Answer)" or "Final Answer:" headings, lower-case keys, markdown bold, the
 * one-line "ELEMENT: B, ACTION: CLICK, VALUE: None" form, several answers in one log) and never throws:
 * anything it cannot read lowers the confidence and says why.
 */
import { parseSeeActChoiceBlocks } from "./parse-choices.js";
import type { Confidence, SeeActAction, SeeActChoice } from "./types.js";

/** Actions SeeAct (offline and online variants) can answer with. */
export const SEEACT_ACTIONS = [
  "CLICK",
  "TYPE",
  "SELECT",
  "PRESS ENTER",
  "HOVER",
  "SCROLL UP",
  "SCROLL DOWN",
  "NEW TAB",
  "CLOSE TAB",
  "GO BACK",
  "GO FORWARD",
  "GOTO",
  "TERMINATE",
  "NONE",
] as const;

const ACTION_ALIASES: Record<string, string> = {
  PRESS_ENTER: "PRESS ENTER",
  ENTER: "PRESS ENTER",
  "GO TO": "GOTO",
  SCROLL_UP: "SCROLL UP",
  SCROLL_DOWN: "SCROLL DOWN",
  GO_BACK: "GO BACK",
  GO_FORWARD: "GO FORWARD",
  NEW_TAB: "NEW TAB",
  CLOSE_TAB: "CLOSE TAB",
};

// Longest first, so "PRESS ENTER" wins over a bare prefix and "SCROLL UP" is not read as something shorter.
const KNOWN_ACTIONS = [...SEEACT_ACTIONS, ...Object.keys(ACTION_ALIASES)].sort((a, b) => b.length - a.length);

/** Actions whose VALUE carries the content of the step. */
const VALUE_ACTIONS = new Set(["TYPE", "SELECT"]);

// A key is a whole word followed by a colon, allowing markdown bold around either ("**ELEMENT:** B").
const KEY = /(?<![A-Za-z_])(ELEMENT|ACTION|VALUE)\s*\**\s*:\s*\**[ \t]*/gi;

/** Keys of one answer sit on consecutive lines or on one line; a larger gap starts a new answer. */
const MAX_LINE_GAP = 3;

type Slot = "element" | "action" | "value";

interface RawGroup {
  element?: string;
  action?: string;
  value?: string;
  /** Offset of the group's first key, used to find the choice list that belongs to it. */
  start: number;
  lastLine: number;
}

function lineOf(text: string, index: number): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

function clean(raw: string): string {
  let s = raw.trim();
  s = s.replace(/^\*+|\*+$/g, "").trim();
  s = s.replace(/[,;]+$/, "").trim();
  const quoted = /^(["'`“‘])(.*)(["'`”’])$/s.exec(s);
  if (quoted?.[2] !== undefined) s = quoted[2].trim();
  return s;
}

function readGroups(text: string): RawGroup[] {
  const keys: { slot: Slot; index: number; valueStart: number }[] = [];
  for (const m of text.matchAll(KEY)) {
    const word = (m[1] ?? "").toLowerCase() as Slot;
    keys.push({ slot: word, index: m.index, valueStart: m.index + m[0].length });
  }
  const groups: RawGroup[] = [];
  let current: RawGroup | null = null;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    const next = keys[k + 1];
    const lineEnd = text.indexOf("\n", key.valueStart);
    let end = lineEnd === -1 ? text.length : lineEnd;
    if (next && next.index < end) end = next.index;
    const value = clean(text.slice(key.valueStart, end));
    const line = lineOf(text, key.index);
    const continues =
      current !== null && current[key.slot] === undefined && line - current.lastLine <= MAX_LINE_GAP;
    if (!continues) {
      current = { start: key.index, lastLine: line };
      groups.push(current);
    }
    const group = current as RawGroup;
    group[key.slot] = value;
    group.lastLine = line;
  }
  return groups;
}

/** Upper-case canonical action, and whether it is one SeeAct knows. */
export function normalizeSeeActAction(options: { action: string }): { action: string; known: boolean } {
  const raw = options.action
    .toUpperCase()
    .replace(/[^A-Z_ ]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  for (const known of KNOWN_ACTIONS) {
    if (raw === known || raw.startsWith(`${known} `)) {
      return { action: ACTION_ALIASES[known] ?? known, known: true };
    }
  }
  return { action: raw, known: false };
}

function normalizeValue(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const v = raw.trim();
  if (v === "" || /^(none|null|n\/a|na|nil|-)\.?$/i.test(v)) return null;
  return v;
}

/** "B", "(B)", "B.", "B. <button ...>", "Option B" -> "B"; anything else is a description. */
function letterOf(element: string, choices: SeeActChoice[]): string | null {
  const m = /^\(?([A-Z]{1,2})\)?(?:[.:)\]]\s*(.*))?$/s.exec(element);
  if (m?.[1]) return m[1];
  const named = /^(?:option|choice)\s+([A-Z]{1,2})\b/i.exec(element);
  if (named?.[1]) return named[1].toUpperCase();
  // A lone lower-case letter is only a letter when there is a list for it to point into.
  if (/^[a-z]$/.test(element) && choices.length > 0) return element.toUpperCase();
  return null;
}

function isPlausible(group: RawGroup): boolean {
  return (
    group.element !== undefined &&
    group.element !== "" &&
    group.action !== undefined &&
    normalizeSeeActAction({ action: group.action }).known
  );
}

function choicesFor(
  text: string,
  start: number,
  explicit: string | SeeActChoice[] | undefined,
): SeeActChoice[] {
  if (Array.isArray(explicit)) return explicit;
  if (typeof explicit === "string") return parseSeeActChoiceBlocks({ text: explicit }).at(-1)?.choices ?? [];
  const blocks = parseSeeActChoiceBlocks({ text });
  // The question an answer replies to comes before it; with several steps in one log, the closest one.
  const before = blocks.filter((b) => b.start < start);
  return (before.at(-1) ?? blocks.at(-1))?.choices ?? [];
}

function empty(confidence: Confidence, reason: string): SeeActAction {
  return {
    element: null,
    elementChoice: null,
    elementText: null,
    action: null,
    value: null,
    confidence,
    reason,
  };
}

const RANK: Record<Confidence, number> = { high: 3, medium: 2, low: 1, none: 0 };
function lower(a: Confidence, b: Confidence): Confidence {
  return RANK[a] <= RANK[b] ? a : b;
}

/**
 * ELEMENT / ACTION / VALUE of the final answer in a SeeAct output log. `choices` may give the
 * multiple-choice text (or parsed options) separately; otherwise the list is read from `output`.
 */
export function extractSeeActAction(options: {
  output: unknown;
  choices?: string | SeeActChoice[];
}): SeeActAction {
  const { output } = options;
  if (typeof output !== "string") return empty("none", "the output is not text");
  if (output.trim() === "") return empty("none", "the output is empty");
  const groups = readGroups(output);
  if (groups.length === 0) return empty("none", "no ELEMENT/ACTION/VALUE answer in the output");

  // Take the final complete answer; instruction templates ("ELEMENT: The uppercase letter of your
  // choice") and stray "action:" words in prose do not name a known action and are skipped.
  const group = [...groups].reverse().find(isPlausible) ?? groups.at(-1)!;
  const reasons: string[] = [];
  let confidence: Confidence = "high";
  const note = (level: Confidence, why: string) => {
    confidence = lower(confidence, level);
    reasons.push(why);
  };

  const choices = choicesFor(output, group.start, options.choices);
  const element = group.element !== undefined && group.element !== "" ? group.element : null;
  let action: string | null = null;
  if (group.action !== undefined && group.action !== "") {
    const normalized = normalizeSeeActAction({ action: group.action });
    action = normalized.action === "" ? null : normalized.action;
    if (action !== null && !normalized.known) {
      // One unknown word may be a newer action; a sentence is prose or a template, not an answer.
      const words = action.split(" ").length;
      note(words <= 2 ? "medium" : "low", `unknown action "${action}"`);
    }
  }
  if (action === null) note("low", "ACTION is missing");
  if (element === null) note("low", "ELEMENT is missing");
  if (group.value === undefined && action !== null) note("medium", "VALUE is missing");
  const value = normalizeValue(group.value);
  if (action !== null && VALUE_ACTIONS.has(action) && value === null)
    note("medium", `${action} without a VALUE`);

  let elementLetter: string | null = null;
  let elementChoice: string | null = null;
  let elementText: string | null = null;
  if (element !== null) {
    elementLetter = letterOf(element, choices);
    if (elementLetter === null) {
      elementText = element;
    } else if (choices.length === 0) {
      reasons.push(`no multiple-choice list to resolve ELEMENT ${elementLetter}`);
    } else {
      const picked = choices.find((c) => c.letter === elementLetter);
      if (!picked) {
        note("medium", `ELEMENT ${elementLetter} is not among the ${choices.length} listed choices`);
      } else {
        elementChoice = picked.content;
        elementText = picked.text;
        if (picked.isNoneOption)
          note("medium", `ELEMENT ${elementLetter} is the "none of the other options" choice`);
      }
    }
  }
  if (groups.length > 1) reasons.push(`took the last of ${groups.length} answers in the log`);

  return {
    element: elementLetter ?? element,
    elementChoice,
    elementText,
    action,
    value,
    confidence,
    ...(reasons.length > 0 ? { reason: reasons.join("; ") } : {}),
  };
}
