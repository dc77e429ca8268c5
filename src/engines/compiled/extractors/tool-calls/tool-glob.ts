/**
 * Tool-name patterns of tool rules: an exact name or a glob where `*` stands for any run of characters
 * (dots and slashes included, so `github.*` covers `github.repos.delete`) and `?` for one character.
 * Names compare without case, as the policy's vocabulary does.
 */

const cache = new Map<string, RegExp>();

export function toolGlobToRegExp(options: { pattern: string }): RegExp {
  const { pattern } = options;
  let re = cache.get(pattern);
  if (!re) {
    const body = pattern
      .split("")
      .map((ch) => (ch === "*" ? ".*" : ch === "?" ? "." : ch.replace(/[.+^${}()|[\]\\/-]/g, "\\$&")))
      .join("");
    re = new RegExp(`^${body}$`, "is");
    if (cache.size > 1_000) cache.clear();
    cache.set(pattern, re);
  }
  return re;
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
