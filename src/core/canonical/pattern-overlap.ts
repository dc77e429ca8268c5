/**
 * May a shell pattern expand to a path a policy glob matches? `cat src/*.ts` cannot name `**\/*.key`,
 * `cat ser*` may name `server.key`, `cat *` may, and `head *env` cannot name `.env` (bash's `*` and `?`
 * never begin a hidden name). Decided without the file system, as the intersection of the two patterns'
 * languages: is there a path both match?
 *
 * The shell side is read as bash expands a word with dotglob off (the policy refuses turning it on):
 * per segment, `*`, `?` and `[…]` (`!` or `^` negates) over the characters of one
 * name, a `*` or `?` that begins a segment never matching a leading `.`; a bracket there is taken to
 * match one (POSIX leaves it open), and a `**` segment as any number of names none of them hidden (as
 * globstar reads it; without globstar it is a `*`, one of those readings). The policy side
 * is read as `pathMatches` reads its globs (picomatch with dot files included): `*` and `?` per
 * segment, a `**` segment for any number of segments, braces expanded first. What either side writes
 * beyond that — an extglob group, a POSIX class, a negated glob, a bracket in a policy glob (picomatch
 * reads `[ab]` as the class or as the text), braces past the bound — is null:
 * the caller reads it as unknown.
 *
 * The answer is exact for what it reads: the product of the two patterns' automata, searched breadth
 * first, segment by segment and character by character; character classes are intersected on the
 * boundaries of their ranges.
 */
import { braceExpansions } from "./shell.js";

/** One position of a segment pattern. */
type Token =
  | { kind: "char"; ranges: readonly Range[]; negated: boolean }
  | { kind: "star" }
  /** A bracket expression: its ranges, or their complement. */
  | { kind: "set"; ranges: readonly Range[]; negated: boolean };
type Range = readonly [number, number];
/** A pattern's segments: the tokens of one name, or `**` (any number of names). */
type Segment = readonly Token[] | "**";

const SLASH = 0x2f;
const DOT = 0x2e;
const MAX_CODE_POINT = 0x10ffff;
/** Brace alternatives a policy glob may expand to before it is unknown. */
const MAX_GLOB_WORDS = 256;

const ANY: Token = { kind: "char", ranges: [], negated: true };

/**
 * The tokens of one segment, or null for syntax this reader leaves unknown: an extglob group
 * (`@(…)`, `!(…)`…) or a POSIX class (`[[:alpha:]]`). An unclosed `[` is a letter, as in bash.
 */
function segmentTokens(text: string): Token[] | null {
  const tokens: Token[] = [];
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    if ("?*+@!".includes(ch) && chars[i + 1] === "(") return null;
    if (ch === "*") {
      if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
    } else if (ch === "?") tokens.push(ANY);
    else if (ch === "\\" && i + 1 < chars.length) tokens.push(literal(chars[++i] as string));
    else if (ch === "[") {
      const set = bracket(chars, i);
      if (set === null) return null;
      if (set === undefined) tokens.push(literal(ch));
      else {
        tokens.push(set.token);
        i = set.end;
      }
    } else tokens.push(literal(ch));
  }
  return tokens;
}

function literal(ch: string): Token {
  const code = ch.codePointAt(0) as number;
  return { kind: "char", ranges: [[code, code]], negated: false };
}

/** The bracket expression at `start`: its token and closing index; undefined if unclosed; null if unread. */
function bracket(chars: readonly string[], start: number): { token: Token; end: number } | null | undefined {
  let i = start + 1;
  const negated = chars[i] === "!" || chars[i] === "^";
  if (negated) i++;
  const ranges: Range[] = [];
  let first = true;
  for (; i < chars.length; i++) {
    const ch = chars[i] as string;
    if (ch === "]" && !first) return { token: { kind: "set", ranges, negated }, end: i };
    if (ch === "[" && chars[i + 1] === ":") return null;
    first = false;
    let lo = ch;
    if (ch === "\\" && i + 1 < chars.length) lo = chars[++i] as string;
    const loCode = lo.codePointAt(0) as number;
    if (chars[i + 1] === "-" && chars[i + 2] !== undefined && chars[i + 2] !== "]") {
      let hi = chars[i + 2] as string;
      i += 2;
      if (hi === "\\" && i + 1 < chars.length) hi = chars[++i] as string;
      const hiCode = hi.codePointAt(0) as number;
      if (hiCode >= loCode) ranges.push([loCode, hiCode]);
    } else ranges.push([loCode, loCode]);
  }
  return undefined;
}

