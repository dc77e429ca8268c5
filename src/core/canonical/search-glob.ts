/**
 * What a search tool's file glob admits: ripgrep's `--glob` (gitignore syntax), which a coding agent's
 * Grep passes through. ripgrep searches every file the glob matches, and enters a hidden directory (a
 * name starting with a dot) only when the glob matches that directory itself; a glob admits hidden files
 * it matches as surely as one that names them (`?env`, `*.env`, `[.]env` and `*` all admit `.env`).
 *
 * The glob comes from the agent, so it is matched here without a regular expression: a glob compiled to
 * one (picomatch, minimatch) can backtrack for ages on a crafted pattern. Braces are expanded (at most
 * MAX_EXPANSIONS alternatives), then each alternative is matched by dynamic programming over (token,
 * character), quadratic at worst in the short paths a policy names. A glob past these bounds is no answer
 * (undefined), which a check reads as unknown and fails closed.
 */
import { shellPatternMayMatch } from "./pattern-overlap.js";

/** Longest glob read; a longer one is no answer. A search's globs are tens of characters. */
const MAX_GLOB_CHARS = 256;
/** Most alternatives a glob's braces may expand to; more is no answer. */
const MAX_EXPANSIONS = 64;
/**
 * Most characters all the alternatives may hold together; more is no answer. With the two bounds above
 * it keeps the work of one glob against a policy's paths to milliseconds.
 */
const MAX_EXPANDED_CHARS = 2_048;

type Token =
  | { t: "lit"; c: string }
  /** `?`: one character of a name. */
  | { t: "one" }
  /** `*`: any run of a name's characters. */
  | { t: "star" }
  | { t: "class"; negated: boolean; ranges: [string, string][] }
  /** A `**` segment followed by a slash: any number of whole directories, none included. */
  | { t: "dirs" }
  /** A trailing `/**`'s `**`: anything below, one character at least. */
  | { t: "below" }
  /** A whole glob of `**`: any path. */
  | { t: "any" };

/**
 * Whether `glob` admits one of `paths` (relative to the search root, such as `.env` or
 * `.aws/credentials`) at some depth under the root; undefined when the glob is past the bounds. A
 * negated glob (`!…`) only excludes, so it admits nothing. Each whitespace-separated word of the glob
 * is read as well, in case a tool splits them.
 */
export function globSelects(options: {
  glob: string;
  paths: readonly string[];
  caseFold: boolean;
}): boolean | undefined {
  const { glob, caseFold } = options;
  if (glob.length > MAX_GLOB_CHARS) return undefined;
  const words = glob.trim().split(/\s+/);
  const readings = words.length > 1 ? [glob, ...words] : [glob];
  const all = options.paths.map((p) => p.replace(/^(\.?\/)+/, ""));
  const paths = all.filter((p) => !NAME_PATTERN.test(p));
  const patterns = all.filter((p) => NAME_PATTERN.test(p));
  for (const reading of readings) {
    const compiled = compile(reading);
    if (compiled === undefined) return undefined;
    for (const path of paths) {
      for (const candidate of candidatesFor(path, compiled.base)) {
        if (admits(compiled.alternatives, candidate, caseFold)) return true;
      }
    }
    const overlap =
      patterns.length > 0 ? globMeetsPatterns({ sources: compiled.sources, patterns, caseFold }) : false;
    if (overlap !== false) return overlap;
  }
  return false;
}

