/**
 * Nesting depth of a parsed JSON value, measured without recursion. JSON.parse itself is iterative, but
 * zod, JSON.stringify and the engines' walkers recurse, so a body nested thousands of levels deep would
 * overflow the stack somewhere past the boundary. The HTTP face measures it first and answers a 400 that
 * names where the value got too deep.
 */
import { WardenError } from "../core/errors.js";

/**
 * Deepest nesting accepted in a request body (the body object itself is level 1). A check request needs
 * about six levels around the caller's own data (subject.trajectory.N.args...), so 64 leaves tool
 * arguments plenty while staying far below any recursion limit.
 */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Segments of a too-deep path shown in messages; the rest is counted, not spelled out. */
const SHOWN_SEGMENTS = 8;
const SHOWN_KEY_CHARS = 40;

interface Frame {
  value: unknown;
  depth: number;
  key: string;
  parent: Frame | undefined;
}

/**
 * The path (dot-joined, array indexes as numbers, like zod's field paths) of the first object or array
 * nested deeper than `maxDepth`, or undefined when none is.
 */
export function findTooDeep(options: { value: unknown; maxDepth: number }): string[] | undefined {
  const stack: Frame[] = [{ value: options.value, depth: 1, key: "", parent: undefined }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const { value, depth } = frame;
    if (value === null || typeof value !== "object") continue;
    if (depth > options.maxDepth) return pathOf({ frame });
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((item, index) => [String(index), item])
      : Object.entries(value);
    for (const [key, child] of entries) {
      if (child !== null && typeof child === "object") {
        stack.push({ value: child, depth: depth + 1, key, parent: frame });
      }
    }
  }
  return undefined;
}

function pathOf(options: { frame: Frame }): string[] {
  const path: string[] = [];
  for (let f: Frame | undefined = options.frame; f?.parent; f = f.parent) path.push(f.key);
  return path.reverse();
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

/** Throws INVALID_INPUT (400) naming the path when `value` nests deeper than `maxDepth`. */
export function assertJsonDepth(options: { value: unknown; maxDepth: number; what: string }): void {
  const path = findTooDeep(options);
  if (!path) return;
  const field = showPath({ path });
  throw new WardenError({
    code: "INVALID_INPUT",
    message: `${options.what} nests deeper than ${options.maxDepth} levels at ${field}; flatten that value (or start the server with a larger --max-json-depth)`,
    details: { reason: "too-deep", fields: [field], limit: options.maxDepth },
  });
}
