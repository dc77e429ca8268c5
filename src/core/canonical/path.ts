/**
 * Canonical forms of file-system paths, and the two predicates conditions need on them.
 *
 * An attacker spells `/etc/passwd` as `/tmp/../etc/passwd`, `/tmp/%2e%2e/etc/passwd`, `file:///etc/passwd`,
 * `\tmp\..\etc\passwd` or with Unicode look-alikes. Which spelling a tool honours depends on the tool
 * (does it percent-decode? read `\` as a separator? normalise Unicode?), so every honest reading becomes
 * a form: the set of readings is closed under percent-decoding, `\`→`/`, NFC and lexical `.`/`..`
 * resolution, and each reading is then made absolute and normalised. What cannot be read without running
 * a shell (`~`, `$VAR`, backticks) or is not a path at all (NUL bytes, another host's `file:` URL) is
 * undetermined, so the caller fails closed. Pure functions, no file-system access: symlinks are not
 * resolved (a sandbox must handle those).
 */
import { lazyModule } from "../lazy-module.js";
import type { Canonical } from "./types.js";

/** The glob matcher, loaded on the first glob a condition matches (core/lazy-module.ts). */
const picomatch = lazyModule<typeof import("picomatch")>({ specifier: "picomatch" });

/**
 * Longer inputs are undetermined: the kernel refuses paths over 4096 bytes (PATH_MAX), this leaves room
 * for percent-encoding, and it keeps the work per reading bounded.
 */
export const MAX_PATH_LENGTH = 16_384;
/** Percent-decoding is repeated until nothing changes; still changing after this many rounds → undetermined. */
export const MAX_DECODE_ROUNDS = 4;
/** Upper bound on distinct readings of one input (the closure is tiny for real paths). */
const MAX_READINGS = 64;

export interface CanonicalPathOptions {
  /** The raw path: absolute, relative (needs `base`), or a `file:` URL. Anything but a string is undetermined. */
  path: unknown;
  /** Lower-case every form (case-insensitive file systems). */
  caseFold?: boolean;
  /** Absolute directory that relative paths resolve against; without it a relative path is undetermined. */
  base?: string;
}

/** Every honest absolute, normalised reading of `path`, or undetermined with the reason. */
export function canonicalPath({ path, caseFold = false, base }: CanonicalPathOptions): Canonical<string> {
  if (typeof path !== "string") return undetermined(`path is not a string (${typeof path})`);
  if (path === "") return undetermined("path is empty");
  if (path.length > MAX_PATH_LENGTH) return undetermined(`path is longer than ${MAX_PATH_LENGTH} characters`);
  const baseDir = checkBase(base);
  if (!baseDir.ok) return baseDir;
  const raw = fileUrlReadings(path);
  if (!raw.ok) return raw;
  const readings = closeReadings({ starts: raw.forms, base: baseDir.forms[0] });
  if (!readings.ok) return readings;
  const forms = new Set<string>();
  for (const reading of readings.forms) {
    const abs = absoluteNormal(reading, baseDir.forms[0]);
    if (abs !== undefined) forms.add(caseFold ? abs.toLowerCase() : abs);
  }
  return { ok: true, forms: [...forms] };
}

/**
 * Is the canonical `path` one of the `roots` or inside one? Both sides must be canonical forms made the
 * same way (same `caseFold`); comparison is by whole segments, so `/tmpx` is not within `/tmp`.
 */
export function pathWithin({ path, roots }: { path: string; roots: readonly string[] }): boolean {
  for (const root of roots) {
    // A trailing slash on a root would otherwise make `/etc/x` look outside `/etc/`: strip it defensively.
    const r = root.length > 1 ? root.replace(/\/+$/, "") || "/" : root;
    if (path === r) return true;
    if (path.startsWith(r === "/" ? "/" : `${r}/`)) return true;
  }
  return false;
}

/** Does the canonical `path` match one of the picomatch `globs`? Dot files match (`dot: true`). */
export function pathMatches({
  path,
  globs,
  caseFold = false,
}: {
  path: string;
  globs: string | readonly string[];
  caseFold?: boolean;
}): boolean {
  const list = typeof globs === "string" ? [globs] : globs;
  if (list.length === 0) return false;
  return matcherFor({ globs: list, caseFold })(path);
}