/** A policy path with a wildcard (`*.pem`): every file so named, at any depth. */
const NAME_PATTERN = /[*?[{]/;

/**
 * Whether the search glob may admit a file one of `patterns` names (`*.pem`, `id_*`): the two glob
 * languages meet (shellPatternMayMatch, read the search tool's way: its wildcards begin hidden names
 * too), the glob's root anywhere; undefined when either is past what that reading follows.
 */
function globMeetsPatterns(o: {
  /** The search glob's alternatives (CompiledGlob.sources). */
  sources: readonly string[];
  patterns: readonly string[];
  caseFold: boolean;
}): boolean | undefined {
  const globs = o.patterns.map((p) => `**/${p}`);
  for (const alternative of o.sources) {
    const pattern = `/**/${alternative.replace(/^\/+/, "")}`;
    const meets = shellPatternMayMatch({ pattern, globs, caseFold: o.caseFold, hidden: true });
    if (meets !== false) return meets ?? undefined;
  }
  return false;
}

/**
 * Whether ripgrep searches the file at `path` (relative to the search root) for `glob`: the glob matches
 * it, and every hidden directory on the way; undefined past the bounds.
 */
export function searchGlobAdmits(options: {
  glob: string;
  path: string;
  caseFold: boolean;
}): boolean | undefined {
  const compiled = compile(options.glob);
  if (compiled === undefined) return undefined;
  return admits(compiled.alternatives, options.path, options.caseFold);
}

interface CompiledGlob {
  /** Each brace-free alternative as written, without a leading `/` or `./`; none for a negated glob. */
  sources: string[];
  /** Each brace-free alternative's tokens; none for a negated glob. */
  alternatives: Token[][];
  /** The glob's leading literal directories. */
  base: string;
}

/**
 * A glob as ripgrep reads it: a leading `/` or `./` anchors it to the root, as a slash anywhere does
 * (gitignore); one without a slash matches a name at any depth. Undefined past the bounds.
 */
function compile(glob: string): CompiledGlob | undefined {
  if (glob === "" || glob.startsWith("!"))
    return glob.length > MAX_GLOB_CHARS ? undefined : { sources: [], alternatives: [], base: "" };
  const rooted = glob.replace(/^\.?\//, "");
  const expanded = alternativesOf(rooted);
  if (expanded === undefined) return undefined;
  const anchored = glob.includes("/");
  return {
    sources: expanded,
    alternatives: expanded.map((alternative) => tokenize(anchored ? alternative : `**/${alternative}`)),
    base: anchored ? literalBase(rooted) : "",
  };
}

/** `path` where the glob may meet it: at the root, a directory or two down, and under the glob's own literal directories. */
function candidatesFor(path: string, base: string): string[] {
  const out = [path, `d/${path}`, `d/d/${path}`];
  if (base !== "") out.push(`${base}/${path}`, `${base}/d/${path}`);
  return out;
}

/** The glob's leading directories without a special character (`src/app` of `src/app/*.ts`). */
function literalBase(glob: string): string {
  const parts = glob.split("/");
  const literal: string[] = [];
  for (const part of parts.slice(0, -1)) {
    if (/[*?[\]{}\\]/.test(part)) break;
    literal.push(part);
  }
  return literal.join("/");
}

/**
 * Whether the glob (gitignore syntax, braces included) matches the whole of `path`, as ripgrep matches a
 * path relative to the search root; undefined past the bounds. `globSelects` builds on it.
 */
export function searchGlobMatches(options: {
  glob: string;
  path: string;
  caseFold: boolean;
}): boolean | undefined {
  const alternatives = alternativesOf(options.glob);
  if (alternatives === undefined) return undefined;
  return alternatives.some((alternative) => matches(tokenize(alternative), options.path, options.caseFold));
}

/** Some alternative matches the path, and some matches every hidden directory on the way to it. */
function admits(alternatives: Token[][], path: string, caseFold: boolean): boolean {
  const matched = (p: string) => alternatives.some((tokens) => matches(tokens, p, caseFold));
  if (!matched(path)) return false;
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    if (parts[i - 1]!.startsWith(".") && !matched(parts.slice(0, i).join("/"))) return false;
  }
  return true;
}

/** The brace-free alternatives of a glob within the bounds (MAX_GLOB_CHARS, MAX_EXPANDED_CHARS), else undefined. */
function alternativesOf(glob: string): string[] | undefined {
  if (glob.length > MAX_GLOB_CHARS) return undefined;
  const alternatives = expandBraces(glob);
  if (alternatives === undefined) return undefined;
  return alternatives.reduce((n, a) => n + a.length, 0) > MAX_EXPANDED_CHARS ? undefined : alternatives;
}

/** Every brace-free alternative of `glob`, or undefined past MAX_EXPANSIONS. */
function expandBraces(glob: string): string[] | undefined {
  const open = findBrace(glob);
  if (open === undefined) return [glob];
  const { start, end, options } = open;
  const out: string[] = [];
  for (const option of options) {
    const rest = expandBraces(glob.slice(0, start) + option + glob.slice(end + 1));
    if (rest === undefined) return undefined;
    out.push(...rest);
    if (out.length > MAX_EXPANSIONS) return undefined;
  }
  return out;
}

/** The first top-level `{…,…}` (escapes and classes skipped) with its comma-separated options. */
function findBrace(glob: string): { start: number; end: number; options: string[] } | undefined {
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "\\") i++;
    else if (c === "[") i = classEnd(glob, i) ?? i;
    else if (c === "{") {
      let depth = 0;
      let from = i + 1;
      const options: string[] = [];
      for (let j = i; j < glob.length; j++) {
        const d = glob[j];
        if (d === "\\") j++;
        else if (d === "[") j = classEnd(glob, j) ?? j;
        else if (d === "{") depth++;
        else if (d === "}" && --depth === 0) {
          options.push(glob.slice(from, j));
          return { start: i, end: j, options };
        } else if (d === "," && depth === 1) {
          options.push(glob.slice(from, j));
          from = j + 1;
        }
      }
      return undefined; // An unclosed brace is a literal character.
    }
  }
  return undefined;
}

