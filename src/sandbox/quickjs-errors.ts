/**
 * Turns what a guardrail program threw inside QuickJS into a sandbox error code and a message written
 * for the model that has to fix the program: the error, the program line it happened on (with the line
 * itself), a "did you mean" for a misspelt function, and the stack.
 */
import { closest, distance } from "fastest-levenshtein";
import type { ErrorCode } from "../core/errors.js";
import { PROGRAM_FILE } from "./quickjs-files.js";

/** What the boot code's `describe` reports about a thrown value. */
export interface ThrownValue {
  /** Whether it was an Error object (else `message` is the printed value). */
  isError: boolean;
  name: string;
  message: string;
  stack: string;
}

export interface StackFrame {
  /** Function name, absent for a frame without one (top-level parse errors). */
  fn?: string;
  file: string;
  line: number;
  column?: number;
}

const MAX_MESSAGE_CHARS = 2_000;
const MAX_FRAMES = 8;

export function parseStack(options: { stack: string }): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const raw of options.stack.split("\n")) {
    const line = raw.trim();
    if (!line.startsWith("at ")) continue;
    const named = /^at (.+?) \((.+?):(\d+)(?::(\d+))?\)$/.exec(line);
    if (named) {
      frames.push({
        fn: named[1]!,
        file: named[2]!,
        line: Number(named[3]),
        ...(named[4] ? { column: Number(named[4]) } : {}),
      });
      continue;
    }
    const bare = /^at (.+?):(\d+)(?::(\d+))?$/.exec(line);
    if (bare) {
      frames.push({
        file: bare[1]!,
        line: Number(bare[2]),
        ...(bare[3] ? { column: Number(bare[3]) } : {}),
      });
    }
  }
  return frames;
}

function clip(text: string, max = MAX_MESSAGE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** "  4 | const x = CheckAcess(a, b);" with a caret under the column when known. */
export function sourceExcerpt(options: { code: string; line: number; column?: number }): string {
  const lines = options.code.split("\n");
  const text = lines[options.line - 1];
  if (text === undefined) return "";
  const gutter = `${options.line} | `;
  const shown = clip(text.replace(/\r$/, ""), 200);
  let out = `  ${gutter}${shown}`;
  if (options.column !== undefined && options.column >= 1 && options.column <= shown.length + 1) {
    out += `\n  ${" ".repeat(gutter.length - 2)}| ${" ".repeat(options.column - 1)}^`;
  }
  return out;
}

function location(frame: StackFrame): string {
  return frame.column === undefined ? `line ${frame.line}` : `line ${frame.line}, column ${frame.column}`;
}

function suggestion(options: { thrown: ThrownValue; names: readonly string[] }): string {
  if (options.thrown.name !== "ReferenceError" || options.names.length === 0) return "";
  const match = /^'?([A-Za-z_$][\w$]*)'? is not defined/.exec(options.thrown.message);
  if (!match) return "";
  const missing = match[1]!;
  const best = closest(missing, options.names as string[]);
  // A transposed pair costs 2 edits, so longer names get 2 (or a quarter of their length).
  const limit = missing.length <= 3 ? 1 : Math.max(2, Math.floor(missing.length / 4));
  if (best === missing || distance(missing, best) > limit) return "";
  return ` (did you mean ${best}?)`;
}

export function isMemoryError(thrown: ThrownValue): boolean {
  return thrown.isError && /out of memory|string too long/i.test(thrown.message);
}

export function isStackError(thrown: ThrownValue): boolean {
  return thrown.isError && /stack overflow|maximum call stack/i.test(thrown.message);
}

/** Stack lines with runs of the same frame (deep recursion) folded into one line. */
function compactStack(lines: readonly string[]): string {
  const runs: Array<{ line: string; count: number }> = [];
  for (const line of lines) {
    const last = runs[runs.length - 1];
    if (last && last.line === line) last.count++;
    else runs.push({ line, count: 1 });
  }
  const shown = runs
    .slice(0, MAX_FRAMES)
    .map((r) => (r.count > 1 ? `    ${r.line} (repeated ${r.count} times)` : `    ${r.line}`));
  if (runs.length > MAX_FRAMES) shown.push(`    ... ${runs.length - MAX_FRAMES} more frames`);
  return shown.join("\n");
}

/** A parse error of the program itself (not a SyntaxError thrown at run time by JSON.parse or eval). */
export function isProgramSyntaxError(thrown: ThrownValue): boolean {
  if (!thrown.isError || thrown.name !== "SyntaxError") return false;
  const first = parseStack({ stack: thrown.stack })[0];
  return first !== undefined && first.fn === undefined && first.file === PROGRAM_FILE;
}

/**
 * Describes a thrown value: "ReferenceError: 'CheckAcess' is not defined (line 4, column 3) (did you
 * mean CheckAccess?)", the program line, and the stack.
 */
export function describeThrown(options: {
  thrown: ThrownValue;
  code: string;
  /** Names the program may call (toolbox functions, print, finish), for "did you mean". */
  names?: readonly string[];
}): string {
  const { thrown, code } = options;
  if (!thrown.isError) {
    return `Uncaught exception: the program threw ${clip(thrown.message, 500)} (a value that is not an Error object; throw new Error("...") to get a line number)`;
  }
  const frames = parseStack({ stack: thrown.stack });
  const inProgram = frames.find((f) => f.file === PROGRAM_FILE);
  const top = frames[0];
  let where = "";
  if (top && top.file !== PROGRAM_FILE && top.fn && top.fn !== "<eval>" && inProgram) {
    where = ` (in ${top.fn}, called at ${location(inProgram)})`;
  } else if (inProgram) {
    where = ` (${location(inProgram)})`;
  }
  const head = `${thrown.name}: ${clip(thrown.message)}${where}${suggestion({ thrown, names: options.names ?? [] })}`;
  const parts = [head];
  if (inProgram) {
    const excerpt = sourceExcerpt({
      code,
      line: inProgram.line,
      ...(inProgram.column === undefined ? {} : { column: inProgram.column }),
    });
    if (excerpt) parts.push(excerpt);
  }
  if (isProgramSyntaxError(thrown) && /^\s*(import|export)\b/m.test(code)) {
    parts.push(
      "Note: the program runs as a plain script; import, export and require are not available (the toolbox functions are already defined).",
    );
  }
  const stackLines = thrown.stack
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("at "));
  if (stackLines.length > 1) parts.push(`Stack:\n${compactStack(stackLines)}`);
  return parts.join("\n");
}

/** The error code and message for a value the program (or its asynchronous jobs) threw. */
export function classifyThrown(options: {
  thrown: ThrownValue;
  code: string;
  names?: readonly string[];
  limits: { memoryBytes: number; stackBytes: number };
}): { code: ErrorCode; message: string } {
  const { thrown } = options;
  const detail = describeThrown(options);
  if (isMemoryError(thrown)) {
    return {
      code: "SANDBOX_MEMORY",
      message: `Memory limit exceeded: the program needs more than ${formatBytes(options.limits.memoryBytes)}. ${detail}`,
    };
  }
  if (isStackError(thrown)) {
    return {
      code: "SANDBOX_LIMIT",
      message: `Stack limit exceeded (${formatBytes(options.limits.stackBytes)}): recursion or nesting is too deep. ${detail}`,
    };
  }
  if (isProgramSyntaxError(thrown)) return { code: "SANDBOX_SYNTAX", message: detail };
  return { code: "SANDBOX_RUNTIME", message: detail };
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
