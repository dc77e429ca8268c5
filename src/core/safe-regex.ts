/**
 * Regular expressions that come from a policy (the `matches` operator, tool-name globs) run on re2js, an
 * RE2 engine whose matching time is linear in the text: a pattern like `(curl|wget)[^|]*\|` over an
 * attacker's 1 MB command costs one pass, never the backtracking blow-up of a JS RegExp.
 *
 * The dialect is RE2's (https://github.com/google/re2/wiki/Syntax), which has no lookaround and no
 * backreferences; `validatePolicyRegex` names such features so a policy using them is rejected at load
 * with a reason. Three JS-isms are read the JS way so patterns written for `new RegExp(p, "u")` keep their
 * meaning: `\uXXXX` / `\u{X}` escapes, `\s` / `\S` (Unicode white space, not RE2's ASCII set) and `.` (no
 * line terminator: \n, \r, U+2028, U+2029). `\S` inside a character class keeps RE2's ASCII meaning.
 */
import type * as Re2js from "re2js";
import { lazyModule } from "./lazy-module.js";

/**
 * re2js, loaded on the first pattern compiled or parsed (core/lazy-module.ts): a third of a one-shot
 * check's JavaScript, and a hook reading a source file, or running `npm test`, compiles no regex.
 */
const re2js = lazyModule<typeof Re2js>({ specifier: "re2js" });

/** A compiled policy regex: `test` is true when the pattern matches somewhere in the text. */
export interface SafeRegex {
  readonly source: string;
  test(text: string): boolean;
}

/** JS `\s`: ECMAScript WhiteSpace and LineTerminator code points, as RE2 class items. */
const JS_SPACE =
  "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
const JS_DOT = "[^\\n\\r\\x{2028}\\x{2029}]";
/** Longest pattern accepted from a policy; longer ones are not hand-written rules. */
const MAX_PATTERN_LENGTH = 4_096;
const MAX_CACHED = 1_000;

/** Rewrites the JS-isms above into RE2 syntax; everything else passes through for RE2 to judge. */
function toRe2Syntax(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      const next = pattern[i + 1] ?? "";
      const unicode = /^u(?:\{([0-9A-Fa-f]{1,6})\}|([0-9A-Fa-f]{4}))/.exec(pattern.slice(i + 1, i + 10));
      if (unicode) {
        out += `\\x{${unicode[1] ?? unicode[2]}}`;
        i += unicode[0].length;
      } else if (next === "s") {
        out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
        i++;
      } else if (next === "S" && !inClass) {
        out += `[^${JS_SPACE}]`;
        i++;
      } else {
        out += ch + next;
        i++;
      }
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
      out += ch;
    } else if (ch === "[") {
      // JS reads `[]` as matching nothing and `[^]` as any character; RE2 would take the `]` literally.
      const negated = pattern[i + 1] === "^";
      if (pattern[i + (negated ? 2 : 1)] === "]") {
        out += negated ? "(?s:.)" : "[^\\x{0}-\\x{10FFFF}]";
        i += negated ? 2 : 1;
        continue;
      }
      inClass = true;
      out += negated ? "[^" : "[";
      if (negated) i++;
    } else out += ch === "." ? JS_DOT : ch;
  }
  return out;
}