/** The index of the `]` closing a class opened at `open`, or undefined when it is a literal `[`. */
function classEnd(glob: string, open: number): number | undefined {
  let i = open + 1;
  if (glob[i] === "!" || glob[i] === "^") i++;
  if (glob[i] === "]") i++;
  for (; i < glob.length; i++) {
    if (glob[i] === "\\") i++;
    else if (glob[i] === "]") return i;
  }
  return undefined;
}

function tokenize(glob: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "\\" && i + 1 < glob.length) {
      tokens.push({ t: "lit", c: glob[++i]! });
    } else if (c === "?") {
      tokens.push({ t: "one" });
    } else if (c === "*") {
      let stars = 1;
      while (glob[i + 1] === "*") {
        stars++;
        i++;
      }
      const segmentStart = i - stars + 1 === 0 || glob[i - stars] === "/";
      const next = glob[i + 1];
      if (stars === 2 && segmentStart && next === "/") {
        tokens.push({ t: "dirs" });
        i++;
      } else if (stars === 2 && segmentStart && next === undefined) {
        tokens.push(i - stars + 1 === 0 ? { t: "any" } : { t: "below" });
      } else {
        tokens.push({ t: "star" });
      }
    } else if (c === "[") {
      const end = classEnd(glob, i);
      if (end === undefined) {
        tokens.push({ t: "lit", c });
        continue;
      }
      tokens.push(classToken(glob.slice(i + 1, end)));
      i = end;
    } else {
      tokens.push({ t: "lit", c });
    }
  }
  return tokens;
}

function classToken(body: string): Token {
  let i = 0;
  const negated = body[0] === "!" || body[0] === "^";
  if (negated) i++;
  const ranges: [string, string][] = [];
  for (; i < body.length; i++) {
    let from = body[i]!;
    if (from === "\\" && i + 1 < body.length) from = body[++i]!;
    if (body[i + 1] === "-" && i + 2 < body.length) {
      let to = body[i + 2]!;
      i += 2;
      if (to === "\\" && i + 1 < body.length) to = body[++i]!;
      ranges.push([from, to]);
    } else ranges.push([from, from]);
  }
  return { t: "class", negated, ranges };
}

function inClass(token: Extract<Token, { t: "class" }>, c: string, caseFold: boolean): boolean {
  const forms = caseFold ? [c, c.toLowerCase(), c.toUpperCase()] : [c];
  const hit = token.ranges.some(([from, to]) => forms.some((f) => f >= from && f <= to));
  return hit !== token.negated;
}

/** The memo of `matches`, reused from one call to the next (a call never runs inside another). */
let memoBuffer = new Uint8Array(4_096);

/** Whether the tokens match the whole path: dynamic programming over (token, character). */
function matches(tokens: Token[], path: string, caseFold: boolean): boolean {
  const text = caseFold ? path.toLowerCase() : path;
  const n = text.length;
  const width = n + 1;
  // memo[i * width + j]: 0 unknown, 1 match, 2 no match, for tokens[i..] against text[j..].
  const size = (tokens.length + 1) * width;
  if (memoBuffer.length < size) memoBuffer = new Uint8Array(Math.max(size, memoBuffer.length * 2));
  const memo = memoBuffer;
  memo.fill(0, 0, size);
  const at = (i: number, j: number): boolean => {
    const key = i * width + j;
    if (memo[key] !== 0) return memo[key] === 1;
    const result = step(i, j);
    memo[key] = result ? 1 : 2;
    return result;
  };
  const step = (i: number, j: number): boolean => {
    if (i === tokens.length) return j === n;
    const token = tokens[i]!;
    const ch = text[j];
    switch (token.t) {
      case "lit":
        return ch !== undefined && ch === (caseFold ? token.c.toLowerCase() : token.c) && at(i + 1, j + 1);
      case "one":
        return ch !== undefined && ch !== "/" && at(i + 1, j + 1);
      case "class":
        return ch !== undefined && ch !== "/" && inClass(token, ch, caseFold) && at(i + 1, j + 1);
      case "star":
        for (let k = j; ; k++) {
          if (at(i + 1, k)) return true;
          if (k >= n || text[k] === "/") return false;
        }
      case "dirs":
        if (at(i + 1, j)) return true;
        for (let k = j + 1; k <= n; k++) if (text[k - 1] === "/" && at(i + 1, k)) return true;
        return false;
      case "below":
        for (let k = j + 1; k <= n; k++) if (at(i + 1, k)) return true;
        return false;
      case "any":
        for (let k = j; k <= n; k++) if (at(i + 1, k)) return true;
        return false;
    }
  };
  return at(0, 0);
}