const matcherCache = new Map<string, (path: string) => boolean>();
const MATCHER_CACHE_SIZE = 256;
/**
 * The matchers made for a glob list object, one per case setting (a policy that does not say whether the
 * file system folds case is read both ways), each with the globs the list held then (a list changed in
 * place is seen).
 */
interface ListMatcher {
  globs: string[];
  matcher: (path: string) => boolean;
}
const matchersByList = new WeakMap<readonly string[], { exact?: ListMatcher; folded?: ListMatcher }>();

function matcherFor({ globs, caseFold }: { globs: readonly string[]; caseFold: boolean }) {
  // A policy's glob list is the same object on every check: found by identity, without a key to build.
  let byCase = matchersByList.get(globs);
  const known = caseFold ? byCase?.folded : byCase?.exact;
  if (known && sameGlobs(known.globs, globs)) return known.matcher;
  const key = JSON.stringify([caseFold, globs]);
  let matcher = matcherCache.get(key);
  if (matcher === undefined) {
    matcher = compileGlobs({ globs, caseFold });
    if (matcherCache.size >= MATCHER_CACHE_SIZE) matcherCache.clear();
    matcherCache.set(key, matcher);
  }
  if (!byCase) {
    byCase = {};
    matchersByList.set(globs, byCase);
  }
  byCase[caseFold ? "folded" : "exact"] = { globs: [...globs], matcher };
  return matcher;
}

function sameGlobs(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((glob, i) => glob === b[i]);
}

/**
 * One matcher for a glob list: what picomatch's list matcher answers, in one regular expression test.
 * picomatch (without `ignore`, `format`, `matchBase` or callbacks, as here) matches a non-empty path
 * that equals a glob or that the glob's anchored expression matches; its list matcher tries each glob
 * in turn, allocating a result per glob. Its expressions have no back-references or named groups, so
 * their alternation matches exactly when one of them does (path-globs.test.ts holds the two equal on
 * generated globs and paths). Should the alternation not compile, picomatch's list matcher is used.
 */
function compileGlobs({ globs, caseFold }: { globs: readonly string[]; caseFold: boolean }) {
  // `windows: false`: paths here are canonical POSIX paths, `\` in a glob is an escape, never a separator.
  const options = { dot: true, nocase: caseFold, windows: false };
  const pm = picomatch();
  try {
    const expressions = globs.map((glob) => pm.makeRe(glob, options));
    const flags = expressions[0]?.flags ?? "";
    if (expressions.some((re) => re.flags !== flags)) throw new Error("glob expressions differ in flags");
    const any = new RegExp(`^(?:${expressions.map((re) => `(?:${re.source})`).join("|")})`, flags);
    const literal = new Set(globs);
    return (path: string) => path !== "" && (literal.has(path) || any.test(path));
  } catch {
    return pm([...globs], options);
  }
}

/**
 * May some path at or below the canonical directory `dir` match one of the `globs`? What a shell pattern
 * whose literal leading directory is `dir` (`/h*`, `src/[0-9]*`) may expand to, read without the file
 * system. It over-approximates `pathMatches`, never under: each glob is matched segment by segment with
 * `dir`'s segments, a `**` segment matching any number of them, and the glob's segments past `dir` are
 * taken to match something below it. A glob that may span segments in one piece (a brace or an extglob
 * group) is read as `**` from that segment on, and a negated glob (`!…`) as matching anything.
 */
export function pathMayMatchBelow({
  dir,
  globs,
  caseFold = false,
}: {
  dir: string;
  globs: string | readonly string[];
  caseFold?: boolean;
}): boolean {
  const segments = dir === "/" ? [] : dir.split("/").slice(1);
  const list = typeof globs === "string" ? [globs] : globs;
  return list.some((glob) => globMayMatchBelow({ segments, glob: globSegments(glob), caseFold }));
}

