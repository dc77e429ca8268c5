/**
 * Tool-name patterns of tool rules: an exact name or a glob where `*` stands for any run of characters
 * (dots and slashes included, so `github.*` covers `github.repos.delete`) and `?` for one character (one
 * code point). Names compare without case, as the policy's vocabulary does: two characters are the same
 * when they are equal or either case mapping makes them so — which relates each ASCII letter to its other
 * case only, and non-ASCII letters as Unicode's case mappings do (the Kelvin sign to k, the long s to s).
 *
 * The match is a glob walk that goes back only to the last `*` seen: at most pattern × name steps,
 * however many stars a pattern has (a name comes from the agent; `*a*a*a*b` must not backtrack
 * exponentially). It builds nothing, so a check whose tool rules are globs compiles no matcher.
 */

/** Whether two characters (code points as strings) are the same, case ignored. */
function sameIgnoringCase(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.length === 1 && b.length === 1 && a.charCodeAt(0) < 0x80 && b.charCodeAt(0) < 0x80) {
    const lower = a.charCodeAt(0) | 0x20;
    return lower === (b.charCodeAt(0) | 0x20) && lower >= 0x61 && lower <= 0x7a;
  }
  return a.toLowerCase() === b.toLowerCase() || a.toUpperCase() === b.toUpperCase();
}

/** The code points of a text: `?` stands for one, whatever its UTF-16 length. */
function codePoints(text: string): string[] {
  return /[\ud800-\udfff]/.test(text) ? Array.from(text) : text.split("");
}

export function matchesToolGlob(options: { pattern: string; name: string }): boolean {
  const pattern = codePoints(options.pattern);
  const name = codePoints(options.name);
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    const ch = p < pattern.length ? pattern[p] : undefined;
    if (ch === "*") {
      star = p;
      resume = n;
      p += 1;
    } else if (ch !== undefined && (ch === "?" || sameIgnoringCase(ch, name[n]!))) {
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
  while (p < pattern.length && pattern[p] === "*") p += 1;
  return p === pattern.length;
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
