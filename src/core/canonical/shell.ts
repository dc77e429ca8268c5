/**
 * Canonical reading of shell command lines: every simple command a POSIX shell (bash, in the details)
 * would run, with its program and its flags in one canonical spelling, and every data flow from one
 * program into another.
 *
 * Why: a policy that says "never `rm -rf`" must not be bypassed by `rm -fr`, `\rm -r -f`, `sudo rm …`,
 * `echo ok && rm …`, `sh -c 'rm …'`, `$(rm …)` or `find … -exec rm …`. So the reading is deliberately
 * over-inclusive (anything that might run is a form: wrappers and what they run, every branch, every
 * reading of an ambiguous option) and whatever cannot be read statically — a variable or substitution
 * in the program position, an unterminated quote, an executed here-doc, `eval` or `sh -c` of something
 * computed, a shell reading its script from another program (`curl x | sh`: the flow is reported by
 * `shellPipes`), nesting or size past a bound — is undetermined and fails closed. Flags that a variable,
 * a pattern or `xargs` input could add are marked (`unknownFlags`) rather than guessed. The words of a
 * line that are no command's arguments are forms too (WRITE_FORMS, WORD_FORMS: the file a redirection
 * writes or reads, a here-string, an assignment, a loop's words), so a name cannot hide in them.
 *
 * Not modelled (a policy must treat these programs as running arbitrary code): interpreters' inline
 * code (`python -c`, `perl -e`, `awk 'BEGIN{system(…)}'`, `git -c alias.x='!…'`), files written then
 * run (`curl -o s.sh && sh s.sh`), variables assigned earlier in the line (`X=rm; $X` is undetermined).
 *
 * How: a small bounded scanner walks the raw text once, respecting quotes, and cuts out what
 * `shell-quote` does not model (`$(…)`, backticks, `<(…)`/`>(…)`, here-doc bodies, comments, newlines,
 * line continuations, `2>` descriptors), leaving placeholders; `shell-quote` then splits the rest into
 * words and operators; a recursive-descent reader builds the commands, unwraps wrappers (`sudo`, `env`,
 * `xargs`, …) and parses script bodies (`sh -c`, `eval`, substitutions) recursively up to a depth limit.
 * Everything is linear in the input up to the nesting depth; no regular expression can backtrack badly.
 */
import { lazyModule } from "../lazy-module.js";
import { assignedVariable, assignmentRuns, type EmbeddedRun, embeddedRuns } from "./shell-runners.js";
import type { Canonical } from "./types.js";

/** shell-quote, loaded on the first command a condition reads (core/lazy-module.ts). */
const shellQuote = lazyModule<typeof import("shell-quote")>({ specifier: "shell-quote" });

/** One simple command, as the shell would run it. */
export interface ShellCommand {
  /** The program's basename, quoting and escapes removed (`/bin/rm`, `\rm`, `r''m` → `rm`). */
  program: string;
  /** The words after the program, unquoted; variables and substitutions shown as written (`$X`, `$(…)`). */
  args: string[];
  /** Canonical flag names: short clusters split, per-program synonyms mapped to one name, no dashes. */
  flags: string[];
  /** The command as read: program and arguments joined by spaces (a normalised rendering, not a slice). */
  raw: string;
  /**
   * Set when some argument before `--` is a variable or substitution that could expand to further flags
   * (`rm $OPTS /srv`): `flags` then lists only the literal ones, and a flag condition is undetermined.
   */
  unknownFlags?: true;
  /**
   * Set when the command is one `xargs -0` runs on the output of a `find … -print0` (the pipeline stage
   * right before): the words xargs appends are paths at or below these starting points, never options.
   */
  appendedPaths?: string[];
  /**
   * Set when the line appends words to the command that it reads from input (`xargs cat`, `parallel
   * cat`), other than the paths of `appendedPaths`: operands the reading cannot name.
   */
  appendedWords?: true;
  /**
   * The arguments as bash expands them with every variable empty and every substitution printing
   * nothing (`.e$()nv` is `.env`, `sha${X}dow` is `shadow`), a variable with a word for being unset or
   * set read as that word (`${X:-.env}` and `${HOME:+.env}` are `.env`): one of the words the line may
   * run. Set only when some argument has a variable or a substitution.
   */
  emptiedArgs?: string[];
  /**
   * Set when an argument began with `$PWD` or `$(pwd)`, read as `.` (the directory the command runs in):
   * unquoted, bash splits that directory's name on white space and expands its patterns, so the reading
   * holds only where no directory the command may run in has such characters (condition.ts checks).
   */
  workingDirWords?: true;
}

/**
 * `find`'s starting points: its words before the expression, after the options that come first (`-H`,
 * `-L`, `-P`, `-D debugopts`, `-O level`); `.` when there is none (find walks the directory it runs in).
 */
export function findStartingPoints(args: readonly string[]): string[] {
  let i = 0;
  while (i < args.length && /^-([HLP]|O\d*|D)$/.test(args[i] as string)) i += args[i] === "-D" ? 2 : 1;
  const rest = args.slice(i);
  const end = rest.findIndex((a) => a.startsWith("-") || a === "(" || a === "!");
  const starts = end === -1 ? rest : rest.slice(0, end);
  return starts.length > 0 ? starts : ["."];
}

/** Input bound: longer command lines are undetermined rather than read slowly. */
export const MAX_COMMAND_LENGTH = 64 * 1024;
/** Nesting bound for substitutions, `sh -c` bodies and `eval` inside one another. */
export const MAX_NESTING = 8;
const MAX_GROUP_NESTING = 64;
const MAX_WRAPPERS = 32;
const MAX_COMMANDS = 512;
const MAX_SUBSTITUTIONS = 512;
/** All text scanned in one analysis (bodies of `sh -c`, `eval`… are scanned again): a bound on the work. */
const MAX_SCANNED = 4 * MAX_COMMAND_LENGTH;

// ---------------------------------------------------------------------------------------------------
// Public API

/** Every simple command anywhere in `command`, or undetermined with the first reason found. */
export function parseShellCommand({ command }: { command: string }): Canonical<ShellCommand> {
  const analysis = analyse(command);
  const problem = analysis.problems[0];
  if (problem) return { ok: false, reason: problem.reason };
  return { ok: true, forms: analysis.nodes.map(toShellCommand) };
}

/**
 * Every data flow from one program into another (`a | b`, `b <(a)`, `b "$(a)"`, `b -c "$(a)"`,
 * `a > >(b)`), transitively through intermediate programs (`curl x | tee f | sh` gives curl → tee,
 * curl → sh, tee → sh). A script body computed by a substitution (`sh -c "$(curl x)"`) is reported as
 * the flow it is, not as undetermined; anything else undetermined for `parseShellCommand` is here too.
 */
export function shellPipes({ command }: { command: string }): Canonical<{ from: string; to: string }> {
  const analysis = analyse(command);
  const problem = analysis.problems.find((p) => !p.flowReported);
  if (problem) return { ok: false, reason: problem.reason };
  return { ok: true, forms: flowPairs(analysis) };
}

/**
 * The canonical name(s) the parser gives a flag of `program`, in any spelling a policy may write:
 * `"-r"`, `"r"`, `"--recursive"`, `"recursive"` → `["recursive"]` for rm; a short cluster `"-rf"` →
 * `["recursive", "force"]`; `--name=value` drops the value. A bare word of one letter is a short flag,
 * of several letters a long name.
 */
export function canonicalFlag({ program, flag }: { program: string; flag: string }): string[] {
  const prog = programKey(basename(program.trim()));
  const f = flag.trim();
  if (f.startsWith("--")) return f.length > 2 ? longFlag(prog, f.slice(2)) : [];
  if (f.startsWith("-")) return f.length > 1 ? dashFlag(prog, f) : [];
  if (f.length === 1) return [shortFlag(prog, f)];
  return f.length > 0 ? longFlag(prog, f) : [];
}

// ---------------------------------------------------------------------------------------------------
// Flags

const RECURSIVE_SYNONYMS: Record<string, string> = { r: "recursive", R: "recursive", recursive: "recursive" };
const FORCE_SYNONYMS: Record<string, string> = { f: "force", force: "force" };

/** tar's operation letters and their long names. */
const TAR_SYNONYMS: Record<string, string> = {
  c: "create",
  create: "create",
  x: "extract",
  extract: "extract",
  get: "extract",
  t: "list",
  list: "list",
  r: "append",
  append: "append",
  u: "update",
  update: "update",
  A: "catenate",
  catenate: "catenate",
  concatenate: "catenate",
  d: "diff",
  diff: "diff",
  compare: "diff",
};
const GREP_SYNONYMS: Record<string, string> = { ...RECURSIVE_SYNONYMS, "dereference-recursive": "recursive" };
/** grep's flags that take a value, and what a value makes them mean: `-d recurse` is `-r`. */
const GREP_VALUED: readonly ValuedFlag[] = [
  { short: "d", long: "directories", value: "recurse", flag: "recursive" },
];

/**
 * An option that means a flag when given a value (`grep -d recurse`, `-drecurse`,
 * `--directories=recurse`): its short letter, long name, the value (any prefix of three letters or more,
 * as GNU argmatch takes them) and the canonical flag it then is.
 */
interface ValuedFlag {
  short: string;
  long: string;
  value: string;
  flag: string;
}
const VALUED_FLAGS = new Map<string, readonly ValuedFlag[]>(
  Object.entries({ grep: GREP_VALUED, egrep: GREP_VALUED, fgrep: GREP_VALUED }),
);

/**
 * The value an option spelled `-short` or `--long` takes in `text` (with `next`, the word after it), as
 * getopt reads it: `--long=v`, `--long v`, a prefix of the long name (`--out=v`); `-sv`, `-s v`, or its
 * letter in a short cluster (`-xsv`, `-xs v`), taking the rest of the word or, when last, the next word.
 * Undefined when `text` is not the option; `{ value: undefined }` when its value would be a word after
 * the last one.
 */
export function optionArgument(o: {
  text: string;
  next: string | undefined;
  short?: string;
  long?: string;
}): { value: string | undefined } | undefined {
  const { text, next } = o;
  if (text.startsWith("--")) {
    const eq = text.indexOf("=");
    const name = text.slice(2, eq === -1 ? undefined : eq);
    if (o.long === undefined || name === "" || !o.long.startsWith(name)) return undefined;
    return { value: eq === -1 ? next : text.slice(eq + 1) };
  }
  if (o.short === undefined || !text.startsWith("-")) return undefined;
  const at = text.indexOf(o.short, 1);
  if (at === -1) return undefined;
  return { value: at === text.length - 1 ? next : text.slice(at + 1) };
}

/** The canonical flags that `text` (with `next`, the word after it) gives through a valued option. */
function valuedFlags(program: string, text: string, next: string | undefined): string[] {
  const valued = VALUED_FLAGS.get(program);
  if (!valued) return [];
  return valued.flatMap((spec) => {
    // The value up to a second `=` is read too (`--directories=rec=x`), as this reading always has.
    const value = optionArgument({ text, next, short: spec.short, long: spec.long })?.value?.split("=", 1)[0];
    return value !== undefined && value.length >= 3 && spec.value.startsWith(value) ? [spec.flag] : [];
  });
}

/** Per-program synonyms: every spelling maps to one canonical name. */
const FLAG_SYNONYMS = new Map<string, Record<string, string>>(
  Object.entries({
    tar: TAR_SYNONYMS,
    gtar: TAR_SYNONYMS,
    bsdtar: TAR_SYNONYMS,
    grep: GREP_SYNONYMS,
    egrep: GREP_SYNONYMS,
    fgrep: GREP_SYNONYMS,
    rm: { ...RECURSIVE_SYNONYMS, ...FORCE_SYNONYMS },
    // removers spelled as rm is: a wrapper of it, and the secure-deletion tools
    "safe-rm": { ...RECURSIVE_SYNONYMS, ...FORCE_SYNONYMS },
    srm: { ...RECURSIVE_SYNONYMS, ...FORCE_SYNONYMS },
    wipe: { ...RECURSIVE_SYNONYMS, ...FORCE_SYNONYMS },
    cp: { ...RECURSIVE_SYNONYMS, ...FORCE_SYNONYMS },
    mv: { ...FORCE_SYNONYMS },
    chmod: { ...RECURSIVE_SYNONYMS },
    chown: { ...RECURSIVE_SYNONYMS },
    chgrp: { ...RECURSIVE_SYNONYMS },
    // `-f` is `--force` for every git subcommand that has it (push, clean, branch, checkout, add, rm, tag…).
    git: { ...FORCE_SYNONYMS, "force-with-lease": "force", "force-if-includes": "force" },
  }),
);

/** A synonym lookup that never reaches `Object.prototype` (`constructor`, `__proto__` are plain words). */
function synonym(program: string, name: string): string {
  const table = FLAG_SYNONYMS.get(program);
  return table && Object.hasOwn(table, name) ? (table[name] as string) : name;
}

/** Programs whose options are single-dash long words (`find -exec`, `find -delete`). */
const SINGLE_DASH_LONG = new Set(["find"]);

function shortFlag(program: string, letter: string): string {
  return synonym(program, letter);
}

/**
 * A long option (value after `=` dropped). GNU getopt and git accept any unambiguous prefix
 * (`rm --rec` is `--recursive`), so a prefix of a name in the synonym table maps to it; a prefix of
 * several maps to all of them (the program would refuse it; reading more is the safe side).
 */
function longFlag(program: string, name: string): string[] {
  const bare = name.split("=")[0] ?? name;
  if (bare === "") return [];
  const table = FLAG_SYNONYMS.get(program);
  if (!table || Object.hasOwn(table, bare)) return [synonym(program, bare)];
  const expanded = Object.keys(table)
    .filter((long) => long.length > 1 && long.startsWith(bare))
    .map((long) => table[long] as string);
  return expanded.length > 0 ? unique(expanded) : [bare];
}