/** A glob's segments from the root; "**" for what may match any number of them. */
function globSegments(glob: string): string[] {
  if (glob.startsWith("!")) return ["**"];
  // A relative glob matches an absolute path only through a leading `**` (pathMatches' picomatch).
  if (!glob.startsWith("/")) return glob.startsWith("**") ? ["**"] : [NO_MATCH];
  const segments = glob.slice(1).split("/");
  if (segments[segments.length - 1] === "") segments.pop();
  const spanning = segments.findIndex((segment) => /[{(]/.test(segment));
  return spanning === -1 ? segments : [...segments.slice(0, spanning), "**"];
}

/** A segment no glob segment is: what a relative glob that cannot match an absolute path stands for. */
const NO_MATCH = "\u0000";

function globMayMatchBelow(o: { segments: readonly string[]; glob: readonly string[]; caseFold: boolean }) {
  for (let i = 0; i < o.segments.length; i++) {
    const segment = o.glob[i];
    // The glob's paths end above dir: none is at or below it.
    if (segment === undefined || segment === NO_MATCH) return false;
    if (segment === "**") return true;
    if (!segmentMatcher({ glob: segment, caseFold: o.caseFold })(o.segments[i] as string)) return false;
  }
  return !o.glob.includes(NO_MATCH);
}

const segmentMatchers = new Map<string, (segment: string) => boolean>();

/** A matcher of one path segment by one glob segment, with pathMatches' options. */
function segmentMatcher({ glob, caseFold }: { glob: string; caseFold: boolean }) {
  const key = `${caseFold ? 1 : 0}${glob}`;
  let matcher = segmentMatchers.get(key);
  if (matcher === undefined) {
    matcher = picomatch()(glob, { dot: true, nocase: caseFold, windows: false });
    if (segmentMatchers.size >= MATCHER_CACHE_SIZE) segmentMatchers.clear();
    segmentMatchers.set(key, matcher);
  }
  return matcher;
}

/**
 * Decode every `%XX` run once (UTF-8). Returns undefined when the bytes are not UTF-8: such a reading
 * cannot be compared honestly, so callers treat it as undetermined. A BOM is kept (`ignoreBOM`), never
 * silently dropped.
 */
export function percentDecodeOnce(text: string): string | undefined {
  if (!text.includes("%")) return text;
  let bad = false;
  const out = text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    const bytes = new Uint8Array(run.length / 3);
    let ascii = true;
    for (let i = 0; i < bytes.length; i++) {
      bytes[i] = Number.parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
      if (bytes[i]! >= 0x80) ascii = false;
    }
    if (ascii) return String.fromCharCode(...bytes); // runs are short: at most a path's length / 3
    try {
      return UTF8.decode(bytes);
    } catch {
      bad = true;
      return run;
    }
  });
  return bad ? undefined : out;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Resolve `.` and `..` lexically on an absolute POSIX path (`..` above `/` stays at `/`), drop empty
 * segments and the trailing slash.
 */
export function normalisePosix(absolute: string): string {
  const stack: string[] = [];
  for (const segment of absolute.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") stack.pop();
    else stack.push(segment);
  }
  return `/${stack.join("/")}`;
}

function undetermined(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

function checkBase(base: string | undefined): Canonical<string | undefined> {
  if (base === undefined) return { ok: true, forms: [undefined] };
  if (typeof base !== "string" || !base.startsWith("/") || base.includes("\0")) {
    return undetermined("base is not an absolute path");
  }
  return { ok: true, forms: [normalisePosix(base)] };
}

/**
 * `file:///x` and `file://localhost/x` become `/x` (a query or fragment is cut off in one reading and kept
 * in another, as a naive `file://` stripper would); a `file:` URL naming any other host is not a local path.
 */
function fileUrlReadings(path: string): Canonical<string> {
  if (!/^file:/i.test(path)) return { ok: true, forms: [path] };
  const rest = path.slice(5);
  let pathPart: string;
  if (/^[/\\]{2}/.test(rest)) {
    const afterSlashes = rest.slice(2);
    const end = afterSlashes.search(/[/\\]/);
    const host = end < 0 ? afterSlashes : afterSlashes.slice(0, end);
    if (host !== "" && host.toLowerCase() !== "localhost") {
      return undetermined(`file: URL names host "${host}", not a local path`);
    }
    pathPart = end < 0 ? "/" : afterSlashes.slice(end);
  } else if (rest.startsWith("/")) {
    pathPart = rest;
  } else {
    return undetermined("file: URL without an absolute path");
  }
  const cut = pathPart.search(/[?#]/);
  if (cut < 0) return { ok: true, forms: [pathPart] };
  return { ok: true, forms: [pathPart.slice(0, cut) || "/", pathPart] };
}

/** A shell variable or `$(…)` substitution as a command's words show it (`$X`, `${…}`, `$(…)`, `$1`). */
const SHELL_VARIABLE = /\$[A-Za-z0-9_{(@*#?!$-]/;

/**
 * Whether `text` holds a shell expansion the reading does not know the value of: a variable or a
 * substitution, `$(…)` or backticks (how ShellCommand shows them in a word).
 */
export function hasShellExpansion(options: { text: string }): boolean {
  return SHELL_VARIABLE.test(options.text) || options.text.includes("`");
}

/** Why a reading cannot be resolved without a shell or is not a path at all; undefined when it is fine. */
function expansionReason(reading: string): string | undefined {
  if (reading.includes("\0")) return "path contains a NUL byte";
  if (reading.startsWith("~")) return "path starts with ~ (home-directory expansion is not modelled)";
  if (SHELL_VARIABLE.test(reading)) return "path contains a shell variable or substitution ($…)";
  if (reading.includes("`")) return "path contains a backtick command substitution";
  if (/^[A-Za-z]:[/\\]/.test(reading)) return "path is a Windows drive path (not modelled)";
  if (PROC_ELSEWHERE.test(reading)) {
    return "path goes through /proc/<pid>/cwd or a file descriptor (/proc/<pid>/fd, /dev/fd): not modelled";
  }
  return undefined;
}

/**
 * Linux aliases of other places: `/proc/self/root/etc/shadow` is `/etc/shadow`, and the cwd and file-
 * descriptor links lead wherever a process happens to be. Read on the lexical form, so `/tmp/../proc/…`
 * is caught too.
 */
const PROC_ROOT = /^\/proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/root(?=\/|$)/;
const PROC_ELSEWHERE = /^\/(?:proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/(?:cwd|fd)|dev\/fd)(?:\/|$)/;

type Step = (text: string) => string | undefined;

const STEPS: readonly { name: string; step: Step; decodes: boolean }[] = [
  { name: "percent-decode", step: percentDecodeOnce, decodes: true },
  { name: "backslash", step: (t) => (t.includes("\\") ? t.replaceAll("\\", "/") : t), decodes: false },
  { name: "nfc", step: (t) => t.normalize("NFC"), decodes: false },
  {
    name: "proc-root",
    step: (t) => (PROC_ROOT.test(t) ? t.replace(PROC_ROOT, "") || "/" : t),
    decodes: false,
  },
];

/**
 * The closure of the starting readings under every step (and under normalisation of absolute readings, so
 * a tool that normalises before decoding is covered too). Bounded: decoding must reach a fixpoint within
 * MAX_DECODE_ROUNDS along every chain, and the set stays under MAX_READINGS.
 */
function closeReadings({ starts, base }: { starts: string[]; base: string | undefined }): Canonical<string> {
  const depth = new Map<string, number>();
  const queue: string[] = [];
  const add = (text: string, decodes: number): string | undefined => {
    const known = depth.get(text);
    if (known !== undefined && known <= decodes) return undefined;
    if (known === undefined && depth.size >= MAX_READINGS) return "path has too many distinct readings";
    depth.set(text, decodes);
    queue.push(text);
    return undefined;
  };
  for (const start of starts) add(start, 0);
  while (queue.length > 0) {
    const text = queue.shift()!;
    const decodes = depth.get(text)!;
    const bad = expansionReason(text);
    if (bad !== undefined) return undetermined(bad);
    const normal = absoluteNormal(text, base);
    if (normal === undefined) return undetermined("relative path and no base to resolve it against");
    const failure = stepAll({ text, decodes, normal, add });
    if (failure !== undefined) return undetermined(failure);
  }
  return { ok: true, forms: [...depth.keys()] };
}

function stepAll({
  text,
  decodes,
  normal,
  add,
}: {
  text: string;
  decodes: number;
  normal: string;
  add: (text: string, decodes: number) => string | undefined;
}): string | undefined {
  for (const { step, decodes: isDecode } of STEPS) {
    const next = step(text);
    if (next === undefined) return "percent-encoding does not decode to UTF-8";
    if (next === text) continue;
    const nextDecodes = decodes + (isDecode ? 1 : 0);
    if (nextDecodes > MAX_DECODE_ROUNDS) {
      return `percent-decoding still changes the path after ${MAX_DECODE_ROUNDS} rounds`;
    }
    const failure = add(next, nextDecodes);
    if (failure !== undefined) return failure;
  }
  return normal === text ? undefined : add(normal, decodes);
}

/** The reading made absolute (against `base`) and normalised; undefined for a relative path without base. */
function absoluteNormal(reading: string, base: string | undefined): string | undefined {
  if (reading.startsWith("/")) return normalisePosix(reading);
  if (base === undefined) return undefined;
  return normalisePosix(`${base}/${reading}`);
}
