/**
 * Tool-name patterns of tool rules: an exact name or a glob where `*` stands for any run of characters
 * (dots and slashes included, so `github.*` covers `github.repos.delete`) and `?` for one character.
 * Names compare without case, as the policy's vocabulary does.
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

export function matchesToolGlob(options: { pattern: string; name: string }): boolean {
  const { re, answers } = translate(options);
  let answer = answers.get(options.name);
  if (answer === undefined) {
    answer = re.test(options.name);
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