/** `-x`, `-xyz` (a cluster of short flags) or, for find-like programs, `-name` (one long word). */
function dashFlag(program: string, word: string): string[] {
  if (SINGLE_DASH_LONG.has(program)) return longFlag(program, word.slice(1));
  return Array.from(word.slice(1), (letter) => shortFlag(program, letter));
}

const MAX_BRACE_WORD = 256;
const MAX_BRACE_RESULTS = 64;

/**
 * Bash brace expansion of one word (`-{r,f}` → `-r -f`, `{-r,-f}`, `-{a..c}`, `.e{n,}v` → `.env .ev`),
 * so flags and names cannot hide in it; null when the word is longer than MAX_BRACE_WORD or expands to
 * more than `maxWords` (default 64) words. Quoting is not known here, so a quoted brace expands too:
 * that only reads more flags and names.
 */
export function braceExpansions(options: { word: string; maxWords?: number }): string[] | null {
  const { word } = options;
  const maxWords = options.maxWords ?? MAX_BRACE_RESULTS;
  if (!word.includes("{")) return [word];
  if (word.length > MAX_BRACE_WORD) return null;
  const results: string[] = [];
  const pending = [word];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    const alternatives = firstBrace(current, maxWords);
    if (!alternatives) results.push(current);
    else pending.push(...alternatives);
    if (results.length + pending.length > maxWords) return null;
  }
  return results.reverse();
}

/** The words one brace of `word` expands to, or null when it has no expandable brace. */
function firstBrace(word: string, maxWords: number): string[] | null {
  for (let open = word.indexOf("{"); open >= 0; open = word.indexOf("{", open + 1)) {
    let depth = 0;
    const commas: number[] = [];
    for (let j = open; j < word.length; j++) {
      const c = word[j];
      if (c === "{") depth += 1;
      else if (c === ",") {
        if (depth === 1) commas.push(j);
      } else if (c === "}" && --depth === 0) {
        const head = word.slice(0, open);
        const tail = word.slice(j + 1);
        const inner = word.slice(open + 1, j);
        if (commas.length > 0) {
          const cuts = [open, ...commas, j];
          return cuts.slice(1).map((cut, i) => head + word.slice((cuts[i] as number) + 1, cut) + tail);
        }
        const range = braceRange(inner, maxWords);
        if (range) return range.map((item) => head + item + tail);
        break;
      }
    }
  }
  return null;
}

/** `a..e`, `1..5`: the items, bounded by `maxWords`; null when not a range. */
function braceRange(inner: string, maxWords: number): string[] | null {
  const m = /^(-?\d{1,6}|[A-Za-z])\.\.(-?\d{1,6}|[A-Za-z])$/.exec(inner);
  if (!m) return null;
  const [from, to] = [m[1] as string, m[2] as string];
  const numeric = /\d/.test(from) && /\d/.test(to);
  const a = numeric ? Number(from) : from.charCodeAt(0);
  const b = numeric ? Number(to) : to.charCodeAt(0);
  // too long a range: more items than the caller accepts, so it gives up
  if (Math.abs(b - a) >= maxWords) return Array.from({ length: maxWords + 1 }, () => "");
  const step = a <= b ? 1 : -1;
  const items: string[] = [];
  for (let v = a; step > 0 ? v <= b : v >= b; v += step)
    items.push(numeric ? String(v) : String.fromCharCode(v));
  return items;
}

interface FlagReading {
  flags: string[];
  unknown: boolean;
}

/** tar's option letters that take a value (`-f archive`, `-C dir`, `-T list`…). */
const TAR_VALUED_LETTERS = "bCfFgHIKLNTVX";
/**
 * Programs whose first word, without a dash, is a cluster of options (`tar czf x.tgz dir`, `ar rcs`), with
 * their letters that take a value: in that old style those values are the words right after the cluster,
 * in the letters' order (`tar cfb x.tar 20`: `f` is `x.tar`, `b` is `20`).
 */
const OLD_STYLE_OPTIONS = new Map<string, string>([
  ["tar", TAR_VALUED_LETTERS],
  ["gtar", TAR_VALUED_LETTERS],
  ["bsdtar", TAR_VALUED_LETTERS],
  ["ar", ""],
]);

/**
 * The value option `letter` takes in an old-style first word (`tar czf /x.tgz src`: `f` is `/x.tgz`), as
 * optionArgument gives it: undefined when `program` has no old style, `args` do not begin with a cluster
 * or the cluster lacks the letter; `{ value: undefined }` when its value would be a word after the last.
 */
export function oldStyleOptionArgument(o: {
  program: string;
  args: readonly string[];
  letter: string;
}): { value: string | undefined } | undefined {
  const valued = OLD_STYLE_OPTIONS.get(o.program);
  const first = o.args[0];
  if (!valued?.includes(o.letter) || first === undefined || !/^[A-Za-z]+$/.test(first)) return undefined;
  let taken = 0;
  for (const letter of first) {
    if (letter === o.letter) return { value: o.args[1 + taken] };
    if (valued.includes(letter)) taken++;
  }
  return undefined;
}

/**
 * The first character of a word that is no option (`-`, `+`), operator (`!`, `(`) or pattern (`[`), and
 * begins every word brace expansion makes of it (not `{`: `{-o,x}"$X"` gives `-o…`; quoting is not kept).
 */
const OPERAND_HEAD = /^[A-Za-z0-9_./:@,% ]/;
/** A character no subcommand, keyword or option name has (`"reb$X"` may be `rebase`, `"v$X"` a tag). */
const OPERAND_SEPARATOR = /[ :/=@]/;

/**
 * Literal text that begins a word no program reads as an option or a subcommand, whatever follows: its
 * first character no option's, and a separator before the expansion (`"Bearer $T"`, `"src/$D"`).
 */
function isOperandHead(literal: string): boolean {
  return OPERAND_HEAD.test(literal) && OPERAND_SEPARATOR.test(literal);
}

/** A long option and `=`, its name written out: `--header=`. */
const LONG_WITH_VALUE = /^--[A-Za-z0-9][A-Za-z0-9-]*=/;

/** The canonical flags of a command's arguments: options end at `--`; GNU-style, flags may follow operands. */
function readFlags(program: string, args: Word[]): FlagReading {
  const flags: string[] = [];
  let unknown = false;
  const isGitPush = program === "git" && args.some((a) => a.text === "push");
  const first = args[0];
  if (OLD_STYLE_OPTIONS.has(program) && first && !isDynamic(first) && /^[A-Za-z]+$/.test(first.text)) {
    flags.push(...dashFlag(program, `-${first.text}`));
  }
  for (const [index, arg] of args.entries()) {
    if (arg.text === "--") break;
    if (isDynamic(arg)) {
      const literal = arg.text.split("\u0000")[0] ?? "";
      // One word that begins with text no option, operator or subcommand begins with (`"Bearer $T"`,
      // `"id=$N"`) is an operand or an option's value, whatever the values; tar's first word is options.
      if (arg.whole && isOperandHead(literal) && !(index === 0 && OLD_STYLE_OPTIONS.has(program))) continue;
      // `--name="…$X"`: the option is the name as written; a value that may mean a flag (grep's) is not.
      if (arg.whole && LONG_WITH_VALUE.test(literal) && !VALUED_FLAGS.has(program)) {
        flags.push(...longFlag(program, literal.slice(2)));
        continue;
      }
      // `$OPTS` may expand to `-rf`; the literal part of `-r$X` still counts.
      unknown = true;
      if (literal.startsWith("-") && !literal.startsWith("--")) flags.push(...dashFlag(program, literal));
      continue;
    }
    // A pattern that can match a file named `-rf` passes it as flags (`touch -- -rf; rm *`). A quoted
    // `*` or `?` is the character itself (`find . -name '*.ts'`): shell-quote marks only unquoted ones
    // as a glob. It does not mark `[`, so a word that begins with one counts however it was written.
    if ((arg.glob && /^[*?]/.test(arg.text)) || arg.text.startsWith("[")) unknown = true;
    const words = braceExpansions({ word: arg.text });
    if (!words) unknown = true;
    for (const text of words ?? [arg.text]) {
      flags.push(...valuedFlags(program, text, args[index + 1]?.text));
      if (text.startsWith("--") && text.length > 2) flags.push(...longFlag(program, text.slice(2)));
      else if (text.startsWith("-") && text.length > 1) flags.push(...dashFlag(program, text));
      else if (isGitPush && text.startsWith("+") && text.length > 1) flags.push("force"); // `+main` force-pushes
    }
  }
  return { flags: unique(flags), unknown };
}

// ---------------------------------------------------------------------------------------------------
// Stage 1: the bounded scanner

type SubKind = "command" | "process-in" | "process-out" | "arith" | "heredoc";

interface Substitution {
  kind: SubKind;
  /** The text as written, for rendering arguments. */
  source: string;
  body: Scanned;
}

/** A command text with substitutions cut out (placeholders `${\0S<n>}`) and comments, newlines normalised. */
interface Scanned {
  text: string;
  subs: Substitution[];
}

type ScanFailure = { fail: string };
type Scan<T> = T | ScanFailure;

function failed<T>(value: Scan<T>): value is ScanFailure {
  return typeof value === "object" && value !== null && "fail" in value;
}

/** Shared across a whole analysis: substitutions that may still be cut out, characters still to scan. */
interface Budget {
  subs: number;
  chars: number;
}

interface Cursor {
  src: string;
  pos: number;
  budget: Budget;
}

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  quoted: boolean;
  /** Index of the output chunk that receives the body's substitution placeholders. */
  slot: number;
}

/**
 * A line continuation (backslash, newline) at the cursor is skipped, in unquoted text as in double
 * quotes and here-doc bodies: true when one was.
 */
function skipLineContinuation(cur: Cursor): boolean {
  if (cur.src[cur.pos] !== "\\" || cur.src[cur.pos + 1] !== "\n") return false;
  cur.pos += 2;
  return true;
}

const placeholder = (n: number): string => "${\u0000S" + n + "}";
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isNameChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);
const WORD_BREAK = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);

/**
 * Scans shell text in unquoted context until the end (closer null) or an unmatched `)` (closer ")",
 * consumed). Emits the text for shell-quote with substitutions replaced by placeholders.
 */
function scanList(cur: Cursor, depth: number, closer: ")" | null, arith = false): Scan<Scanned> {
  if (depth > MAX_NESTING) return { fail: `nesting deeper than ${MAX_NESTING} levels` };
  const out: string[] = [];
  const subs: Substitution[] = [];
  const pending: PendingHeredoc[] = [];
  const { src } = cur;
  let parenDepth = 0;
  let paramDepth = 0;
  let wordStart = true;
  /** Inside `(( … ))` (the paren depth it ends at): `<<` is a shift there, not a here-document. */
  let arithEnd: number | null = null;

  const addSub = (kind: SubKind, start: number, body: Scanned): Scan<string> => {
    if (--cur.budget.subs < 0) return { fail: `more than ${MAX_SUBSTITUTIONS} substitutions` };
    subs.push({ kind, source: src.slice(start, cur.pos), body });
    return placeholder(subs.length - 1);
  };

  while (cur.pos < src.length) {
    if (skipLineContinuation(cur)) continue;
    const c = src[cur.pos] as string;
    const next = src[cur.pos + 1];
    const start = cur.pos;

    if (c === "\\") {
      out.push(next === undefined ? "" : c + next);
      cur.pos += 2;
      wordStart = false;
      continue;
    }
    if (c === "'") {
      const end = src.indexOf("'", cur.pos + 1);
      if (end < 0) return { fail: "unterminated single quote" };
      out.push(src.slice(cur.pos, end + 1));
      cur.pos = end + 1;
      wordStart = false;
      continue;
    }
    if (c === '"') {
      const dq = scanDouble(cur, depth, subs, '"');
      if (failed(dq)) return dq;
      out.push(dq);
      wordStart = false;
      continue;
    }
    if (c === "$") {
      wordStart = false;
      if (next === "'") {
        const end = ansiCEnd(src, cur.pos + 2);
        if (end < 0) return { fail: "unterminated $'…' quote" };
        out.push(src.slice(cur.pos, end + 1));
        cur.pos = end + 1;
        continue;
      }
      if (next === '"') {
        cur.pos += 1; // `$"…"` (locale translation) reads as `"…"`
        continue;
      }
      if (next === "#") {
        out.push("$#"); // the argument count, not a comment
        cur.pos += 2;
        continue;
      }
      if (next === "(") {
        const maybeArith = src[cur.pos + 2] === "(";
        cur.pos += 2;
        const body = scanList(cur, depth + 1, ")", maybeArith);
        if (failed(body)) return body;
        const ph = addSub(maybeArith && isArithmetic(body.text) ? "arith" : "command", start, body);
        if (failed(ph)) return ph;
        out.push(ph);
        continue;
      }
      if (next === "{") paramDepth += 1;
      out.push(next === "{" ? "${" : "$");
      cur.pos += next === "{" ? 2 : 1;
      continue;
    }
    if (c === "`") {
      const bt = scanBacktick(cur, depth);
      if (failed(bt)) return bt;
      const ph = addSub("command", start, bt);
      if (failed(ph)) return ph;
      out.push(ph);
      wordStart = false;
      continue;
    }
    if (c === "#" && paramDepth === 0) {
      if (wordStart) {
        const nl = src.indexOf("\n", cur.pos);
        cur.pos = nl < 0 ? src.length : nl; // a comment runs to the end of the line
        continue;
      }
      out.push("\\#"); // mid-word `#` is literal in the shell; shell-quote would start a comment
      cur.pos += 1;
      continue;
    }
    if (c === "}" && paramDepth > 0) {
      paramDepth -= 1;
      out.push(c);
      cur.pos += 1;
      continue;
    }
    if (c === "\n") {
      out.push(" ; ");
      cur.pos += 1;
      wordStart = true;
      if (pending.length > 0) {
        const bodies = readHeredocs(cur, depth, pending.splice(0));
        if (failed(bodies)) return bodies;
        for (const { slot, body, source } of bodies) {
          if (--cur.budget.subs < 0) return { fail: `more than ${MAX_SUBSTITUTIONS} substitutions` };
          subs.push({ kind: "heredoc", source, body });
          out[slot] += placeholder(subs.length - 1);
        }
      }
      continue;
    }
    if ((c === "<" || c === ">") && next === "(") {
      cur.pos += 2;
      const body = scanList(cur, depth + 1, ")");
      if (failed(body)) return body;
      const ph = addSub(c === "<" ? "process-in" : "process-out", start, body);
      if (failed(ph)) return ph;
      out.push(ph);
      wordStart = false;
      continue;
    }
    if (c === "<" && next === "<" && src[cur.pos + 2] === "<") {
      out.push("<<<"); // a here-string: its word is an ordinary word
      cur.pos += 3;
      wordStart = true;
      continue;
    }
    if (c === "<" && next === "<" && !arith && arithEnd === null) {
      const doc = readHeredocDelimiter(cur);
      if (failed(doc)) return doc;
      out.push(doc.stripTabs ? " <<- H" : " << H");
      pending.push({ ...doc, slot: out.length - 1 });
      out.push(" ");
      wordStart = true;
      continue;
    }
    if (wordStart && isDigit(c)) {
      let j = cur.pos;
      while (isDigit(src[j])) j += 1;
      if (src[j] === "<" || src[j] === ">") {
        cur.pos = j; // `2>file`: which descriptor is redirected does not matter here
        continue;
      }
    }
    if (wordStart && c === "{") {
      let j = cur.pos + 1;
      while (isNameChar(src[j])) j += 1;
      if (j > cur.pos + 1 && src[j] === "}" && (src[j + 1] === "<" || src[j + 1] === ">")) {
        cur.pos = j + 1; // `{fd}>file`
        continue;
      }
    }
    if (c === "(" && next === "(" && wordStart && arithEnd === null) arithEnd = parenDepth;
    if (c === "(") parenDepth += 1;
    if (c === ")") {
      if (parenDepth === 0 && closer === ")") {
        cur.pos += 1;
        return { text: out.join(""), subs };
      }
      parenDepth -= 1;
      if (arithEnd !== null && parenDepth <= arithEnd) arithEnd = null;
    }
    out.push(c);
    cur.pos += 1;
    wordStart = WORD_BREAK.has(c);
  }
  if (closer) return { fail: "unterminated substitution (missing `)`)" };
  return { text: out.join(""), subs };
}