/** Why RE2 refuses a pattern JS would accept, in the policy author's words; undefined if not one of those. */
function unsupportedFeature(pattern: string): string | undefined {
  if (/\(\?<?[=!]/.test(pattern))
    return "lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)) are not supported";
  if (/\\[1-9]|\\k</.test(pattern)) return "backreferences (\\1, \\k<name>) are not supported";
  return undefined;
}

/** re2js's refusal as a SyntaxError in the policy author's words. */
function refusal(pattern: string, error: unknown): SyntaxError {
  // re2js quotes the offending fragment, with the case flag it added in front.
  const message = (error instanceof Error ? error.message : String(error))
    .replace(/^error parsing regexp: /, "")
    .replace("`(?i)", "`");
  return new SyntaxError(unsupportedFeature(pattern) ?? message);
}

function compile(pattern: string, caseSensitive: boolean, re2Syntax: boolean): SafeRegex {
  try {
    const source = re2Syntax ? pattern : toRe2Syntax(pattern);
    const { RE2JS } = re2js();
    const re = RE2JS.compile(source, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
    return { source: pattern, test: (text) => re.test(text) };
  } catch (error) {
    throw refusal(pattern, error);
  }
}

/**
 * Parses the pattern exactly as `compile` does — the same flags, the same parser, which is where re2js
 * rejects a pattern — without building the matcher (program, prefilter, one-pass automaton). A policy is
 * validated at every load but most of its regexes never run in a one-shot check (`warden check`, a
 * hook), so the matcher is built on first use instead. An RE2Set's `add` is re2js's public entry to
 * that parse (`RE2JS.compile` prefixes the same `(?i)` and passes the same parser flags).
 */
function parse(pattern: string, caseSensitive: boolean): void {
  try {
    const { RE2JS, RE2Set } = re2js();
    new RE2Set(RE2Set.UNANCHORED, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE).add(toRe2Syntax(pattern));
  } catch (error) {
    throw refusal(pattern, error);
  }
}

const cache = new Map<string, SafeRegex>();
/** Patterns (with their case flag) that parsed; a policy validates each regex more than once. */
const parsed = new Set<string>();

export interface SafeRegexOptions {
  pattern: string;
  /** Case is ignored unless this is true. */
  caseSensitive?: boolean;
  /** The pattern is plain RE2 syntax built by Warden itself (globs), not a policy author's JS-style regex. */
  re2Syntax?: boolean;
}

/**
 * The pattern compiled for linear-time matching (cached; the cache is bounded). Throws SyntaxError, with
 * the reason, on a pattern RE2 cannot compile.
 */
export function safeRegex(options: SafeRegexOptions): SafeRegex {
  const caseSensitive = options.caseSensitive === true;
  const re2Syntax = options.re2Syntax === true;
  const key = `${caseSensitive ? "s" : "i"}${re2Syntax ? "r" : "j"}:${options.pattern}`;
  let re = cache.get(key);
  if (!re) {
    re = compile(options.pattern, caseSensitive, re2Syntax);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(key, re);
  }
  return re;
}

/** How many `withRegexesParsedAtUse` calls are running (synchronous, so only inside their `run`). */
let parsedAtUse = 0;

/**
 * Runs `run` (synchronous: a policy's schema parse) with each policy regex checked for length only; its
 * RE2 parse happens when the pattern first runs (`safeRegex`), which throws on a pattern RE2 refuses —
 * and a check that throws is refused (fail closed), so an invalid regex can only turn an answer into a
 * deny, never into an allow. For a one-shot check of a large policy (`warden hook`), where parsing every
 * regex at load costs more than the check and most rules never run (coding-agent: 11 patterns, ~65M
 * instructions); everything else keeps rejecting such a policy at load.
 */
export function withRegexesParsedAtUse<T>(options: { run: () => T }): T {
  parsedAtUse++;
  try {
    return options.run();
  } finally {
    parsedAtUse--;
  }
}

/** Why a policy regex cannot be used (a syntax error, or a feature RE2 lacks); undefined when it can. */
export function validatePolicyRegex(options: {
  pattern: string;
  caseSensitive?: boolean;
}): string | undefined {
  if (options.pattern.length > MAX_PATTERN_LENGTH) {
    return `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`;
  }
  if (parsedAtUse > 0) return undefined;
  const caseSensitive = options.caseSensitive === true;
  const key = `${caseSensitive ? "s" : "i"}j:${options.pattern}`;
  if (parsed.has(key) || cache.has(key)) return undefined;
  try {
    parse(options.pattern, caseSensitive);
    if (parsed.size >= MAX_CACHED) parsed.delete(parsed.values().next().value as string);
    parsed.add(key);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Escapes every character RE2 gives a meaning, so `text` matches itself. */
export function escapeRegex(options: { text: string }): string {
  return options.text.replace(/[\\^$.|?*+()[\]{}-]/g, "\\$&");
}