/**
 * A pattern's segments. A policy glob's bracket is unread: picomatch reads `[ab]` as the class or the
 * four letters as written, and `[!a]` as `!` or `a`, which this reader does not model.
 */
function segmentsOf(path: string, caseFold: boolean, policy: boolean): Segment[] | null {
  if (policy && path.includes("[")) return null;
  const text = caseFold ? path.toLowerCase() : path;
  const out: Segment[] = [];
  for (const part of text.split("/").slice(1)) {
    if (part === "") continue;
    if (part === "**") {
      if (out.at(-1) !== "**") out.push("**");
      continue;
    }
    const tokens = segmentTokens(part);
    if (tokens === null) return null;
    out.push(tokens);
  }
  return out;
}

/** The policy glob's readings as absolute patterns: braces expanded, a relative glob only through `**`. */
function globPaths(glob: string): string[] | null {
  if (glob.startsWith("!")) return null;
  const expanded = braceExpansions({ word: glob, maxWords: MAX_GLOB_WORDS });
  if (expanded === null) return null;
  const out: string[] = [];
  for (const word of expanded) {
    if (/[{}]/.test(word)) return null;
    if (word.startsWith("/")) out.push(word);
    else if (word === "**" || word.startsWith("**/")) out.push(`/${word}`);
  }
  return out;
}

function inRanges(code: number, ranges: readonly Range[]): boolean {
  for (const [lo, hi] of ranges) if (code >= lo && code <= hi) return true;
  return false;
}

function admits(token: Token, code: number): boolean {
  if (token.kind === "star") return true;
  return inRanges(code, token.ranges) !== token.negated;
}

/**
 * Is there a character of a name (never `/`; never `.` when `noDot`) that both tokens admit? Sets of
 * ranges meet, if at all, at 0 or at a range's first code point or the one after its last (or after
 * the characters left out).
 */
function meet(a: Token, b: Token, noDot: boolean): boolean {
  const candidates = new Set<number>([0, SLASH + 1, DOT + 1]);
  for (const token of [a, b]) {
    if (token.kind === "star") continue;
    for (const [lo, hi] of token.ranges) {
      candidates.add(lo);
      if (hi < MAX_CODE_POINT) candidates.add(hi + 1);
    }
  }
  for (const code of candidates) {
    if (code === SLASH || (noDot && code === DOT)) continue;
    if (admits(a, code) && admits(b, code)) return true;
  }
  return false;
}

/** Where a name stands as it is read: nothing yet, `.`, `..`, or anything else (a name at last). */
type Read = 0 | 1 | 2 | 3;
const NOTHING: Read = 0;
const ONE_DOT: Read = 1;
const TWO_DOTS: Read = 2;
const NAME: Read = 3;

/** What a name read so far is after one more character (a dot or not). */
function next(read: Read, dot: boolean): Read {
  if (!dot || read === TWO_DOTS || read === NAME) return NAME;
  return read === NOTHING ? ONE_DOT : TWO_DOTS;
}

/**
 * Is there a name both segment patterns match? Not `.` or `..` (a canonical path has none), and the
 * shell's leading `*` or `?` does not match a leading dot. A search over (shell position, glob
 * position, what the name read so far is).
 */