/**
 * Whether a `$((…))` is arithmetic: the body after `$(` is one parenthesised group, closed by its last
 * character. `$((cd x; rm y) )` is a command substitution running a subshell, and is read as one.
 */
function isArithmetic(body: string): boolean {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quote) {
      if (c === "\\" && quote === '"') i += 1;
      else if (c === quote) quote = null;
    } else if (c === "\\") i += 1;
    else if (c === "'" || c === '"') quote = c;
    else if (c === "(") depth += 1;
    else if (c === ")" && --depth === 0) return i === body.length - 1;
  }
  return false;
}

/** The index of the `'` that closes a `$'…'` body starting at `from`, or -1. */
function ansiCEnd(src: string, from: number): number {
  let j = from;
  while (j < src.length) {
    if (src[j] === "\\") j += 2;
    else if (src[j] === "'") return j;
    else j += 1;
  }
  return -1;
}

/**
 * Double-quoted text from the opening `"` (terminator `"`), or a here-doc body (terminator null: runs to
 * the end, `"` literal). `$(…)` and backticks are substitutions; `\` escapes only `$ \` " \\` newline.
 */
/** `$(cat <<'EOF'` (or `<<-"EOF"`) up to the end of its first line: the delimiter, quoted. */
const HEREDOC_CAT = /\$\([ \t]*cat[ \t]+<<(-?)[ \t]*(?:'([^'\n]+)'|"([^"\n]+)")[ \t]*\n/y;
/**
 * A line that may make `cat` run something else: a function or an alias named so, `hash -p`, `enable`,
 * or a PATH it changes. Read wide: a word that merely mentions one of them keeps the substitution.
 */
