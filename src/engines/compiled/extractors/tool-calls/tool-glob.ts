/**
 * Tool-name patterns of tool rules: an exact name or a glob where `*` stands for any run of characters
 * (dots and slashes included, so `github.*` covers `github.repos.delete`) and `?` for one character.
 * Names compare without case, as the policy's vocabulary does.
 */
import { escapeRegex, type SafeRegex, safeRegex } from "../../../../core/safe-regex.js";

/** The glob as a linear-time regex (tool names come from the agent; a glob like `*a*a*a*` must not backtrack). */
export function toolGlobToRegExp(options: { pattern: string }): SafeRegex {
  const body = options.pattern
    .split("")
    .map((ch) => (ch === "*" ? "(?s:.*)" : ch === "?" ? "(?s:.)" : escapeRegex({ text: ch })))
    .join("");
  return safeRegex({ pattern: `^${body}$`, re2Syntax: true });
}

export function matchesToolGlob(options: { pattern: string; name: string }): boolean {
  return toolGlobToRegExp({ pattern: options.pattern }).test(options.name);
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
