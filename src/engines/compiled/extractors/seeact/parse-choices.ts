/**
 * Reads SeeAct's multiple-choice question ("A. <a id=0> Cancel </a>" ... "R. None of the other options
 * match the correct element") so that an ELEMENT letter can be resolved to the element and its text.
 */
import type { SeeActChoice } from "./types.js";

/** A run of consecutive option lines, with where it sits in the text (for "closest before the answer"). */
export interface SeeActChoiceBlock {
  choices: SeeActChoice[];
  start: number;
  end: number;
}

const OPTION_LINE = /^[ \t]*([A-Z]{1,2})\.[ \t]+(\S.*?)[ \t]*$/;
const NONE_OPTION = /^none of the other options match/i;

/** SeeAct names options A..Z, then AA, AB, ... (two letters after the 26th). */
export function optionName(index: number): string {
  if (index < 26) return String.fromCharCode(65 + index);
  return String.fromCharCode(64 + Math.floor(index / 26)) + String.fromCharCode(65 + (index % 26));
}

/** Visible text of a compact SeeAct element: inner text, else the attribute words of its opening tag. */
export function visibleText(options: { content: string }): string {
  const content = options.content.trim();
  if (!content.includes("<")) return collapse(content);
  const inner = collapse(content.replace(/<[^>]*>/g, " "));
  if (inner !== "") return inner;
  const open = /^<\s*([A-Za-z][\w-]*)([^>]*)>?/.exec(content);
  if (!open) return "";
  // SeeAct writes `<input id=0 radio 31 adults />`: after the tag name come an id and the words a
  // user sees (type, label, placeholder); the id is an artefact of the page encoding, not text.
  const words = (open[2] ?? "")
    .replace(/\/\s*$/, "")
    .split(/\s+/)
    .filter((w) => w !== "" && !/^id=/i.test(w));
  return collapse(words.join(" ").replace(/["']/g, ""));
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Every block of options in `text`, in order. A block is a run of option lines whose names follow
 * SeeAct's sequence from "A"; lettered lines that do not start at "A" or skip a letter are prose.
 */
export function parseSeeActChoiceBlocks(options: { text: string }): SeeActChoiceBlock[] {
  const blocks: SeeActChoiceBlock[] = [];
  let current: SeeActChoiceBlock | null = null;
  let offset = 0;
  for (const line of options.text.split("\n")) {
    const lineStart = offset;
    offset += line.length + 1;
    const m = OPTION_LINE.exec(line.replace(/\r$/, ""));
    const letter = m?.[1];
    const content = m?.[2];
    if (letter !== undefined && content !== undefined) {
      const expected = optionName(current ? current.choices.length : 0);
      if (current && letter === expected) {
        current.choices.push(choice(letter, content));
        current.end = lineStart + line.length;
        continue;
      }
      if (letter === "A") {
        if (current) blocks.push(current);
        current = { choices: [choice(letter, content)], start: lineStart, end: lineStart + line.length };
        continue;
      }
    }
    // A blank line inside a list is tolerated; anything else ends the block.
    if (current && line.trim() !== "") {
      blocks.push(current);
      current = null;
    }
  }
  if (current) blocks.push(current);
  return blocks;
}

function choice(letter: string, content: string): SeeActChoice {
  return { letter, content, text: visibleText({ content }), isNoneOption: NONE_OPTION.test(content.trim()) };
}

/** The options of the last multiple-choice block in `text` (empty when there is none). */
export function parseSeeActChoices(options: { text: string }): SeeActChoice[] {
  const blocks = parseSeeActChoiceBlocks(options);
  return blocks.at(-1)?.choices ?? [];
}
