/**
 * Builds the LTL_PARSE error: a message that names what was expected, the exact position (1-based line
 * and column, 0-based offset) and a caret excerpt of the offending line, so a person editing a policy
 * file sees at once where the formula went wrong.
 */
import { WardenError } from "../../../core/errors.js";

export interface LtlPosition {
  /** 0-based offset in the formula string (UTF-16 code units). */
  offset: number;
  /** 1-based line. */
  line: number;
  /** 1-based column (UTF-16 code units). */
  column: number;
}

export function positionAt(options: { source: string; offset: number }): LtlPosition {
  const { source } = options;
  const offset = Math.max(0, Math.min(options.offset, source.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { offset, line, column: offset - lineStart + 1 };
}

const EXCERPT_WIDTH = 72;

/** The line holding `offset`, windowed around it when long, with a caret under the offending character. */
export function caretExcerpt(options: { source: string; offset: number }): string {
  const { source } = options;
  const { offset, column } = positionAt(options);
  const lineStart = offset - (column - 1);
  let lineEnd = source.indexOf("\n", lineStart);
  if (lineEnd < 0) lineEnd = source.length;
  // Tabs become single spaces so that the caret lines up whatever the terminal's tab width.
  const text = source.slice(lineStart, lineEnd).replace(/[\t\r]/g, " ");
  let from = 0;
  if (text.length > EXCERPT_WIDTH)
    from = Math.max(0, Math.min(column - 1 - EXCERPT_WIDTH / 2, text.length - EXCERPT_WIDTH));
  const shown = text.slice(from, from + EXCERPT_WIDTH);
  const before = from > 0 ? "..." : "";
  const after = from + EXCERPT_WIDTH < text.length ? "..." : "";
  const caret = " ".repeat(before.length + column - 1 - from) + "^";
  return `  ${before}${shown}${after}\n  ${caret}`;
}

export function ltlParseError(options: { source: string; offset: number; reason: string }): WardenError {
  const position = positionAt(options);
  const excerpt = caretExcerpt(options);
  return new WardenError({
    code: "LTL_PARSE",
    message: `${options.reason} at ${position.line}:${position.column}\n${excerpt}`,
    details: { ...position, reason: options.reason, excerpt, formula: options.source },
  });
}
