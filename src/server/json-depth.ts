/**
 * Nesting depth of a JSON text, measured before it is parsed and without recursion. JSON.parse is
 * iterative but slow on nesting (about a second and a half for a megabyte of "["), and zod,
 * JSON.stringify and the engines' walkers recurse, so a body nested thousands of levels deep would stall
 * the event loop or overflow the stack past the boundary. The HTTP face scans the text first (one linear
 * pass) and answers a 400 that names where the value got too deep.
 */
import { WardenError } from "../core/errors.js";
import { nestsDeeperThan } from "../util/json-brackets.js";

/**
 * Deepest nesting accepted in a request body (the body object itself is level 1). A check request needs
 * about six levels around the caller's own data (subject.trajectory.N.args...), so 64 leaves tool
 * arguments plenty while staying far below any recursion limit.
 */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Segments of a too-deep path shown in messages; the rest is counted, not spelled out. */
const SHOWN_SEGMENTS = 8;
const SHOWN_KEY_CHARS = 40;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** An open object or array: where in it the scan is (array index, or the text span of the current key). */
interface Frame {
  array: boolean;
  index: number;
  keyStart: number;
  keyEnd: number;
  expectKey: boolean;
}

/**
 * The path (array indexes as numbers, like zod's field paths) of the first object or array in `text`
 * nested deeper than `maxDepth`, or undefined when none is. Meant for text that is then parsed: on text
 * that is not JSON the answer means nothing, and the parse reports the error.
 */
export function findTooDeep(options: { text: string; maxDepth: number }): string[] | undefined {
  // Every request body is scanned, nearly none is too deep: count levels first, name the path only then.
  const { text, maxDepth } = options;
  if (!nestsDeeperThan({ text, limit: maxDepth })) return undefined;
  const frames: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      i = endOfString({ text, start });
      const top = frames.at(-1);
      if (top?.expectKey) Object.assign(top, { keyStart: start, keyEnd: i, expectKey: false });
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (frames.length >= maxDepth) return pathOf({ text, frames });
      const array = c === OPEN_BRACKET;
      frames.push({ array, index: 0, keyStart: -1, keyEnd: -1, expectKey: !array });
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      frames.pop();
    } else if (c === COMMA) {
      const top = frames.at(-1);
      if (top?.array) top.index++;
      else if (top) top.expectKey = true;
    }
  }
  return undefined;
}

/** Index of the quote that closes the string opened at `start` (the text's end if none does). */
function endOfString(options: { text: string; start: number }): number {
  const { text } = options;
  for (let j = options.start + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j;
  }
  return text.length;
}

function pathOf(options: { text: string; frames: readonly Frame[] }): string[] {
  return options.frames.map((frame) => {
    if (frame.array) return String(frame.index);
    const quoted = options.text.slice(frame.keyStart, frame.keyEnd + 1);
    try {
      return String(JSON.parse(quoted));
    } catch {
      return quoted;
    }
  });
}

/** A path for a message: the first segments, each cut short, then how many levels were left out. */
export function showPath(options: { path: readonly string[] }): string {
  const { path } = options;
  if (path.length === 0) return "(body)";
  const shown = path
    .slice(0, SHOWN_SEGMENTS)
    .map((key) => (key.length > SHOWN_KEY_CHARS ? `${key.slice(0, SHOWN_KEY_CHARS)}…` : key))
    .join(".");
  const rest = path.length - SHOWN_SEGMENTS;
  return rest > 0 ? `${shown}.…(${rest} more levels)` : shown;
}

/** Throws INVALID_INPUT (400) naming the path when the JSON `text` nests deeper than `maxDepth`. */
export function assertJsonDepth(options: { text: string; maxDepth: number; what: string }): void {
  const path = findTooDeep(options);
  if (!path) return;
  const field = showPath({ path });
  throw new WardenError({
    code: "INVALID_INPUT",
    message: `${options.what} nests deeper than ${options.maxDepth} levels at ${field}; flatten that value (or start the server with a larger --max-json-depth)`,
    details: { reason: "too-deep", fields: [field], limit: options.maxDepth },
  });
}