const CAT_REDEFINED = /(^|[^\w-])cat[ \t]*\(|\b(function|alias|hash|enable|command_not_found_handle)\b|PATH/;

/**
 * The text of `"$(cat <<'EOF' … EOF)"` at `at` inside double quotes: a here-document with a quoted
 * delimiter is literal (nothing in it expands), and the substitution prints exactly its lines, trailing
 * newlines removed — so the word is that text, not a computed one (Claude Code writes every commit
 * message and pull-request body so). Undefined for anything else (another command in the substitution,
 * an unquoted delimiter, a line that may redefine `cat`), which is read as a substitution.
 */
function quotedHeredocText(src: string, at: number): { value: string; end: number } | undefined {
  HEREDOC_CAT.lastIndex = at;
  const head = HEREDOC_CAT.exec(src);
  if (!head) return undefined;
  const doc = { delimiter: (head[2] ?? head[3]) as string, stripTabs: head[1] === "-" };
  const start = HEREDOC_CAT.lastIndex;
  const { end, next } = heredocExtent(src, start, doc);
  let pos = next;
  while (pos < src.length && /[ \t\n]/.test(src[pos] as string)) pos++;
  if (src[pos] !== ")") return undefined;
  const body = src.slice(start, end);
  const value = (doc.stripTabs ? body.replace(/^\t+/gm, "") : body).replace(/\n+$/, "");
  // The rest of the line, not the message (which may well say "function" or "hash").
  if (value.includes("\u0000") || CAT_REDEFINED.test(src.slice(0, at) + src.slice(pos + 1))) return undefined;
  return { value, end: pos + 1 };
}

/**
 * Put before an expansion inside double quotes (scanDouble) and removed by tokenise, which reads from it
 * whether every expansion of a word is quoted (Word.whole). NUL never reaches the scanner (parseScript).
 */
const QUOTED = "\u0000Q";
/**
 * `$(…)`, `$name`, `$1`, `${name}` or `${name` with an operator and a word `}` (`${X:-w}`, `${X#p}`),
 * whose quoted expansion is one word; not `$@`, `${a[@]}`, `${!p@}`, nor a word that mentions `@` or `*`.
 */
const ONE_WORD_EXPANSION = /\$(?:[(A-Za-z_0-9]|\{[A-Za-z_]\w*(?:[-:#%/^,=+?][^}@*]*)?\})/y;

function oneWordExpansion(src: string, at: number): boolean {
  ONE_WORD_EXPANSION.lastIndex = at;
  return ONE_WORD_EXPANSION.test(src);
}

function scanDouble(cur: Cursor, depth: number, subs: Substitution[], terminator: '"' | null): Scan<string> {
  const { src } = cur;
  const out: string[] = [];
  const quoted = terminator === '"' ? QUOTED : "";
  if (terminator) {
    out.push('"');
    cur.pos += 1;
  }
  while (cur.pos < src.length) {
    if (skipLineContinuation(cur)) continue;
    const c = src[cur.pos] as string;
    const next = src[cur.pos + 1];
    const start = cur.pos;
    if (c === "\\") {
      // `\`` is a literal backtick; shell-quote would keep the backslash, and a body run later by
      // `sh -c` must see the backtick the shell will see
      out.push(next === undefined ? c : next === "`" ? next : c + next);
      cur.pos += 2;
      continue;
    }
    if (c === terminator) {
      out.push(c);
      cur.pos += 1;
      return out.join("");
    }
    if (c === "$" && next === "(") {
      const literal = terminator === '"' ? quotedHeredocText(src, cur.pos) : undefined;
      if (literal) {
        out.push(literal.value.replace(/[\\"$]/g, "\\$&"));
        cur.pos = literal.end;
        continue;
      }
      const maybeArith = src[cur.pos + 2] === "(";
      cur.pos += 2;
      const body = scanList(cur, depth + 1, ")", maybeArith);
      if (failed(body)) return body;
      if (--cur.budget.subs < 0) return { fail: `more than ${MAX_SUBSTITUTIONS} substitutions` };
      const kind: SubKind = maybeArith && isArithmetic(body.text) ? "arith" : "command";
      subs.push({ kind, source: src.slice(start, cur.pos), body });
      out.push(quoted + placeholder(subs.length - 1));
      continue;
    }
    if (c === "`") {
      const body = scanBacktick(cur, depth);
      if (failed(body)) return body;
      if (--cur.budget.subs < 0) return { fail: `more than ${MAX_SUBSTITUTIONS} substitutions` };
      subs.push({ kind: "command", source: src.slice(start, cur.pos), body });
      out.push(quoted + placeholder(subs.length - 1));
      continue;
    }
    // An expansion inside double quotes stays one word (QUOTED marks it for tokenise); `"$@"`,
    // `"${a[@]}"` and the other forms that may give several words are left unmarked.
    if (c === "$" && quoted !== "" && oneWordExpansion(src, cur.pos)) out.push(quoted);
    out.push(c);
    cur.pos += 1;
  }
  if (terminator) return { fail: "unterminated double quote" };
  return out.join("");
}

/** A backtick substitution from its opening `` ` ``: `\` before `` ` `` `\` `$` is removed, then scanned. */
function scanBacktick(cur: Cursor, depth: number): Scan<Scanned> {
  const { src } = cur;
  let j = cur.pos + 1;
  const body: string[] = [];
  while (j < src.length && src[j] !== "`") {
    const c = src[j] as string;
    const next = src[j + 1];
    if (c === "\\" && (next === "`" || next === "\\" || next === "$")) {
      body.push(next);
      j += 2;
    } else {
      body.push(c);
      j += 1;
    }
  }
  if (j >= src.length) return { fail: "unterminated backtick substitution" };
  cur.pos = j + 1;
  return scanList({ src: body.join(""), pos: 0, budget: cur.budget }, depth + 1, null);
}

/** After `<<` or `<<-`: the delimiter word (quoted delimiter → the body is not expanded). */
function readHeredocDelimiter(cur: Cursor): Scan<Omit<PendingHeredoc, "slot">> {
  const { src } = cur;
  cur.pos += 2;
  const stripTabs = src[cur.pos] === "-";
  if (stripTabs) cur.pos += 1;
  while (src[cur.pos] === " " || src[cur.pos] === "\t") cur.pos += 1;
  let delimiter = "";
  let quoted = false;
  while (cur.pos < src.length && !WORD_BREAK.has(src[cur.pos] as string)) {
    const c = src[cur.pos] as string;
    if (c === "'" || c === '"') {
      const end = src.indexOf(c, cur.pos + 1);
      if (end < 0) return { fail: "unterminated quote in here-document delimiter" };
      delimiter += src.slice(cur.pos + 1, end);
      quoted = true;
      cur.pos = end + 1;
    } else if (c === "\\") {
      delimiter += src[cur.pos + 1] ?? "";
      quoted = true;
      cur.pos += 2;
    } else {
      delimiter += c;
      cur.pos += 1;
    }
  }
  if (delimiter === "") return { fail: "here-document without a delimiter" };
  return { delimiter, stripTabs, quoted };
}

/** Reads the bodies of the pending here-docs (the lines after the one that opened them). */
/**
 * Where the body of a here-document that begins at `start` ends (the start of its delimiter line, which
 * `<<-` reads without leading tabs) and where the text goes on after that line; both the text's end
 * when no line closes it (bash reads to the end).
 */
function heredocExtent(
  src: string,
  start: number,
  doc: { delimiter: string; stripTabs: boolean },
): { end: number; next: number } {
  let pos = start;
  while (pos < src.length) {
    const nl = src.indexOf("\n", pos);
    let line = src.slice(pos, nl < 0 ? src.length : nl);
    if (doc.stripTabs) line = line.replace(/^\t+/, "");
    const next = nl < 0 ? src.length : nl + 1;
    if (line === doc.delimiter) return { end: pos, next };
    pos = next;
  }
  return { end: src.length, next: src.length };
}

function readHeredocs(
  cur: Cursor,
  depth: number,
  docs: PendingHeredoc[],
): Scan<{ slot: number; body: Scanned; source: string }[]> {
  const { src } = cur;
  const result: { slot: number; body: Scanned; source: string }[] = [];
  for (const doc of docs) {
    const start = cur.pos;
    const { end, next } = heredocExtent(src, start, doc);
    cur.pos = next;
    const text = src.slice(start, end);
    // A quoted delimiter: the body is literal data, nothing runs in it (kept for Analysis.heredocs).
    if (doc.quoted) {
      result.push({ slot: doc.slot, body: { text: "", subs: [] }, source: text });
      continue;
    }
    const subs: Substitution[] = [];
    const scanned = scanDouble({ src: text, pos: 0, budget: cur.budget }, depth, subs, null);
    if (failed(scanned)) return scanned;
    result.push({ slot: doc.slot, body: { text: "", subs }, source: text });
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------
// Stage 2: words and operators (shell-quote)

interface Word {
  /** Unquoted text; `\0V<name>\0` marks a variable, `\0S<n>\0` a substitution of this level. */
  text: string;
  glob: boolean;
  /** `.` here was `$PWD` or `$(pwd)` (workingDirWord): bash splits the directory's name on white space. */
  workingDir?: true;
  /**
   * Every expansion in the word is inside double quotes and none may give several words (`"$@"`), nor
   * is the word a pattern: it stays one word whatever the values (`-H "Authorization: $TOKEN"`).
   */
  whole?: true;
}

type Token = { word: Word } | { op: string };

const isOpToken = (t: Token | undefined, ...ops: string[]): boolean =>
  t !== undefined && "op" in t && (ops.length === 0 || ops.includes(t.op));
const wordOf = (t: Token | undefined): Word | undefined =>
  t !== undefined && "word" in t ? t.word : undefined;

const SUB_IN_WORD = /\u0000S(\d+)/g;

function isDynamic(word: Word): boolean {
  return word.text.includes("\u0000");
}

/**
 * A word's expansion markers (see Word): a substitution, alone or braced, or a variable (its name, which
 * may hold a braced substitution's placeholder: `${X:-$(…)}`).
 */
const EXPANSION_MARKERS =
  /\$\{\u0000S(\d+)\}|\u0000S(\d+)\u0000|\u0000V((?:[^\u0000$]|\$(?!\{\u0000)|\$\{\u0000S\d+\})*)\u0000/g;
/** A substitution's placeholder inside a variable's name. */
const SUB_IN_NAME = /\$\{\u0000S(\d+)\}/g;

/** A word's text with each substitution and variable replaced by the text `replace` gives for it. */
function replaceExpansions(
  word: Word,
  replace: { substitution: (n: number) => string; variable: (name: string) => string },
): string {
  return word.text.replace(EXPANSION_MARKERS, (_, braced, bare, name) =>
    name !== undefined
      ? replace.variable(name.replace(SUB_IN_NAME, (_: string, n: string) => replace.substitution(Number(n))))
      : replace.substitution(Number(braced ?? bare)),
  );
}

/**
 * A variable's `${name…}` with a word bash expands to by whether it is set: its default when it is unset
 * (`X:-w`, `X-w`, `X:=w`, `X=w`), its alternate when it is set (`X:+w`, `X+w`).
 */
const WORD_VALUE = /^(?:[A-Za-z_]\w*|\d+|[@*#?$!-]):?[-=+](.*)$/s;
/** A parameter inside such a word: braced without braces inside (the innermost first), or bare. */
const INNER_PARAMETER = /\$\{([^{}]*)\}|\$(?:[A-Za-z_]\w*|\d|[@*#?$!-])/g;

/**
 * One value a variable may expand to: the word it has for being unset or set, its own parameters read
 * the same way (`${X:-${Y:-.env}}` and `${X:-$Y}` are what they are with Y unset) and quotes removed
 * (`${X:-'.env'}` is `.env`); else nothing (`$X` unset, `${X#p}`, `${X:?w}`, which runs nothing). A word
 * is read for each variable on its own, as set or unset, whichever gives a word: one of the values the
 * line may have, which is all a reading of it needs.
 */
function parameterWord(name: string): string {
  const word = WORD_VALUE.exec(name)?.[1];
  if (word === undefined) return "";
  let value: string = word;
  for (let depth = 0; depth < MAX_NESTING && value.includes("$"); depth++) {
    const inner: string = value.replace(INNER_PARAMETER, (_, braced: string | undefined) =>
      braced === undefined ? "" : parameterWord(braced),
    );
    if (inner === value) break;
    value = inner;
  }
  return value.replace(/\\(.)|['"]/gs, "$1");
}

/** A word as bash may expand it: each variable empty or its word (parameterWord), each substitution empty. */
function emptied(word: Word): string {
  return replaceExpansions(word, { substitution: () => "", variable: parameterWord });
}

/** `$PWD` (or `${PWD}`) or a substitution, at the start of a word and before its end, a `/` or a `:`. */
const WORKING_DIR_HEAD = /^(?:\u0000VPWD\u0000|\u0000S(\d+)\u0000)(?=$|[/:])/;
/** A substitution that prints the working directory: `$(pwd)`, `` `pwd -P` ``. */
const PWD_SUBSTITUTION = /^(?:\$\(\s*pwd(?:\s+-[LP])?\s*\)|`\s*pwd(?:\s+-[LP])?\s*`)$/;

function subRefs(word: Word): number[] {
  return Array.from(word.text.matchAll(SUB_IN_WORD), (m) => Number(m[1]));
}

/** Variables: `$X`, `${X…}`, `$1`, `$@`; our placeholders come back as substitution markers. */
function lookupVariable(name: string): string | undefined {
  if (name === "") return undefined; // a lone `$` stays literal
  if (/^\u0000S\d+$/.test(name)) return `${name}\u0000`;
  return `\u0000V${name}\u0000`;
}

/** A QUOTED mark that shell-quote left right before the expansion it marks. */
const QUOTED_EXPANSION = /\u0000Q(?=\u0000[SV])/g;

/**
 * A word from shell-quote, its QUOTED marks removed: whole when each expansion had one (a pattern never
 * is: it may match several names). A mark that precedes no expansion (one inside a variable's braced
 * word, `${X:-"$Y"}`) counts for none.
 */
function quotingRead(text: string, glob: boolean): Word {
  if (!text.includes(QUOTED)) return { text, glob };
  const plain = text.replaceAll(QUOTED, "");
  const marked = text.match(QUOTED_EXPANSION)?.length ?? 0;
  const expansions = plain.match(EXPANSION_MARKERS)?.length ?? 0;
  return !glob && marked === expansions ? { text: plain, glob, whole: true } : { text: plain, glob };
}

function tokenise(text: string): Scan<Token[]> {
  let entries: ReturnType<typeof import("shell-quote").parse>;
  try {
    entries = shellQuote().parse(text, lookupVariable);
  } catch (error) {
    return { fail: `shell syntax: ${error instanceof Error ? error.message : String(error)}` };
  }
  const tokens: Token[] = [];
  for (const entry of entries) {
    if (typeof entry === "string") tokens.push({ word: quotingRead(entry, false) });
    else if ("comment" in entry)
      return { fail: "unexpected comment" }; // the scanner removed real ones
    else {
      const op = (entry as { op: string; pattern?: string }).op;
      const pattern = (entry as { pattern?: string }).pattern;
      if (op === "glob") tokens.push({ word: quotingRead(pattern ?? "", true) });
      else tokens.push({ op });
    }
  }
  return tokens;
}

// ---------------------------------------------------------------------------------------------------
// Stage 3: commands

interface Node {
  id: number;
  program: string;
  args: string[];
  flags: string[];
  unknownFlags: boolean;
  appendedPaths?: string[];
  appendedWords?: boolean;
  emptiedArgs?: string[];
  workingDirWords?: boolean;
}

interface Problem {
  reason: string;
  /** A script body computed by substitutions only: the substitution's flow into the shell is reported. */
  flowReported?: true;
}

interface Analysis {
  nodes: Node[];
  edges: Map<number, Set<number>>;
  problems: Problem[];
  /** The here-documents' bodies as written: the words of the line's `xargs` (heredocForms). */
  heredocs: string[];
  /** Read `$PWD` and `$(pwd)` at the start of a word as the working directory (workingDirWord). */
  workingDir?: true;
  /** An `alias NAME=…` ran: a later command's name may be that alias (where expand_aliases is on). */
  aliased?: true;
}

/** One tokenised level (the top line, or one substitution or script body) and its substitutions' nodes. */
interface Level {
  scanned: Scanned;
  depth: number;
  /**
   * Node ids of each substitution's commands, parsed when a word first refers to it (so it inherits
   * the input of the command it is part of); any left over are parsed at the end of the level.
   */
  subNodes: (number[] | undefined)[];
}

/**
 * The last few analyses, by command text: one check reads the same command for `invokes`, `pipesInto`
 * and `matches` of several rules, and a 64 KB line costs real time to read. Analyses are never mutated
 * after they are built.
 */
const recentAnalyses = new Map<string, Analysis>();
const MAX_RECENT_ANALYSES = 16;

function analyse(command: unknown): Analysis {
  if (typeof command !== "string") return analyseUncached(command);
  let analysis = recentAnalyses.get(command);
  if (!analysis) {
    analysis = analyseUncached(command);
    if (recentAnalyses.size >= MAX_RECENT_ANALYSES) {
      recentAnalyses.delete(recentAnalyses.keys().next().value as string);
    }
    recentAnalyses.set(command, analysis);
  }
  return analysis;
}

function analyseUncached(command: unknown): Analysis {
  const analysis: Analysis = { nodes: [], edges: new Map(), problems: [], heredocs: [] };
  if (typeof command !== "string") {
    analysis.problems.push({ reason: "the command is not a string" });
    return analysis;
  }
  if (command.length > MAX_COMMAND_LENGTH) {
    analysis.problems.push({ reason: `the command is longer than ${MAX_COMMAND_LENGTH} characters` });
    return analysis;
  }
  parseScript(analysis, command, 0, { subs: MAX_SUBSTITUTIONS, chars: MAX_SCANNED });
  heredocForms(analysis);
  if (!WORKING_DIR_MENTION.test(command) || !workingDirStable(analysis, command)) return analysis;
  // Read again, `$PWD` and `$(pwd)` being the directory each command runs in.
  const again: Analysis = { nodes: [], edges: new Map(), problems: [], heredocs: [], workingDir: true };
  parseScript(again, command, 0, { subs: MAX_SUBSTITUTIONS, chars: MAX_SCANNED });
  heredocForms(again);
  return again;
}

/** A line that may name the working directory by expansion. */
const WORKING_DIR_MENTION = /PWD|pwd/;
/**
 * Programs that may set a variable under a name the reading does not see (`read`, `printf -v`,
 * `declare`, `eval "P""WD=/"`, a sourced file, a trap run later) or change what `pwd` runs (`alias`,
 * `enable -n`, `hash`).
 */
const WORKING_DIR_CHANGERS = new Set([
  ...["eval", "source", ".", "declare", "typeset", "local", "export", "readonly", "read", "mapfile"],
  ...["readarray", "printf", "getopts", "unset", "let", "trap", "wait", "coproc", "alias", "hash"],
  ...["enable", "builtin", "command_not_found_handle"],
]);

/**
 * Whether `$PWD` and `$(pwd)` on this line are the directory each command runs in, which only a `cd`,
 * `pushd` or `popd` changes (those the path operators follow: condition.ts's working directories): PWD
 * named nowhere but in `$PWD` and `${PWD}` (an assignment, a loop variable, arithmetic, `unset`), IFS
 * nowhere (it splits the unquoted name), no function definition (a function named pwd), and no program
 * that may assign PWD under a computed name or redefine `pwd` (`e"val"` is eval: the programs are read
 * from the line's reading).
 */
function workingDirStable(analysis: Analysis, command: string): boolean {
  if (/\(\s*\)|\bfunction\b|IFS/.test(command)) return false;
  if (command.replace(/\$PWD\b|\$\{PWD\}/g, "").includes("PWD")) return false;
  return analysis.nodes.every((node) => !WORKING_DIR_CHANGERS.has(node.program));
}

/**
 * A line that runs `xargs` may feed it a here-document (`xargs cat <<E`, `cat <<E | xargs cat`): xargs
 * reads the body as words, removing quotes and backslashes, so each body is then a `<<<` form of its own
 * (its words data, read like a here-string's). Elsewhere a body is data that only the raw text shows.
 */
function heredocForms(analysis: Analysis): void {
  if (analysis.heredocs.length === 0 || !analysis.nodes.some((node) => node.program === "xargs")) return;
  for (const body of analysis.heredocs) {
    if (!addForm(analysis, { program: "<<<", args: [body] })) {
      analysis.problems.push({ reason: `more than ${MAX_COMMANDS} commands` });
      return;
    }
  }
}

/** Adds a form's node (WRITE_FORMS, WORD_FORMS); false, and nothing added, past MAX_COMMANDS nodes. */
function addForm(
  analysis: Analysis,
  form: { program: string; args: string[]; emptiedArgs?: string[] },
): boolean {
  if (analysis.nodes.length >= MAX_COMMANDS) return false;
  analysis.nodes.push({ id: analysis.nodes.length, flags: [], unknownFlags: false, ...form });
  return true;
}

/** Parses a whole script text at `depth`; returns the ids of every node it created. */
function parseScript(
  analysis: Analysis,
  text: string,
  depth: number,
  budget: Budget,
  stdinPiped = false,
): number[] {
  const first = analysis.nodes.length;
  if (depth > MAX_NESTING) {
    analysis.problems.push({ reason: `nesting deeper than ${MAX_NESTING} levels` });
    return [];
  }
  if (text.includes("\u0000")) {
    analysis.problems.push({ reason: "the command contains a NUL byte" });
    return [];
  }
  budget.chars -= text.length;
  if (budget.chars < 0) {
    analysis.problems.push({ reason: "the command nests too much text (scripts inside scripts)" });
    return [];
  }
  const scanned = scanList({ src: text, pos: 0, budget }, depth, null);
  if (failed(scanned)) {
    analysis.problems.push({ reason: scanned.fail });
    return [];
  }
  parseScanned(analysis, scanned, depth, budget, stdinPiped);
  return range(first, analysis.nodes.length);
}

function parseScanned(
  analysis: Analysis,
  scanned: Scanned,
  depth: number,
  budget: Budget,
  stdinPiped = false,
): void {
  const tokens = tokenise(scanned.text);
  if (failed(tokens)) {
    analysis.problems.push({ reason: tokens.fail });
    return;
  }
  const reader = new Reader(analysis, { scanned, depth, subNodes: [] }, tokens, budget, stdinPiped);
  reader.parseList(new Set());
  if (reader.pos < tokens.length) reader.problem("unbalanced `)`");
  reader.parseRemainingSubstitutions();
}

/**
 * A substitution's commands; arithmetic `$((…))` runs only the substitutions nested in it. A process
 * substitution `>(…)` reads what its command writes; the others share their command's input.
 */
function parseSubstitution(
  analysis: Analysis,
  sub: Substitution,
  depth: number,
  budget: Budget,
  stdinPiped: boolean,
): number[] {
  const first = analysis.nodes.length;
  const piped = stdinPiped || sub.kind === "process-out";
  if (sub.kind === "arith" || sub.kind === "heredoc") {
    for (const inner of sub.body.subs) parseSubstitution(analysis, inner, depth + 1, budget, piped);
  } else {
    parseScanned(analysis, sub.body, depth + 1, budget, piped);
  }
  return range(first, analysis.nodes.length);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

const SEPARATORS = new Set([";", "&", "&&", "||", ";;", ";&", ";;&"]);
const CASE_ENDS = new Set([";;", ";&", ";;&"]);
const REDIRECTS = new Set(["<", ">", ">>", ">&", "<&", "&>", "&>>", ">|", "<>", "<<", "<<-", "<<<"]);
/** Reserved words that only introduce or continue a compound command: their commands follow. */
const TRANSPARENT = new Set(["then", "else", "elif", "do", "!"]);
const COMPOUND_END = new Map([
  ["{", "}"],
  ["if", "fi"],
  ["while", "done"],
  ["until", "done"],
]);

interface Simple {
  words: Word[];
  redirects: { op: string; target: Word }[];
}

/** xargs options that read its arguments from elsewhere or split them otherwise than on NUL. */
const XARGS_OTHER_INPUT = new Set(["-a", "--arg-file", "-d", "--delimiter"]);
/** find actions that print text other than the paths (a command's output, an ls line, a format). */
const FIND_TEXT_ACTIONS = new Set(["-printf", "-ls", "-exec", "-execdir", "-ok", "-okdir"]);

/** Where a redirection's output is not kept: writing there changes no file. */
const UNKEPT_OUTPUTS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/**
 * The redirections that open a file for writing, by the form a rule reads each as: a truncating write
 * (`>`, `>|`, `&>`, `>&file`) is `>`, an append (`>>`, `&>>`) is `>>`, a read-write open (`<>`) is `<>`.
 */
const WRITE_REDIRECTS = new Map([
  [">", ">"],
  [">|", ">"],
  ["&>", ">"],
  [">&", ">"],
  [">>", ">>"],
  ["&>>", ">>"],
  ["<>", "<>"],
]);
/** The programs of the redirection forms: a rule may read them, and they run nothing. */
export const WRITE_FORMS: ReadonlySet<string> = new Set(WRITE_REDIRECTS.values());

/**
 * The forms of the words of a line that are no command's arguments, each word an argument of its form,
 * so that a rule reading the line reads every name in it: `<` a file a redirection opens for reading
 * (`cat < f`, `0< f`, `<&f`), `<<<` a here-string, `=` an assignment (`f=.env; cat $f`, `X=v cmd`) and
 * `for` the words a `for` or `select` loop gives its variable. They run nothing.
 */
export const WORD_FORMS: ReadonlySet<string> = new Set(["<", "<<<", "=", "for"]);
/** Every form that stands for part of a line rather than a program it runs. */
const FORMS: ReadonlySet<string> = new Set([...WRITE_FORMS, ...WORD_FORMS]);
/** The redirections that read a file or a word, by their form. */
const READ_REDIRECTS = new Map([
  ["<", "<"],
  ["<&", "<"],
  ["<<<", "<<<"],
]);

/** Recursive-descent reader over one level's tokens. */
class Reader {
  pos = 0;
  private groupDepth = 0;
  /** Reading the command `xargs` runs: it appends words from its input, which may be flags. */
  private appendedArgs = false;
  /** …unless its input is a `find … -print0` read with `-0`: then they are paths below these. */
  private appendedPaths: string[] | undefined;
  /** The nodes of the pipeline stage whose output the stage being read takes as input. */
  private pipedFrom: number[] | undefined;

  constructor(
    private readonly analysis: Analysis,
    private readonly level: Level,
    private readonly tokens: Token[],
    private readonly budget: Budget,
    /** Whether the commands being read take their input from another program (a later pipeline stage). */
    private stdinPiped = false,
  ) {}

  problem(reason: string, flowReported = false): void {
    const { problems } = this.analysis;
    // bounded, but a first problem that no reported flow explains is always kept: shellPipes needs it
    if (problems.length < 64) problems.push(flowReported ? { reason, flowReported: true } : { reason });
    else if (!flowReported && problems.every((p) => p.flowReported)) problems.push({ reason });
  }

  private abort(reason: string): void {
    this.problem(reason);
    this.pos = this.tokens.length;
  }

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  private atStop(stops: Set<string>): boolean {
    const t = this.peek();
    if (t === undefined || isOpToken(t, ")")) return true;
    const w = wordOf(t);
    return w !== undefined && !w.glob && stops.has(w.text);
  }

  /**
   * list := pipeline ((; & && || newline) pipeline)* — stops before a stop word, `)`, or one of
   * `stopOps` (`;;` ending a `case` branch).
   */
  parseList(stops: Set<string>, stopOps?: Set<string>): number[] {
    const first = this.analysis.nodes.length;
    for (;;) {
      while (isOpToken(this.peek()) && SEPARATORS.has((this.peek() as { op: string }).op)) {
        if (stopOps?.has((this.peek() as { op: string }).op)) return range(first, this.analysis.nodes.length);
        this.pos += 1;
      }
      if (this.atStop(stops)) break;
      const before = this.pos;
      this.parsePipeline(stops);
      if (this.pos === before) {
        this.abort("unexpected shell syntax");
        break;
      }
    }
    return range(first, this.analysis.nodes.length);
  }

  /** pipeline := stage (| stage)*; data flows from every earlier stage to every later one. */
  private parsePipeline(stops: Set<string>): void {
    const stages: number[][] = [this.parseStage(stops)];
    const outer = this.stdinPiped;
    while (isOpToken(this.peek(), "|", "|&")) {
      this.pos += 1;
      // a newline after `|` continues the pipeline (the scanner turned it into `;`)
      while (isOpToken(this.peek(), ";")) this.pos += 1;
      if (this.atStop(stops)) break;
      this.stdinPiped = true;
      const source = this.pipedFrom;
      this.pipedFrom = stages[stages.length - 1];
      stages.push(this.parseStage(stops));
      this.pipedFrom = source;
      this.stdinPiped = outer;
    }
    for (let i = 0; i < stages.length; i++)
      for (let j = i + 1; j < stages.length; j++)
        for (const a of stages[i] as number[]) for (const b of stages[j] as number[]) this.edge(a, b);
    if (isOpToken(this.peek(), "&&", "||")) {
      this.pos += 1;
      while (isOpToken(this.peek(), ";")) this.pos += 1;
    }
  }

  /** One pipeline stage: a group `( … )` / `{ …; }` / if / while / for, or a simple command. */
  private parseStage(stops: Set<string>): number[] {
    const first = this.analysis.nodes.length;
    this.skipPrefixWords();
    if (this.atStop(stops)) return [];
    const t = this.peek();
    const w = wordOf(t);
    if (isOpToken(t, "(")) {
      this.pos += 1;
      this.group(() => this.parseList(new Set()));
      if (!isOpToken(this.peek(), ")")) this.abort("unbalanced `(`");
      else this.pos += 1;
      this.trailingRedirects();
    } else if (w && !w.glob && COMPOUND_END.has(w.text)) {
      this.compound(COMPOUND_END.get(w.text) as string, 1);
    } else if (w && !w.glob && (w.text === "for" || w.text === "select")) {
      this.pos += 1;
      this.skipForHeader();
      this.compound("done", 0);
    } else if (w && !w.glob && w.text === "case") {
      this.group(() => this.caseStatement());
    } else if (w && !w.glob && w.text === "[[") {
      this.conditional();
    } else if (
      w &&
      !w.glob &&
      (w.text === "}" || w.text === "fi" || w.text === "done" || w.text === "esac")
    ) {
      this.abort(`unexpected \`${w.text}\``);
    } else {
      this.simple(stops);
    }
    return range(first, this.analysis.nodes.length);
  }

  /**
   * Reserved words that only introduce what follows (`then`, `do`, `!`, `function NAME`), skipped in a
   * loop rather than by recursion so a long run of them cannot exhaust the stack.
   */
  private skipPrefixWords(): void {
    for (;;) {
      const w = wordOf(this.peek());
      if (!w || w.glob) return;
      if (TRANSPARENT.has(w.text)) {
        this.pos += 1;
      } else if (w.text === "coproc") {
        this.pos += 1; // `coproc NAME { …; }` or `coproc command`
        const after = this.tokens[this.pos + 1];
        if (wordOf(this.peek()) && (wordOf(after)?.text === "{" || isOpToken(after, "("))) this.pos += 1;
      } else if (w.text === "function") {
        this.pos += 1;
        if (wordOf(this.peek())) this.pos += 1;
        if (isOpToken(this.peek(), "(") && isOpToken(this.tokens[this.pos + 1], ")")) this.pos += 2;
      } else {
        return;
      }
      while (isOpToken(this.peek(), ";")) this.pos += 1;
    }
  }

  private group(body: () => void): void {
    this.groupDepth += 1;
    if (this.groupDepth > MAX_GROUP_NESTING) this.abort(`groups nested deeper than ${MAX_GROUP_NESTING}`);
    else body();
    this.groupDepth -= 1;
  }

  /** `{ …; }`, `if …; fi`, `while …; done`: commands up to the closing word. */
  private compound(end: string, skip: number): void {
    this.pos += skip;
    this.group(() => this.parseList(new Set([end])));
    const w = wordOf(this.peek());
    if (!w || w.text !== end) {
      this.abort(`missing \`${end}\``);
      return;
    }
    this.pos += 1;
    this.trailingRedirects();
  }

  /**
   * `for NAME in words;` or `for ((…));` — no commands run in the header (substitutions aside). The words
   * after `in` are the loop's form: the names its body reads through the variable.
   */
  private skipForHeader(): void {
    if (isOpToken(this.peek(), "(")) {
      let depth = 0;
      do {
        if (isOpToken(this.peek(), "(")) depth += 1;
        else if (isOpToken(this.peek(), ")")) depth -= 1;
        this.pos += 1;
      } while (depth > 0 && this.pos < this.tokens.length);
      return;
    }
    const header: Word[] = [];
    for (;;) {
      const t = this.peek();
      const word = wordOf(t);
      if (t === undefined || isOpToken(t, ";", "&") || word?.text === "do") break;
      if (!word) {
        this.abort("unexpected operator in a `for` header");
        return;
      }
      header.push(word);
      this.pos += 1;
    }
    // NAME, `in`, then the words (none: `for NAME; do`, which iterates over "$@").
    const loopWords = header[1]?.text === "in" && !header[1].glob ? header.slice(2) : [];
    if (loopWords.length > 0) this.form("for", loopWords);
  }

  /** `case WORD in [(]PATTERN[|PATTERN…]) LIST ;; … esac` — every branch's commands are forms. */
  private caseStatement(): void {
    const malformed = this.readCase();
    if (malformed) this.abort(malformed);
  }

  /** Reads a whole `case` statement; returns why it is malformed, if it is. */
  private readCase(): string | undefined {
    this.pos += 1;
    if (!wordOf(this.peek())) return "`case` without a word";
    this.pos += 1;
    while (isOpToken(this.peek(), ";")) this.pos += 1;
    if (wordOf(this.peek())?.text !== "in") return "`case` without `in`";
    this.pos += 1;
    for (;;) {
      while (isOpToken(this.peek(), ";")) this.pos += 1;
      const t = this.peek();
      if (t === undefined) return "missing `esac`";
      if (wordOf(t)?.text === "esac") {
        this.pos += 1;
        this.trailingRedirects();
        return undefined;
      }
      if (isOpToken(t, "(")) this.pos += 1;
      for (;;) {
        if (!wordOf(this.peek())) return "malformed `case` pattern";
        this.pos += 1;
        if (isOpToken(this.peek(), ")")) break;
        if (!isOpToken(this.peek(), "|")) return "malformed `case` pattern";
        this.pos += 1;
      }
      this.pos += 1;
      this.parseList(new Set(["esac"]), CASE_ENDS);
      if (isOpToken(this.peek(), ...CASE_ENDS)) this.pos += 1;
      else if (wordOf(this.peek())?.text !== "esac") return "missing `esac`";
    }
  }

  /** `[[ … ]]`: operators inside are part of the test; a form for `[[` itself. */
  private conditional(): void {
    const words: Word[] = [];
    for (;;) {
      const t = this.peek();
      if (t === undefined || isOpToken(t, ";", "&", "|", "|&", ";;", ";&", ";;&")) {
        this.abort("unterminated `[[`");
        return;
      }
      this.pos += 1;
      const w = wordOf(t);
      if (w?.text === "]]") break;
      words.push(w ?? { text: (t as { op: string }).op, glob: false });
    }
    this.command({ words, redirects: [] }, 0);
    this.trailingRedirects();
  }

  private trailingRedirects(): void {
    const simple: Simple = { words: [], redirects: [] };
    while (isOpToken(this.peek()) && REDIRECTS.has((this.peek() as { op: string }).op)) this.redirect(simple);
    for (const r of simple.redirects) for (const n of subRefs(r.target)) this.subNodes(n); // forms only
    this.redirectionForms(simple.redirects);
  }

  /**
   * The starting points of the `find … -print0` whose output an `xargs -0` (options `seen`) reads: the
   * pipeline stage right before it, nothing else in that stage but redirections, and no action of find's
   * that prints other text (`-printf`, `-ls`, `-exec`…). Undefined otherwise: the appended words are then
   * unknown (newline-separated names split where a name has a space, so they may be anything).
   */
  private findPathsRead(seen: readonly string[]): string[] | undefined {
    if (!seen.some((o) => o === "-0" || o === "--null")) return undefined;
    if (seen.some((o) => XARGS_OTHER_INPUT.has(o))) return undefined;
    const stage = (this.pipedFrom ?? [])
      .map((id) => this.analysis.nodes[id])
      .filter((node): node is Node => node !== undefined && !FORMS.has(node.program));
    const find = stage[0];
    if (stage.length !== 1 || find?.program !== "find" || find.unknownFlags) return undefined;
    if (!find.args.includes("-print0") || find.args.some((a) => FIND_TEXT_ACTIONS.has(a))) return undefined;
    const starts = findStartingPoints(find.args);
    // A start that is computed may expand to anything, an option included.
    return starts.some((s) => /[$`]/.test(s)) ? undefined : starts;
  }

  /**
   * Each redirection that opens a file, as a form of its own, the target its one argument: a write
   * (program `>`, `>>` or `<>`) or a read (`<`; a here-string `<<<`). The line opens that file whatever
   * its command is, so an allow-list of commands must allow it too, and a line of redirections only
   * (`> /etc/passwd`, `X=1 >> f`) is not a line without forms. A here-document's body is kept for
   * heredocForms.
   */
  private redirectionForms(redirects: Simple["redirects"]): void {
    for (const r of redirects) {
      if (r.op === "<<" || r.op === "<<-") this.noteHeredoc(r.target);
      const written = WRITE_REDIRECTS.get(r.op);
      const form = written ?? READ_REDIRECTS.get(r.op);
      // `>&2`, `<&0`, `>&-`: a descriptor duplicated or closed, not a file.
      if (form === undefined || (r.op.endsWith("&") && /^(\d+|-)$/.test(r.target.text))) continue;
      // The terminal and /dev/null keep nothing written there.
      if (written !== undefined && UNKEPT_OUTPUTS.has(r.target.text)) continue;
      this.form(form, [r.target]);
    }
  }

  /** Keeps the body of the here-document a `<<` target holds (Analysis.heredocs). */
  private noteHeredoc(target: Word): void {
    for (const n of subRefs(target)) {
      const sub = this.level.scanned.subs[n];
      if (sub?.kind === "heredoc") this.analysis.heredocs.push(sub.source);
    }
  }

  /** A form (WRITE_FORMS, WORD_FORMS): a node for part of the line, its words the arguments. */
  private form(program: string, words: Word[]): void {
    const added = addForm(this.analysis, {
      program,
      args: words.map((w) => this.render(w)),
      ...(words.some(isDynamic) ? { emptiedArgs: words.map(emptied) } : {}),
    });
    if (!added) this.abort(`more than ${MAX_COMMANDS} commands`);
  }

  private redirect(simple: Simple): void {
    const op = (this.peek() as { op: string }).op;
    this.pos += 1;
    const target = wordOf(this.peek());
    if (!target) {
      this.abort(`redirection \`${op}\` without a target`);
      return;
    }
    this.pos += 1;
    simple.redirects.push({ op, target });
  }

  /** words and redirections up to an operator; `name ( )` starts a function definition. */
  private simple(stops: Set<string>): void {
    const simple: Simple = { words: [], redirects: [] };
    for (;;) {
      const t = this.peek();
      if (t === undefined) break;
      if ("word" in t) {
        simple.words.push(t.word);
        this.pos += 1;
        continue;
      }
      if (REDIRECTS.has(t.op)) {
        this.redirect(simple);
        continue;
      }
      if (t.op === "(" && simple.words.length === 1 && isOpToken(this.tokens[this.pos + 1], ")")) {
        this.pos += 2; // function definition: its body's commands are forms
        while (isOpToken(this.peek(), ";")) this.pos += 1;
        if (!this.atStop(stops)) this.group(() => this.parseStage(stops));
        return;
      }
      if (t.op === "(") {
        this.abort("unexpected `(`");
        return;
      }
      break;
    }
    this.command(simple, 0);
  }

  private edge(from: number, to: number): void {
    let set = this.analysis.edges.get(from);
    if (!set) {
      set = new Set();
      this.analysis.edges.set(from, set);
    }
    set.add(to);
  }

  private subNodes(n: number): number[] {
    let ids = this.level.subNodes[n];
    if (!ids) {
      const sub = this.level.scanned.subs[n];
      this.level.subNodes[n] = []; // a substitution is parsed once, even if a word repeats it
      ids = sub ? parseSubstitution(this.analysis, sub, this.level.depth, this.budget, this.stdinPiped) : [];
      this.level.subNodes[n] = ids;
    }
    return ids;
  }

  /** Substitutions no word referred to (a `for` header, a `case` word, after an aborted read). */
  parseRemainingSubstitutions(): void {
    for (let n = 0; n < this.level.scanned.subs.length; n++) this.subNodes(n);
  }

  /** Flows between a command and the substitutions in its words and redirection targets. */
  private linkSubstitutions(id: number, words: Word[], redirects: Simple["redirects"]): void {
    for (const word of [...words, ...redirects.map((r) => r.target)]) {
      for (const n of subRefs(word)) {
        const kind = this.level.scanned.subs[n]?.kind;
        for (const other of this.subNodes(n)) {
          if (kind === "process-out") this.edge(id, other);
          else this.edge(other, id);
        }
      }
    }
  }

  /**
   * On a line where they are the working directory (workingDirStable), `$PWD`, `${PWD}`, `$(pwd)` and
   * `` `pwd` `` at the start of a word, before its end, a `/` or a `:` (`-v $(pwd):/app`), read as `.`:
   * the directory the command runs in, which the path operators resolve as they resolve `./x`.
   */
  private workingDirWord(word: Word): Word {
    if (!this.analysis.workingDir || word.workingDir) return word;
    const head = WORKING_DIR_HEAD.exec(word.text);
    if (!head) return word;
    const sub = head[1] === undefined ? undefined : this.level.scanned.subs[Number(head[1])];
    if (head[1] !== undefined && !PWD_SUBSTITUTION.test(sub?.source ?? "")) return word;
    return { text: `.${word.text.slice(head[0].length)}`, glob: word.glob, workingDir: true };
  }

  private render(word: Word): string {
    const subs = this.level.scanned.subs;
    return replaceExpansions(word, {
      substitution: (n) => subs[n]?.source ?? "$(…)",
      variable: (name) => (/^\w+$/.test(name) ? "$" + name : "${" + name + "}"),
    });
  }

  /**
   * A simple command: assignments skipped, the program checked and normalised, a node recorded, then
   * wrappers and script bodies followed. `wrapped` counts the wrappers already stripped.
   */
  command(simple: Simple, wrapped: number): void {
    const { words, redirects } = simple;
    let i = 0;
    while (i < words.length && isAssignment(words[i] as Word)) i += 1;
    // A wrapped command shares the redirections and assignments of the line that runs it: they are read
    // there once (a wrapper's own words are its arguments).
    if (wrapped === 0) {
      this.redirectionForms(redirects);
      if (i > 0) this.form("=", words.slice(0, i));
    }
    for (let k = 0; k < i; k++) for (const n of subRefs(words[k] as Word)) this.subNodes(n);
    // `GIT_SSH_COMMAND='…' git fetch`, `PAGER='…'; man ls`: a value some program runs as a command.
    for (let k = 0; k < i; k++) this.assignment(words[k] as Word);
    const programWord = words[i];
    if (!programWord) return; // only assignments / redirections
    if (isDynamic(programWord)) {
      this.problem(`the program is computed at run time (\`${this.render(programWord)}\`)`);
      return;
    }
    if (programWord.glob || isPattern(programWord.text)) {
      this.problem(`the program is a glob or brace pattern (\`${programWord.text}\`)`);
      return;
    }
    const program = basename(programWord.text);
    if (program === "") return;
    // bash expands an alias on each line it reads after the definition (a snapshot of a user's shell
    // turns expand_aliases on): any later command's name may stand for other words.
    if (this.analysis.aliased) {
      this.problem(`\`${program}\` may be an alias the line defined, standing for another command`);
      return;
    }
    const definesAlias = program === "alias" && words.slice(i + 1).some((w) => w.text.includes("="));
    if (this.analysis.nodes.length >= MAX_COMMANDS) {
      this.abort(`more than ${MAX_COMMANDS} commands`);
      return;
    }
    const argWords = words.slice(i + 1).map((word) => this.workingDirWord(word));
    const key = programKey(program);
    const reading = readFlags(key, argWords);
    const nodes: Node[] = [];
    // `RM.EXE` runs rm where file names ignore case (macOS, Windows): that reading is a form too
    for (const name of key === program || key === "" ? [program] : [program, key]) {
      const node: Node = {
        id: this.analysis.nodes.length,
        program: name,
        args: argWords.map((w) => this.render(w)),
        flags: reading.flags,
        unknownFlags: reading.unknown || (this.appendedArgs && this.appendedPaths === undefined),
        ...(this.appendedArgs && this.appendedPaths ? { appendedPaths: this.appendedPaths } : {}),
        ...(this.appendedArgs && this.appendedPaths === undefined ? { appendedWords: true } : {}),
        ...(argWords.some(isDynamic) ? { emptiedArgs: argWords.map(emptied) } : {}),
        ...(argWords.some((word) => word.workingDir) ? { workingDirWords: true } : {}),
      };
      this.analysis.nodes.push(node);
      nodes.push(node);
    }
    for (const node of nodes) this.linkSubstitutions(node.id, words.slice(i), redirects);
    const own = this.followInner(key, argWords, redirects, wrapped);
    if (own) {
      // a wrapper's flags are its own options, not those of the command it runs
      const ownReading = readFlags(key, own);
      for (const node of nodes) {
        node.flags = ownReading.flags;
        node.unknownFlags = ownReading.unknown;
      }
    }
    if (definesAlias) this.analysis.aliased = true;
  }

  /**
   * Wrappers, shells, eval, find -exec: the commands a command runs in turn. Returns the words that are
   * the command's own options when the rest belongs to the command it runs (undefined: all its words).
   */
  private followInner(
    program: string,
    args: Word[],
    redirects: Simple["redirects"],
    wrapped: number,
  ): Word[] | undefined {
    if (wrapped >= MAX_WRAPPERS) {
      this.problem(`more than ${MAX_WRAPPERS} nested wrappers`);
      return undefined;
    }
    const inner = (from: number): Word[] => {
      if (from >= 0 && from < args.length) this.command({ words: args.slice(from), redirects }, wrapped + 1);
      return args.slice(0, Math.min(Math.max(from, 0), args.length));
    };
    this.runEmbedded(embeddedRuns({ program, args }));
    if (DECLARATIONS.has(program)) {
      for (const a of args) if (isAssignment(a)) this.assignment(a);
    }
    if (program === "parallel") return this.parallel(args, redirects);
    // at and batch run the commands of their input (or of `-f FILE`, not ours to read); crontab installs
    // the lines of its input as commands (a file operand is not ours to read).
    if (program === "at" || program === "batch") this.scriptFromInput(program, redirects);
    if (program === "crontab" && (args.length === 0 || args.some((a) => a.text === "-"))) {
      if (this.stdinPiped || redirects.some((r) => r.op.startsWith("<")))
        this.problem("crontab installs commands from its input");
    }
    if (SHELLS.has(program)) return this.shell(program, args, redirects);
    if (program === "eval") {
      this.scriptBody(args, "eval");
      return [];
    }
    if (program === "find") return this.findExec(args, redirects, wrapped);
    if (program === "fd" || program === "fdfind") return this.fdExec(args, redirects, wrapped);
    if (program === "source" || program === ".") {
      const script = args[0];
      // `. /dev/stdin <<< BODY`: the script is the input (a here-string, a here-document, a pipe)
      if (script && STDIN_FILES.has(script.text)) this.scriptFromInput(program, redirects);
      else if (script && this.producedByProgram(script))
        this.problem(`${program} runs a script produced by another program`, true);
      return undefined;
    }
    if (MULTICALL.has(program)) {
      if (args[0] && BUSYBOX_SHELLS.has(args[0].text)) this.shell(args[0].text, args.slice(1), redirects);
      else inner(0);
      return [];
    }
    if (program === "su" || program === "runuser" || program === "script")
      return this.suCommand(args, redirects, wrapped);
    if (program === "watch") return this.watch(args);
    if (program === "trap" && args[0]) this.scriptBody(args.slice(0, 1), "trap");
    if (program === "alias") {
      for (const a of args) {
        const eq = a.text.indexOf("=");
        if (eq > 0) this.scriptBody([{ text: a.text.slice(eq + 1), glob: false }], "alias");
      }
    }
    if (program === "env") return this.env(args, redirects, wrapped);
    if (program === "ssh") return this.ssh(args);
    const npmExec = program === "npx" || (program === "npm" && NPM_EXEC.has(args[0]?.text ?? ""));
    if (npmExec) this.npmCall(program === "npx" ? args : args.slice(1));
    const options = WRAPPER_OPTIONS.get(program);
    if (!options) {
      this.shellInArguments({ program, args, redirects, wrapped, evalToo: npmExec });
      return undefined;
    }
    const end = skipOptions(args, options);
    const own = args.slice(0, end.at);
    // an unknown last option may have taken the next word as its value: read the command both ways
    const starts = end.ambiguous ? [end.at, end.at + 1] : [end.at];
    if (program === "sudo" || program === "doas") {
      if (end.seen.includes("-e") || end.seen.includes("--edit")) return own; // sudoedit: the words are files
      const asShell = end.seen.some((o) => ["-s", "-i", "--shell", "--login"].includes(o));
      for (const start of starts) {
        let k = start;
        while (k < args.length && isAssignment(args[k] as Word)) k += 1;
        // `sudo -s CMD…` runs the words through the user's shell: `$SHELL -c "CMD…"`
        if (asShell && k < args.length) this.scriptBody(args.slice(k), `${program} -s`);
        else inner(k);
      }
      return own;
    }
    if (program === "flock") {
      for (const start of starts) {
        const c = args[start + 1]?.text; // after the lock file
        if ((c === "-c" || c === "--command") && args[start + 2])
          this.scriptBody([args[start + 2] as Word], "flock -c");
        else inner(start + 1);
      }
      return own;
    }
    const readInner = () => {
      for (const start of starts) inner(start + (options.operands ?? 0));
    };
    if (program === "xargs") this.appending(this.findPathsRead(end.seen), readInner);
    else readInner();
    return own;
  }

  /**
   * Runs `read` on a command whose words a program appends from what it reads or finds (`xargs`, `fd
   * -x`): paths below `paths` when they are known (`find … -print0 | xargs -0`), else words unnamed.
   */
  private appending(paths: string[] | undefined, read: () => void): void {
    const saved = { args: this.appendedArgs, paths: this.appendedPaths };
    this.appendedArgs = true;
    this.appendedPaths = paths;
    try {
      read();
    } finally {
      this.appendedArgs = saved.args;
      this.appendedPaths = saved.paths;
    }
  }

  /** `sh -c BODY`, `bash -lc BODY`, `bash <<< BODY`, `bash <<EOF` (undetermined), `sh script` (a file). */
  private shell(program: string, args: Word[], redirects: Simple["redirects"]): Word[] {
    const { hasC, hasS, end: k, startupFiles } = shellOptions(args);
    if (startupFiles.some((file) => this.producedByProgram(file)))
      this.problem(
        `${program} runs a startup script (--rcfile, --init-file) produced by another program`,
        true,
      );
    const own = args.slice(0, k);
    if (hasC) {
      const body = args[k];
      if (body) this.scriptBody([body], `${program} -c`);
      else this.scriptFromInput(program, redirects); // `… | xargs sh -c`: the script is the input
      return own;
    }
    const script = args[k];
    if (script && !hasS && !STDIN_FILES.has(script.text)) {
      // a script file: its content is not ours to read, unless it is another program's output
      if (this.producedByProgram(script))
        this.problem(`${program} runs a script produced by another program`, true);
      return own;
    }
    this.scriptFromInput(program, redirects);
    return own;
  }

  /**
   * An assignment (`X=v cmd`, `export X=v`): what a variable a program runs makes it run
   * (shell-runners.ts), and a shell's startup file (`BASH_ENV`, `ENV`) that another program produces
   * (`BASH_ENV=<(…)`), which runs code the reading cannot see, as `source <(…)` does.
   */
  private assignment(word: Word): void {
    this.runEmbedded(assignmentRuns({ word }));
    const name = assignedVariable({ text: word.text })?.name;
    if (name !== undefined && STARTUP_FILE_VARIABLES.has(name) && this.producedByProgram(word))
      this.problem(`${name} names a startup script produced by another program`, true);
  }

  /** A shell reading its script from standard input: a here-doc, a here-string, a pipe or `< <(…)`. */
  private scriptFromInput(program: string, redirects: Simple["redirects"]): void {
    let fromProgram = this.stdinPiped;
    for (const r of redirects) {
      if (r.op === "<<" || r.op === "<<-") this.problem(`a here-document is executed by ${program}`);
      if (r.op === "<<<") this.scriptBody([r.target], `${program} <<<`);
      if (r.op === "<" || r.op === "<>") fromProgram = this.producedByProgram(r.target);
    }
    if (fromProgram) this.problem(`${program} runs a script produced by another program`, true);
  }

  /** A word that names another program's output: `<(…)`, or `$(…)` that may expand to `/dev/fd/…`. */
  private producedByProgram(word: Word): boolean {
    return subRefs(word).some((n) => this.level.scanned.subs[n]?.kind === "process-in");
  }

  /**
   * A script given as words (`eval a b`, `sh -c BODY`): parsed recursively when literal; computed by
   * substitutions only → undetermined for commands but its flow is reported; otherwise undetermined.
   */
  private scriptBody(words: Word[], what: string): void {
    if (words.some(isDynamic)) {
      const onlySubs = words.every((w) => !w.text.includes("\u0000V") && !w.glob);
      this.problem(`${what} runs a script computed at run time`, onlySubs);
      return;
    }
    const text = words.map((w) => w.text).join(" ");
    this.group(() => {
      parseScript(this.analysis, text, this.level.depth + 1, this.budget, this.stdinPiped);
    });
  }

  /** `find … -exec prog args ;` (and -execdir, -ok, -okdir), terminated by `;` or `+`. */
  private findExec(args: Word[], redirects: Simple["redirects"], wrapped: number): Word[] {
    const own: Word[] = [];
    for (let k = 0; k < args.length; k++) {
      const text = (args[k] as Word).text;
      own.push(args[k] as Word);
      if (!FIND_EXEC.has(text)) continue;
      let end = k + 1;
      while (end < args.length && (args[end] as Word).text !== ";" && (args[end] as Word).text !== "+")
        end += 1;
      this.command({ words: args.slice(k + 1, end), redirects }, wrapped + 1); // it shares find's input
      k = end;
    }
    return own;
  }

  /**
   * `fd … -x CMD…` (`--exec`, and `-X`/`--exec-batch`): the command runs on each path fd finds, given
   * as a `{}` placeholder or appended, so its operands are words the reading cannot name (as xargs').
   * The command runs to a `;` or the end. An option word that may hold the letter otherwise (`-HIx`,
   * `--exec=…`) is undetermined.
   */
  private fdExec(args: Word[], redirects: Simple["redirects"], wrapped: number): Word[] {
    for (let k = 0; k < args.length; k++) {
      const text = (args[k] as Word).text;
      if (text === "--") return args;
      if (FD_EXEC.has(text)) {
        let end = k + 1;
        while (end < args.length && (args[end] as Word).text !== ";") end += 1;
        this.appending(undefined, () =>
          this.command({ words: args.slice(k + 1, end), redirects }, wrapped + 1),
        );
        return args.slice(0, k + 1);
      }
      if (/^-[A-Za-z0-9]*[xX]|^--exec/.test(text)) {
        this.problem(
          `fd runs a command (\`${text}\`) on what it finds, spelled so the reading cannot place it`,
        );
        return args;
      }
    }
    return args;
  }

  /** `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=value…] program …`. */
  private env(args: Word[], redirects: Simple["redirects"], wrapped: number): Word[] {
    let k = 0;
    for (; k < args.length; k++) {
      const w = args[k] as Word;
      const text = w.text;
      if (text === "--") {
        k += 1;
        break;
      }
      if (text === "-S" || text === "--split-string") {
        const s = args[k + 1];
        if (s) this.scriptBody([s], "env -S");
        return args.slice(0, k + 1);
      }
      if (text.startsWith("-S") || text.startsWith("--split-string=")) {
        this.scriptBody([{ ...w, text: text.startsWith("-S") ? text.slice(2) : text.slice(15) }], "env -S");
        return args.slice(0, k + 1);
      }
      if (["-u", "--unset", "-C", "--chdir", "-P"].includes(text)) {
        k += 1;
        continue;
      }
      if (isAssignment(w)) this.assignment(w);
      if (text.startsWith("-") || isAssignment(w)) continue;
      break;
    }
    if (k < args.length) this.command({ words: args.slice(k), redirects }, wrapped + 1);
    return args.slice(0, k);
  }

  /**
   * `su [user] -c CMD`, `su -lc CMD`, `runuser -u user -- cmd` / `-c CMD`, `script -qc CMD`: `-c` may end
   * a cluster of letters (getopt), `--command` and `--session-command` may take `=`.
   */
  private suCommand(args: Word[], redirects: Simple["redirects"], wrapped: number): Word[] | undefined {
    for (let k = 0; k < args.length; k++) {
      const word = args[k] as Word;
      const body = valuedWord({ args, k, short: "c", long: ["--command", "--session-command"] });
      if (body !== undefined) {
        if (body) this.scriptBody([body], "su -c");
        return args.slice(0, k + 1);
      }
      const text = word.text;
      if (text === "--") {
        if (k + 1 < args.length) this.command({ words: args.slice(k + 1), redirects }, wrapped + 1);
        return args.slice(0, k);
      }
    }
    return undefined;
  }

  /**
   * `npx -c CMD`, `npm exec --call=CMD` (`args` after `exec`): the command runs through the shell. Only
   * npm's own options are read, before the first operand (`npx eslint -c x` is eslint's `-c`).
   */
  private npmCall(args: Word[]): void {
    for (let k = 0; k < args.length; k++) {
      const text = (args[k] as Word).text;
      if (text === "--" || !text.startsWith("-")) return;
      const body = valuedWord({ args, k, short: "c", long: ["--call"] });
      if (body) this.scriptBody([body], "npm exec -c");
      if (body !== undefined) return;
      if (NPM_VALUED.has(text)) k += 1;
    }
  }

  /**
   * A program the reading does not model may run its arguments (`npx sh -c …`, `uv run bash -c …`):
   * where a shell given `-c` appears among them (or `eval`, for npx and `npm exec`, which run their
   * operands as a command: `deno eval` is deno's own), that command is read too, so a script computed at
   * run time is refused there as it is on its own. A superset: the words stay the program's own as well.
   * A shell named there with no script operand (`docker run -i img sh`, `kubectl exec -i pod -- bash`)
   * may read its script from the line's input, which the launcher passes on: it is read as that shell
   * run on the same input (a pipe, a here-document). Not for a program whose arguments are data (`ps |
   * grep bash`).
   */
  private shellInArguments(o: {
    program: string;
    args: Word[];
    redirects: Simple["redirects"];
    wrapped: number;
    evalToo: boolean;
  }): void {
    const { args, redirects, wrapped } = o;
    if (DATA_PROGRAMS.has(o.program)) return;
    for (let k = 0; k < args.length; k++) {
      const word = args[k] as Word;
      if (isDynamic(word)) continue;
      const name = basename(word.text);
      if (name === "eval" ? o.evalToo && k + 1 < args.length : false) {
        this.command({ words: args.slice(k), redirects }, wrapped + 1);
        return;
      }
      if (!SHELLS.has(name)) continue;
      const options = shellOptions(args.slice(k + 1));
      if (options.hasC || options.hasS || k + 1 + options.end >= args.length) {
        this.command({ words: args.slice(k), redirects }, wrapped + 1);
        return;
      }
    }
  }

  /** `ssh [options] HOST CMD…`: the words are joined and run by the remote shell. */
  private ssh(args: Word[]): Word[] {
    const end = skipOptions(args, SSH_OPTIONS);
    for (const host of end.ambiguous ? [end.at, end.at + 1] : [end.at])
      if (host + 1 < args.length) this.scriptBody(args.slice(host + 1), "ssh");
    return args.slice(0, end.at);
  }

  /** What a program runs from its arguments or an assignment (shell-runners.ts), read as the shell would. */
  private runEmbedded(runs: readonly EmbeddedRun[]): void {
    for (const run of runs) {
      if (run.kind === "script") this.scriptBody(run.words, run.what);
      else this.problem(run.reason);
    }
  }

  /**
   * GNU `parallel [options] [command] (::: args | :::: files)…`: the command runs through the shell with
   * the arguments appended (which may be flags); without a command, each argument, or each line of its
   * input, is a command line.
   */
  private parallel(args: Word[], redirects: Simple["redirects"]): Word[] {
    const end = skipOptions(args, PARALLEL_OPTIONS);
    const own = args.slice(0, end.at);
    const fromFile = end.seen.some((o) => o === "-a" || o === "--arg-file" || o === "--arg-file-sep");
    for (const start of end.ambiguous ? [end.at, end.at + 1] : [end.at]) {
      const rest = args.slice(start);
      const sep = rest.findIndex((w) => PARALLEL_SOURCES.has(w.text));
      const command = sep === -1 ? rest : rest.slice(0, sep);
      if (command.length > 0) {
        const first = this.analysis.nodes.length;
        this.scriptBody(command, "parallel");
        for (const node of this.analysis.nodes.slice(first)) {
          node.unknownFlags = true;
          node.appendedWords = true;
        }
      } else if (sep === -1) {
        this.scriptFromInput("parallel", redirects);
        if (fromFile) this.problem("parallel runs commands read from a file");
      } else {
        let source = "";
        for (const w of rest.slice(sep)) {
          if (PARALLEL_SOURCES.has(w.text)) source = w.text;
          else if (source.startsWith("::::")) this.problem("parallel runs commands read from a file");
          else this.scriptBody([w], "parallel :::");
        }
      }
    }
    return own;
  }

  /** `watch [-n N] CMD…`: the words are joined and run by `sh -c`. */
  private watch(args: Word[]): Word[] {
    const { at } = skipOptions(
      args,
      opts(["-n", "--interval"], ["-b", "-c", "-d", "-e", "-g", "-p", "-t", "-w", "-x"]),
    );
    if (at < args.length) this.scriptBody(args.slice(at), "watch");
    return args.slice(0, at);
  }
}

/**
 * A glob or a brace expansion (`{rm,-rf,x}`, `r{m,}`) in the program position: the shell would choose
 * the program. Tested with plain searches, conservatively, so nothing can backtrack.
 */
function isPattern(text: string): boolean {
  if (text.includes("*") || text.includes("?")) return true;
  const open = text.indexOf("{");
  return open >= 0 && text.indexOf("}", open) > open && (text.includes(",") || text.includes(".."));
}

/** `NAME=value`, `NAME+=value`, `NAME[i]=value` before the program. */
function isAssignment(word: Word): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(word.text);
}

/**
 * The name a program's options and wrappers are looked up by: file systems that ignore case (macOS,
 * Windows) run `RM` and `rm.exe` as rm.
 */
function programKey(program: string): string {
  const lower = program.toLowerCase();
  return lower.endsWith(".exe") ? lower.slice(0, -4) : lower;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/**
 * Programs whose arguments are data they print, search or list, never a command they run: a shell's
 * name among them (`ps aux | grep bash`) runs nothing.
 */
export const DATA_PROGRAMS: ReadonlySet<string> = new Set([
  ...["echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "which", "type", "whereis", "whatis"],
  ...["apropos", "cat", "head", "tail", "wc", "ls", "stat", "file", "basename", "dirname", "test", "["],
]);

const SHELLS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "ash",
  "mksh",
  "yash",
  "posh",
  "rbash",
  "fish",
  "csh",
  "tcsh",
]);
const BUSYBOX_SHELLS = new Set(["sh", "ash", "bash", "hush"]);
/**
 * A shell's options, before its first operand (or a variable, which may be anything): whether they give
 * it `-c` (`-c`, `-ec`, zsh's and fish's `--command`) or `-s` (the script from input), where the
 * operands begin (after `--` or `-`), and the startup files `--rcfile`/`--init-file` name.
 * `-o`/`+o`/`-O`/`+O` and those two take the next word.
 */
function shellOptions(args: readonly Word[]): {
  hasC: boolean;
  hasS: boolean;
  end: number;
  startupFiles: Word[];
} {
  let hasC = false;
  let hasS = false;
  const startupFiles: Word[] = [];
  let k = 0;
  for (; k < args.length; k++) {
    const text = (args[k] as Word).text;
    if (isDynamic(args[k] as Word)) break;
    if (text === "--" || text === "-") {
      k += 1;
      break;
    }
    if (text === "-o" || text === "+o" || text === "-O" || text === "+O" || SHELL_LONG_WITH_VALUE.has(text)) {
      const value = args[k + 1];
      if (value && SHELL_LONG_WITH_VALUE.has(text)) startupFiles.push(value);
      k += 1;
      continue;
    }
    if (text.startsWith("--")) {
      if (text === "--command") hasC = true;
      continue;
    }
    if ((text.startsWith("-") || text.startsWith("+")) && text.length > 1) {
      if (text.startsWith("-") && text.includes("c")) hasC = true;
      if (text.startsWith("-") && text.includes("s")) hasS = true;
      continue;
    }
    break;
  }
  return { hasC, hasS, end: k, startupFiles };
}

/** npm's subcommands that run a command (`npm exec`, `npm x`), and its options there that take a value. */
const NPM_EXEC = new Set(["exec", "x"]);
const NPM_VALUED = new Set(["-p", "--package", "-w", "--workspace", "--prefix", "--userconfig"]);

/**
 * The word an option's value is when `args[k]` is that option, as optionArgument reads it (`-c V`, a
 * cluster ending in `c`, `-cV`, `--long V`, `--long=V`, a prefix of a long name): the next word, or the
 * rest of this one. Undefined when `args[k]` is not the option; null when its value would be a word
 * after the last.
 */
function valuedWord(o: {
  args: Word[];
  k: number;
  short: string;
  long: readonly string[];
}): Word | null | undefined {
  const word = o.args[o.k] as Word;
  const next = o.args[o.k + 1];
  for (const [i, long] of o.long.entries()) {
    const got = optionArgument({
      text: word.text,
      next: next?.text,
      long: long.replace(/^--/, ""),
      ...(i === 0 ? { short: o.short } : {}),
    });
    if (got === undefined) continue;
    if (got.value === undefined) return null;
    return next !== undefined && got.value === next.text && !word.text.endsWith(got.value)
      ? next
      : { ...word, text: got.value };
  }
  return undefined;
}
const SHELL_LONG_WITH_VALUE = new Set(["--rcfile", "--init-file"]);
/** Variables naming a file a shell runs when it starts (bash's `BASH_ENV`, sh's and an interactive bash's `ENV`). */
const STARTUP_FILE_VARIABLES = new Set(["BASH_ENV", "ENV"]);
const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
/** fd's options that run a command on what it finds. */
const FD_EXEC = new Set(["-x", "--exec", "-X", "--exec-batch"]);
/** Builtins whose `NAME=value` arguments are assignments. */
const DECLARATIONS = new Set(["export", "declare", "typeset", "local", "readonly"]);
/** GNU parallel's argument sources: `:::` arguments, `::::` files, `:::+`/`::::+` linked. */
const PARALLEL_SOURCES = new Set([":::", "::::", ":::+", "::::+"]);
const STDIN_FILES = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"]);
const MULTICALL = new Set(["busybox", "toybox"]);

interface WrapperOptions {
  /** Options that take the next word as their value (also accepted attached: `-uroot`, `--user=root`). */
  withValue: Set<string>;
  /** Options known to take no value. An option in neither set is read both ways (see `skipOptions`). */
  plain: Set<string>;
  /** An option word that is a number (`nice -5`). */
  numeric?: boolean;
  /** Operands before the command (`timeout DURATION cmd`, `chroot DIR cmd`, `taskset MASK cmd`). */
  operands?: number;
}

const opts = (withValue: string[], plain: string[], extra: Partial<WrapperOptions> = {}): WrapperOptions => ({
  withValue: new Set(withValue),
  plain: new Set(plain),
  ...extra,
});

/** Wrappers that run their operand as a command, and their options. */
const WRAPPER_OPTIONS = new Map<string, WrapperOptions>(
  Object.entries({
    sudo: opts(
      [
        ...["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "-R", "-a", "-c"],
        ...["--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role", "--type"],
        ...["--command-timeout", "--other-user", "--chroot", "--auth-type", "--login-class"],
      ],
      [
        ...[
          "-A",
          "-B",
          "-b",
          "-E",
          "-e",
          "-H",
          "-i",
          "-K",
          "-k",
          "-l",
          "-N",
          "-n",
          "-P",
          "-S",
          "-s",
          "-V",
          "-v",
        ],
        ...["--askpass", "--bell", "--background", "--preserve-env", "--edit", "--set-home", "--login"],
        ...["--remove-timestamp", "--reset-timestamp", "--list", "--non-interactive", "--preserve-groups"],
        ...["--stdin", "--shell", "--version", "--validate", "--help"],
      ],
    ),
    doas: opts(["-u", "-C"], ["-n", "-s", "-L"]),
    pkexec: opts(["--user"], ["--disable-internal-agent", "--keep-cwd"]),
    nohup: opts([], []),
    time: opts(["-f", "-o", "--format", "--output"], ["-p", "-v", "-a", "-q", "--portability", "--verbose"]),
    nice: opts(["-n", "--adjustment"], [], { numeric: true }),
    exec: opts(["-a"], ["-c", "-l"]),
    command: opts([], ["-p", "-v", "-V"]),
    builtin: opts([], []),
    timeout: opts(
      ["-s", "-k", "--signal", "--kill-after"],
      ["-v", "--verbose", "--preserve-status", "--foreground"],
      {
        operands: 1,
      },
    ),
    stdbuf: opts(["-i", "-o", "-e", "--input", "--output", "--error"], []),
    xargs: opts(
      [
        ...["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a"],
        ...["--max-lines", "--max-args", "--max-procs", "--max-chars", "--delimiter", "--eof", "--arg-file"],
        ...["--process-slot-var"],
      ],
      [
        ...["-0", "-r", "-t", "-p", "-x", "-o", "-i", "-l", "-e", "--null", "--no-run-if-empty", "--verbose"],
        ...["--interactive", "--exit", "--open-tty", "--show-limits"],
      ],
    ),
    setsid: opts([], ["-c", "-f", "-w", "--ctty", "--fork", "--wait"]),
    ionice: opts(["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"], ["-t", "--ignore"]),
    chroot: opts(["--userspec", "--groups"], ["--skip-chdir"], { operands: 1 }),
    unbuffer: opts([], ["-p"]),
    flock: opts(
      ["-w", "--timeout", "-E", "--conflict-exit-code"],
      ["-s", "-x", "-e", "-u", "-n", "-o", "-F"],
    ),
    taskset: opts([], ["-a", "-c", "-p", "--all-tasks", "--cpu-list", "--pid"], { operands: 1 }),
    chrt: opts([], ["-a", "-b", "-d", "-e", "-f", "-i", "-m", "-o", "-p", "-r", "-R", "-v"], { operands: 1 }),
    strace: opts(["-e", "-o", "-p", "-s", "-u", "-E", "-P", "-a", "-b", "-O", "-S", "-X"], []),
    ltrace: opts(["-e", "-o", "-p", "-s", "-u", "-n", "-a", "-A", "-D", "-F", "-l", "-L"], []),
    unshare: opts(["-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd"], []),
    nsenter: opts(["-t", "-S", "-G", "-r", "-w", "--target", "--setuid", "--setgid", "--root", "--wd"], []),
    "systemd-run": opts(["-u", "-p", "-E", "-M", "-H", "--unit", "--property", "--setenv", "--machine"], []),
    firejail: opts([], []),
  } satisfies Record<string, WrapperOptions>),
);

const PARALLEL_OPTIONS = opts(
  [
    ...[
      "-j",
      "--jobs",
      "-P",
      "--max-procs",
      "-S",
      "--sshlogin",
      "--slf",
      "--sshloginfile",
      "-a",
      "--arg-file",
    ],
    ...["-d", "--delimiter", "-E", "--eof", "-I", "-n", "--max-args", "-N", "-L", "--max-lines", "-l"],
    ...["--colsep", "-C", "--timeout", "--delay", "--memfree", "--load", "--joblog", "--results", "--res"],
    ...["--tmpdir", "--workdir", "--wd", "--env", "--basefile", "--bf", "--return", "--transferfile"],
    ...[
      "--tf",
      "--sshdelay",
      "--retries",
      "--tagstring",
      "--tag-string",
      "--header",
      "--block",
      "--blocksize",
    ],
    ...["--ssh", "--halt", "--halt-on-error", "--arg-sep", "--arg-file-sep", "--termseq", "--limit"],
  ],
  [
    ...["-k", "--keep-order", "-u", "--ungroup", "-v", "--verbose", "-q", "--quote", "--dry-run", "--pipe"],
    ...["--tag", "-0", "--null", "-X", "--xargs", "-m", "--bar", "--eta", "--progress", "--line-buffer"],
    ...["--lb", "--group", "-g", "--no-notice", "--will-cite", "--nonall", "--onall", "-r"],
    ...["--no-run-if-empty", "--shellquote", "--plus", "--fg", "--bg", "--ungroup", "--keep-order"],
  ],
);

const SSH_OPTIONS = opts(
  "BbcDEeFIiJLlmOoPpQRSWw".split("").map((l) => `-${l}`),
  "46AaCfGgKkMNnqsTtVvXxYy".split("").map((l) => `-${l}`),
);

/**
 * The words a wrapper (`sudo`, `doas`, `nice`…: WRAPPER_OPTIONS) reads as its own options, before the
 * command it runs, as `skipOptions` reads them (an unknown last option's next word too: it may be its
 * value); undefined for a program that is no such wrapper.
 */
export function wrapperOptionWords(options: {
  program: string;
  args: readonly string[];
}): string[] | undefined {
  const known = WRAPPER_OPTIONS.get(options.program);
  if (!known) return undefined;
  const end = skipOptions(
    options.args.map((text) => ({ text, glob: false })),
    known,
  );
  return options.args.slice(0, end.ambiguous ? end.at + 1 : end.at);
}

interface OptionsEnd {
  /** The index of the first operand (`--` consumed). */
  at: number;
  /**
   * The last option is unknown and its next word could be its value or the command: both readings count
   * (reading a value as a program only adds a form; reading the program as a value would hide it).
   */
  ambiguous: boolean;
  /** The options given (`-i`, `--login`; a cluster letter by letter), values excluded. */
  seen: string[];
}

/** Where a wrapper's options end. */
function skipOptions(args: Word[], options: WrapperOptions): OptionsEnd {
  let ambiguous = false;
  const seen: string[] = [];
  for (let k = 0; k < args.length; k++) {
    const w = args[k] as Word;
    const text = w.text;
    if (isDynamic(w) || !text.startsWith("-") || text === "-") return { at: k, ambiguous, seen };
    if (text === "--") return { at: k + 1, ambiguous: false, seen };
    ambiguous = false;
    if (options.numeric && /^-\d+$/.test(text)) continue;
    if (text.startsWith("--")) {
      const name = text.split("=")[0] as string;
      seen.push(name);
      if (options.withValue.has(text)) k += 1;
      else ambiguous = !text.includes("=") && !options.plain.has(text);
      continue;
    }
    // a short cluster (`-iu root`, `-n1`): a value option takes the rest of the word, or the next word
    for (let j = 1; j < text.length; j++) {
      const letter = `-${text[j]}`;
      seen.push(letter);
      if (options.withValue.has(letter)) {
        if (j === text.length - 1) k += 1;
        break;
      }
      if (j === text.length - 1) ambiguous = !options.plain.has(letter);
    }
  }
  return { at: args.length, ambiguous: false, seen };
}

// ---------------------------------------------------------------------------------------------------
// Results

function toShellCommand(node: Node): ShellCommand {
  const command: ShellCommand = {
    program: node.program,
    args: node.args,
    flags: node.flags,
    raw: [node.program, ...node.args].join(" "),
  };
  if (node.unknownFlags) command.unknownFlags = true;
  if (node.appendedPaths) command.appendedPaths = node.appendedPaths;
  if (node.appendedWords) command.appendedWords = true;
  if (node.emptiedArgs) command.emptiedArgs = node.emptiedArgs;
  if (node.workingDirWords) command.workingDirWords = true;
  return command;
}

/** Every (from, to) program pair connected by a path of flows, each pair once. */
function flowPairs(analysis: Analysis): { from: string; to: string }[] {
  const pairs = new Map<string, { from: string; to: string }>();
  for (const start of analysis.edges.keys()) {
    const seen = new Set<number>();
    const stack = [...(analysis.edges.get(start) ?? [])];
    while (stack.length > 0) {
      const id = stack.pop() as number;
      if (seen.has(id)) continue;
      seen.add(id);
      for (const next of analysis.edges.get(id) ?? []) if (!seen.has(next)) stack.push(next);
    }
    const from = (analysis.nodes[start] as Node).program;
    for (const id of seen) {
      if (id === start) continue;
      const to = (analysis.nodes[id] as Node).program;
      pairs.set(from + "\u0000" + to, { from, to });
    }
  }
  return [...pairs.values()];
}
