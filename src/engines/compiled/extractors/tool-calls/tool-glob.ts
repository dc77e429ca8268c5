/**
 * Tool-name patterns of tool rules: an exact name or a glob where `*` stands for any run of characters
 * (dots and slashes included, so `github.*` covers `github.repos.delete`) and `?` for one character.
 * Names compare without case, as the policy's vocabulary does.
 *
 * The glob is matched as a linear-time RE2 regex. When the pattern and the name are both ASCII — tool
 * names nearly always are — the same answer is computed without building the regex: RE2's case folding
 * (simple case folding, `(?i)`) relates an ASCII letter only to its other case and to non-ASCII letters
 * (K to the Kelvin sign, s to the long s), which an ASCII name does not contain, and `?` (one code point)
 * is one character there. So a check whose tool rules are globs does not build regex matchers at all.
 */
import { escapeRegex, type SafeRegex, safeRegex } from "../../../../core/safe-regex.js";

/** A glob's regex and its answers so far: the same few tool names are checked against it on every call. */
interface TranslatedGlob {
  re: SafeRegex;
  answers: Map<string, boolean>;
}

/** Globs translated so far: a policy's few patterns are matched on every check, so each is built once. */
const translated = new Map<string, TranslatedGlob>();
/** Patterns come from loaded policies, names from agents: the bounds only keep either from growing. */
const MAX_TRANSLATED = 1024;
const MAX_ANSWERS_PER_GLOB = 256;

function translate(options: { pattern: string }): TranslatedGlob {
  const { pattern } = options;
  let glob = translated.get(pattern);
  if (!glob) {
    const body = pattern
      .split("")
      .map((ch) => (ch === "*" ? "(?s:.*)" : ch === "?" ? "(?s:.)" : escapeRegex({ text: ch })))
      .join("");
    glob = { re: safeRegex({ pattern: `^${body}$`, re2Syntax: true }), answers: new Map() };
    if (translated.size >= MAX_TRANSLATED) translated.delete(translated.keys().next().value as string);
    translated.set(pattern, glob);
  }
  return glob;
}

/** The glob as a linear-time regex (tool names come from the agent; a glob like `*a*a*a*` must not backtrack). */
export function toolGlobToRegExp(options: { pattern: string }): SafeRegex {
  return translate(options).re;
}

/** Only ASCII code points (\u0000-\u007f). */
const ASCII = /^[\u0000-\u007f]*$/;

/** `a` and `b` (ASCII code units) are the same letter in either case, or the same character. */
function sameAsciiIgnoringCase(a: number, b: number): boolean {
  if (a === b) return true;
  const lower = a | 0x20;
  return lower === (b | 0x20) && lower >= 0x61 && lower <= 0x7a;
}

/**
 * Whether the ASCII glob matches the whole ASCII name, case ignored: `*` any run, `?` one character.
 * Greedy, going back only to the last `*` seen: at most pattern length x name length steps.
 */
function matchesAsciiGlob(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    const ch = p < pattern.length ? pattern.charCodeAt(p) : -1;
    if (ch === 0x2a /* * */) {
      star = p;
      resume = n;
      p += 1;
    } else if (ch !== -1 && (ch === 0x3f /* ? */ || sameAsciiIgnoringCase(ch, name.charCodeAt(n)))) {
      p += 1;
      n += 1;
    } else if (star !== -1) {
      p = star + 1;
      resume += 1;
      n = resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern.charCodeAt(p) === 0x2a) p += 1;
  return p === pattern.length;
}

export function matchesToolGlob(options: { pattern: string; name: string }): boolean {
  const { pattern, name } = options;
  if (ASCII.test(pattern) && ASCII.test(name)) return matchesAsciiGlob(pattern, name);
  const { re, answers } = translate(options);
  let answer = answers.get(name);
  if (answer === undefined) {
    answer = re.test(name);
    if (answers.size >= MAX_ANSWERS_PER_GLOB) answers.clear();
    answers.set(options.name, answer);
  }
  return answer;
}

/**
 * How specific a pattern is, for picking the rule that explains a decision: an exact name beats any
 * glob; among globs, more literal characters beat fewer.
 */
export function toolGlobSpecificity(options: { pattern: string }): number {
  const { pattern } = options;
  const wildcards = (pattern.match(/[*?]/g) ?? []).length;
  const literal = pattern.length - wildcards;
  return wildcards === 0 ? 10_000 + literal : literal;
}