function segmentsMeet(shell: readonly Token[], glob: readonly Token[], hidden = false): boolean {
  const hiddenBarred =
    !hidden && (shell[0]?.kind === "star" || (shell[0]?.kind === "char" && shell[0].negated));
  const seen = new Set<number>();
  const width = glob.length + 1;
  const queue: [number, number, Read][] = [[0, 0, NOTHING]];
  while (queue.length > 0) {
    const [i, j, read] = queue.pop() as [number, number, Read];
    const key = (i * width + j) * 4 + read;
    if (seen.has(key)) continue;
    seen.add(key);
    if (i === shell.length && j === glob.length) {
      if (read === NAME) return true;
      continue;
    }
    const a = shell[i];
    const b = glob[j];
    if (a?.kind === "star") queue.push([i + 1, j, read]);
    if (b?.kind === "star") queue.push([i, j + 1, read]);
    if (a === undefined || b === undefined) continue;
    const i2 = a.kind === "star" ? i : i + 1;
    const j2 = b.kind === "star" ? j : j + 1;
    const dotBarred = read === NOTHING && hiddenBarred;
    if (!dotBarred && admits(a, DOT) && admits(b, DOT)) queue.push([i2, j2, next(read, true)]);
    if (meet(a, b, true)) queue.push([i2, j2, next(read, false)]);
  }
  return false;
}

/** A shell `**` read one name at a time: a `*`, which never begins a hidden name. */
const STAR: readonly Token[] = [{ kind: "star" }];

/**
 * Is there a path both segment lists match? `**` on either side is any number of segments; the shell's
 * (globstar) never a hidden one.
 */
function pathsMeet(shell: readonly Segment[], glob: readonly Segment[], hidden: boolean): boolean {
  const memo = new Map<number, boolean>();
  const width = glob.length + 1;
  const visit = (i: number, j: number): boolean => {
    const key = i * width + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    memo.set(key, false);
    let result = false;
    const a = shell[i];
    const b = glob[j];
    if (a === undefined && b === undefined) result = true;
    else if (b === "**") result = visit(i, j + 1) || (a !== undefined && visit(i + 1, j));
    else if (a === "**")
      result = visit(i + 1, j) || (b !== undefined && segmentsMeet(STAR, b, hidden) && visit(i, j + 1));
    else if (a !== undefined && b !== undefined) result = segmentsMeet(a, b, hidden) && visit(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return visit(0, 0);
}

/** Does the token list match the whole of `text`, as bash matches a name (a leading dot barred to `*`, `?`)? */
function matchesName(tokens: readonly Token[], text: string): boolean {
  const codes = Array.from(text, (ch) => ch.codePointAt(0) as number);
  const barred = tokens[0]?.kind === "star" || (tokens[0]?.kind === "char" && tokens[0].negated);
  if (barred && codes[0] === DOT) return false;
  const visit = (i: number, j: number): boolean => {
    if (i === tokens.length) return j === codes.length;
    const token = tokens[i] as Token;
    if (token.kind === "star") return visit(i + 1, j) || (j < codes.length && visit(i, j + 1));
    return j < codes.length && admits(token, codes[j] as number) && visit(i + 1, j + 1);
  };
  return visit(0, 0);
}

/**
 * May one segment of a shell pattern match `.` or `..` (`.*`, `.[.]`, `[.]*`)? Bash before 5.2 lets
 * such a pattern match them, so a pattern through it may leave its directory. Unread syntax: true.
 */
export function shellSegmentMayBeDots(options: { segment: string }): boolean {
  const tokens = segmentTokens(options.segment);
  return tokens === null || matchesName(tokens, ".") || matchesName(tokens, "..");
}

/**
 * May the absolute shell `pattern` (an operand resolved against the directory it runs in, `.` and `..`
 * segments already resolved) expand to a path one of `globs` matches? null when either side is written
 * in syntax this reader does not follow (the caller reads that as unknown).
 */
export function shellPatternMayMatch(options: {
  pattern: string;
  globs: readonly string[];
  caseFold?: boolean;
  /**
   * Read the pattern as a search tool's glob (ripgrep's `--glob`) rather than as bash expands it: its
   * wildcards may begin a hidden name and its `**` may cross hidden directories.
   */
  hidden?: boolean;
}): boolean | null {
  const caseFold = options.caseFold === true;
  const hidden = options.hidden === true;
  const shell = segmentsOf(options.pattern, caseFold, false);
  if (shell === null) return null;
  let unread = false;
  for (const glob of options.globs) {
    const paths = globPaths(glob);
    if (paths === null) {
      unread = true;
      continue;
    }
    for (const path of paths) {
      const segments = segmentsOf(path, caseFold, true);
      if (segments === null) unread = true;
      else if (pathsMeet(shell, segments, hidden)) return true;
    }
  }
  return unread ? null : false;
}
