/**
 * A small, serialisable condition language over facts (a step, a tool call, the agent input). Tool
 * rules and predicate bindings use it, so the compiled engine and the shield decide with the same code.
 *
 * Every value a rule inspects is chosen by the attacker, so argument values of a known kind (path, url,
 * email, command; see arg-kinds.ts) are compared in canonical form (src/core/canonical/), never raw:
 * `startsWith`, `matches`, `eq`… on a path argument see `/etc/passwd` for `/tmp/../etc/passwd`. A value
 * that cannot be canonicalised is "unknown", and so is every condition whose truth depends on it:
 * `evaluateConditionTri` is three-valued (Kleene logic) and callers fail closed on unknown.
 *
 * Field grammar (see `conditionFieldProblems`):
 *   args.a.b        one argument (canonical forms when its kind is known); `*` = every element or key
 *   args:path       every argument of that kind anywhere in the call (also args:url, args:email, args:command)
 *   raw.args.a      the raw value, never canonicalised
 *   tool, name, id, format, input, context.…   the call and its caller (raw)
 * Other fields are read as plain dot paths (the shield's step facts: action, url, elementText…).
 *
 * Roots that depend on the call: a `pathWithin` root (and an `invokes` comparison's `outside` root) may be
 * `{ "context": "cwd" }`, the caller's context fact of that name (an absolute path: the agent's
 * workspace), so one policy says "inside the workspace" for every workspace. A fact that is missing or not
 * an absolute path makes the comparison unknown (fail closed), never a root of "/" or "".
 *
 * When a comparison sees several values (several arguments, several addresses, several honest readings of
 * one path) and has no `quantifier`, it is read the STRICT way: `strictWhen` says which truth value of the
 * whole condition is the stricter outcome (true for deny/ask rules, false for allow rules), `not` flips it,
 * and a comparison whose truth is the stricter outcome needs one value ("any"), the other needs all.
 * Several readings of one value are always resolved that way; an explicit quantifier ranges over values.
 */
import { domainToASCII } from "node:url";
import { z } from "zod";
import { onFirstUse } from "../util/first-use.js";
import { type ArgKind, type ArgLeaf, type ArgLeaves, argLeaves, type PathOptions } from "./arg-kinds.js";
import {
  braceExpansions,
  canonicalAddresses,
  canonicalEmailDomain,
  canonicalFlag,
  canonicalLocalPart,
  canonicalPath,
  canonicalUrl,
  type EmailAddress,
  findStartingPoints,
  flagReadings,
  globSelects,
  hasShellExpansion,
  joinedTexts,
  listReadings,
  numberReadings,
  oldStyleOptionArgument,
  optionArgument,
  parseShellCommand,
  pathMatches,
  pathMayMatchBelow,
  pathWithin,
  ruleHostForms,
  DATA_PROGRAMS as SHELL_DATA_PROGRAMS,
  type ShellCommand,
  shellPatternMayMatch,
  shellPipes,
  shellSegmentMayBeDots,
  textReadings,
  type UrlParts,
  WORD_FORMS,
  WRITE_FORMS,
  wrapperOptionWords,
} from "./canonical/index.js";
import type { Canonical } from "./canonical/types.js";
import { WardenError } from "./errors.js";
import { type SafeRegex, safeRegex, validatePolicyRegex } from "./safe-regex.js";

export const COMPARISON_OPS = [
  "eq",
  "ne",
  "in",
  "notIn",
  "contains",
  "containsAny",
  "containsAll",
  "matches",
  "startsWith",
  "endsWith",
  "lt",
  "le",
  "gt",
  "ge",
  "exists",
  "empty",
  "pathWithin",
  "pathMatches",
  "invokes",
  "pipesInto",
  "globSelects",
] as const;
export type ComparisonOp = (typeof COMPARISON_OPS)[number];

export const QUANTIFIERS = ["any", "all"] as const;
export type Quantifier = (typeof QUANTIFIERS)[number];

/** Components of a canonical value a comparison may look at instead of the whole. */
export const VALUE_PARTS = [
  "scheme",
  "host",
  "domain",
  "port",
  "path",
  "href",
  "userinfo",
  "address",
  "local",
  "basename",
  "dirname",
] as const;
export type ValuePart = (typeof VALUE_PARTS)[number];

export interface Comparison {
  field: string;
  op: ComparisonOp;
  value?: unknown;
  /** Text comparisons ignore case unless this is true. */
  caseSensitive?: boolean;
  /** Over several values: "any" one of them, or "all"; absent = the strict reading (see the header). */
  quantifier?: Quantifier;
  /** Compare one component of the canonical value (url: scheme…userinfo; email: address, local, domain; path: basename, dirname). */
  part?: ValuePart;
}
export type Condition = Comparison | { all: Condition[] } | { any: Condition[] } | { not: Condition };

/** A root of `pathWithin`: a path, or `{ context: "cwd" }`, a context fact holding an absolute path. */
export type PathRoot = string | { context: string };
/** A root of `invokes`' `outside`: a PathRoot, or `{ file: "/dev/null" }`, that one path and nothing below it. */
export type OutsideRoot = PathRoot | { file: string };

/**
 * `invokes`: some simple command of the line runs one of the programs with every one of the flags, and,
 * when `outside` is given, with an operand (a word that is not an option) that is or may be outside those
 * roots (`rm -rf /` outside `{context: "cwd"}`); a root itself counts as outside (`rm -rf .` removes the
 * whole workspace), except a `{ file: "/dev/null" }` root, which is that one path and nothing below it,
 * and except as the value of an `optionPaths` option (`tar -C .`: a directory to write in) or the last
 * operand with `operands: "last"` (`cp x .`). When `operandMatches` is given, with an operand that is or may be a path one of those
 * globs matches (`grep -r x /home/dev` on `["/home/*"]`); a pattern (`/h*`, `src/[0-9]*`) may be any path
 * at or below its literal leading directory, one level up for each segment that may match `..`. Both
 * given, both must hold. Operands resolve against the caller's `context.cwd` and every directory a
 * `cd`/`pushd` of the line may have entered; one that cannot be read statically (a variable, `~`, words
 * `xargs` appends; for `outside` also a brace pattern or find's `{}`, a dot-glob that may match `..`)
 * makes the comparison unknown. With `optionPaths`, the values of those options are read instead of the
 * operands (`curl -o FILE`, `tar -C DIR`, dd's `of=FILE`: `optionValues`). With `globSelects`, one of
 * those options' values, read as a search program's file glob (`rg -g`, `grep --include`, `find -name`
 * or `-path`), admits one of these paths (optionGlobSelects).
 */
export interface InvokesValue {
  program: string | string[];
  flags?: string[];
  outside?: OutsideRoot | OutsideRoot[];
  operandMatches?: string | string[];
  /**
   * Globs of paths no operand may name (operandNaming): an operand that is one of them, or a pattern
   * that bash may expand to one; an operand the reading cannot name (a variable, a substitution, xargs'
   * input, find's `{}`) is unknown. The script operand of a search or an editor (grep's pattern, sed's
   * and awk's program, jq's filter) is not a path.
   */
  operandIs?: string | string[];
  /**
   * Options whose value is a path: `-o` (short; also a letter of tar's old-style first word, `tar czf F`),
   * `-out` (a single-dash name, openssl's), `--output` (long), `of=` (a word that begins so).
   */
  optionPaths?: string[];
  /** Paths relative to a search's root (`.env`, `.aws/credentials`) that no value of `optionPaths` may admit. */
  globSelects?: string | string[];
  /**
   * Which operands `outside`, `operandMatches` and `operandIs` read: all (the default); `"last"`, only
   * the last (a copy's destination: `cp /tmp/x .` writes in the workspace, and a root there is the
   * directory written in, inside, as an `optionPaths` value is); `"allButLast"`, the others (a move's
   * sources, which it removes: `mv . /tmp/x` moves the workspace away). Not with `optionPaths`.
   */
  operands?: OperandsAt;
}
/** InvokesValue.operands: which of a command's operands a comparison reads. */
export type OperandsAt = "last" | "allButLast";
/** `pipesInto`: some data flow from one of the `from` programs into one of the `to` programs ("*" = any). */
export interface PipesIntoValue {
  from: string[];
  to: string[];
}

/**
 * The value shapes of the structured ops, built on first use: a policy the build validated is taken as
 * parsed (load-policy.ts), so only the ops a check meets build theirs (checkValueShape), and a one-shot
 * check does not pay for the zod objects of every shape at module load.
 */
function buildValueSchemas() {
  const PathRootSchema = z.union([z.string().min(1), z.object({ context: z.string().min(1) }).strict()]);
  const PathRootsSchema = z.union([PathRootSchema, z.array(PathRootSchema).min(1)]);
  const OutsideRootSchema = z.union([
    PathRootSchema,
    z.object({ file: z.string().startsWith("/") }).strict(),
  ]);
  const OutsideRootsSchema = z.union([OutsideRootSchema, z.array(OutsideRootSchema).min(1)]);
  const StringOrStrings = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);
  const InvokesValueSchema = z
    .object({
      program: StringOrStrings,
      flags: z.array(z.string().min(1)).optional(),
      outside: OutsideRootsSchema.optional(),
      operandMatches: StringOrStrings.optional(),
      operandIs: StringOrStrings.optional(),
      globSelects: StringOrStrings.optional(),
      operands: z.enum(["last", "allButLast"]).optional(),
      optionPaths: z
        .array(
          z
            .string()
            .regex(
              /^(-[^-\s=][^\s=]*|--[^-\s=][^\s=]*|[A-Za-z][\w-]*=)$/,
              'an option spelled "-o", "-out", "--output" or "of="',
            ),
        )
        .min(1)
        .optional(),
    })
    .strict()
    .refine(
      (v) =>
        v.optionPaths === undefined ||
        v.outside !== undefined ||
        v.operandMatches !== undefined ||
        v.operandIs !== undefined ||
        v.globSelects !== undefined,
      {
        message: "optionPaths is read by outside, operandMatches, operandIs or globSelects: give one of them",
      },
    )
    .refine((v) => v.globSelects === undefined || v.optionPaths !== undefined, {
      message: "globSelects reads the values of optionPaths: give them",
    })
    .refine(
      (v) =>
        v.operands === undefined ||
        (v.optionPaths === undefined &&
          (v.outside !== undefined || v.operandMatches !== undefined || v.operandIs !== undefined)),
      {
        message:
          "operands chooses what outside, operandMatches or operandIs read: give one, without optionPaths",
      },
    );
  const PipesIntoValueSchema = z
    .object({ from: z.array(z.string().min(1)).min(1), to: z.array(z.string().min(1)).min(1) })
    .strict();
  return { InvokesValueSchema, PipesIntoValueSchema, PathRootsSchema, StringOrStrings };
}
const valueShapes = onFirstUse(buildValueSchemas);

/** Checks the value a comparison's op needs; the problems, none when it is well formed. */
export function comparisonValueProblems(options: {
  comparison: Comparison;
  /** Whether a `matches` regex is parsed too (default true). */
  regex?: boolean;
}): string[] {
  const c = options.comparison;
  const shapes = VALUE_SHAPES[c.op] === undefined ? undefined : valueShapes();
  const schema =
    c.op === "invokes"
      ? shapes?.InvokesValueSchema
      : c.op === "pipesInto"
        ? shapes?.PipesIntoValueSchema
        : c.op === "pathWithin"
          ? shapes?.PathRootsSchema
          : c.op === "pathMatches" || c.op === "globSelects"
            ? shapes?.StringOrStrings
            : undefined;
  const problems: string[] = [];
  if (schema) {
    const parsed = schema.safeParse(c.value);
    if (!parsed.success) problems.push(`op ${c.op} needs ${VALUE_SHAPES[c.op]}`);
  }
  if (c.op === "matches" && options.regex !== false) {
    const why = validatePolicyRegex({ pattern: asText(c.value), caseSensitive: c.caseSensitive === true });
    if (why !== undefined) problems.push(`invalid regular expression: ${why}`);
  }
  problems.push(...hostTextProblems(c));
  return problems;
}

/** Text operators on a host or domain, which compare the value as written with the canonical text. */
const HOST_TEXT_OPS = new Set<ComparisonOp>([
  "startsWith",
  "endsWith",
  "contains",
  "containsAny",
  "containsAll",
]);

/**
 * A host or domain is compared in its canonical text: punycode, lower case (url.ts, email.ts). `eq` and
 * `in` read the rule's value as a host too, but a text operator cannot (`ücher.de` is no label's
 * punycode), so a text with other characters, or upper case where case counts, would never match: a
 * deny that silently never fires. Refused, with the spelling that works.
 */
function hostTextProblems(c: Comparison): string[] {
  if (c.part !== "host" && c.part !== "domain") return [];
  if (c.op === "matches") return hostPatternProblems(c);
  if (!HOST_TEXT_OPS.has(c.op)) return [];
  const problems: string[] = [];
  for (const text of asList(c.value)) {
    if (typeof text !== "string") continue;
    const foreign = /[^\x00-\x7f]/.test(text);
    if (!foreign && !(c.caseSensitive === true && text !== text.toLowerCase())) continue;
    const ascii = text
      .toLowerCase()
      .split(".")
      .map((label) => (label === "" ? label : domainToASCII(label) || label))
      .join(".");
    problems.push(
      `part "${c.part}" is compared in its canonical text (punycode, lower case), so ${JSON.stringify(text)} never matches: write ${JSON.stringify(ascii)}, or use eq/in, which read the value as a host`,
    );
  }
  return problems;
}
/**
 * A `matches` regex on a host or domain reads the same canonical text, so a letter outside ASCII in the
 * pattern never matches either. Refused, with the punycode of each label that has one.
 */
function hostPatternProblems(c: Comparison): string[] {
  if (typeof c.value !== "string" || !/[^\x00-\x7f]/.test(c.value)) return [];
  const labels = [...new Set(c.value.match(/[\p{L}\p{N}-]*[^\x00-\x7f][\p{L}\p{N}-]*/gu) ?? [])];
  const spelled = labels.map(
    (label) => `${JSON.stringify(label)} as ${JSON.stringify(domainToASCII(label.toLowerCase()) || label)}`,
  );
  return [
    `part "${c.part}" is compared in its canonical text (punycode, lower case), so a regex with letters outside ASCII never matches: write ${spelled.join(", ")}`,
  ];
}

const VALUE_SHAPES: Partial<Record<ComparisonOp, string>> = {
  invokes:
    "{ program: string | string[], flags?: string[], outside?: roots, operandMatches?: globs, operandIs?: globs, optionPaths?: options, globSelects?: paths }",
  pipesInto: "{ from: string[], to: string[] }",
  pathWithin: 'a root or a list of roots (a root is a path or { "context": "cwd" })',
  pathMatches: "a glob or a list of globs",
  globSelects: 'a path or a list of paths, relative to the search root (".env", ".aws/credentials")',
};

/** A comparison as a policy writes it; built with ConditionSchema, when a policy is first parsed. */
const comparisonSchema = () =>
  z
    .object({
      field: z.string().min(1),
      op: z.enum(COMPARISON_OPS),
      value: z.unknown().optional(),
      caseSensitive: z.boolean().optional(),
      quantifier: z.enum(QUANTIFIERS).optional(),
      part: z.enum(VALUE_PARTS).optional(),
    })
    .superRefine((c, ctx) => {
      // Regexes are checked by the schema that holds the condition (`conditionRegexProblems`), which can
      // name the rule.
      for (const problem of comparisonValueProblems({ comparison: c as Comparison, regex: false })) {
        ctx.addIssue({ code: "custom", message: problem, path: ["value"] });
      }
    });

export const ConditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    comparisonSchema(),
    z.object({ all: z.array(ConditionSchema) }).strict(),
    z.object({ any: z.array(ConditionSchema) }).strict(),
    z.object({ not: ConditionSchema }).strict(),
  ]),
) as z.ZodType<Condition>;

// ---------------------------------------------------------------------------------------------------
// Field grammar

/** Parsed once per field text and shared by every check, segments included (read, never changed). */
type ParsedField =
  | { type: "args"; segments: readonly string[]; multi: boolean }
  | { type: "argsKind"; kind: ArgKind }
  | { type: "raw"; segments: readonly string[]; multi: boolean }
  | { type: "plain"; segments: readonly string[] };

const KIND_SELECTOR = /^args:(path|url|email|command)$/;
const fieldCache = new Map<string, ParsedField>();

function parseField(field: string): ParsedField {
  let parsed = fieldCache.get(field);
  if (parsed) return parsed;
  const kind = KIND_SELECTOR.exec(field);
  if (kind) parsed = { type: "argsKind", kind: kind[1] as ArgKind };
  else if (field === "args" || field.startsWith("args.")) {
    const segments = field.split(".").slice(1);
    parsed = { type: "args", segments, multi: segments.includes("*") };
  } else if (field === "raw.args" || field.startsWith("raw.args.")) {
    const segments = field.split(".").slice(2);
    parsed = { type: "raw", segments, multi: segments.includes("*") };
  } else parsed = { type: "plain", segments: field.split(".") };
  if (fieldCache.size > 1000) fieldCache.clear();
  fieldCache.set(field, parsed);
  return parsed;
}

const CALL_FIELDS = new Set(["tool", "name", "id", "format", "input"]);

/**
 * Why a field is outside the grammar of tool-rule conditions (none when it is in it): `args`, `args.a.b`,
 * `args.a.*`, `args:path|url|email|command`, `raw.args…`, `tool`, `name`, `id`, `format`, `input`,
 * `context…`. `compile --check` reports these as errors, since such a field is always undefined.
 */
export function conditionFieldProblems(options: { field: string }): string[] {
  const { field } = options;
  if (field.startsWith("args:")) {
    return KIND_SELECTOR.test(field)
      ? []
      : [`"${field}": a kind selector is args:path, args:url, args:email or args:command`];
  }
  const segments = field.split(".");
  if (segments.some((s) => s === "")) return [`"${field}" has an empty segment`];
  const head = segments[0]!;
  if (head === "args" || (head === "raw" && segments[1] === "args")) return [];
  if (head === "raw") return [`"${field}": raw. is followed by args (raw.args.…)`];
  if (segments.includes("*")) return [`"${field}": * is allowed only under args`];
  if (CALL_FIELDS.has(head)) {
    return segments.length === 1 ? [] : [`"${field}": ${head} is a single value, it has no sub-fields`];
  }
  if (head === "context") return [];
  return [
    `"${field}" is not a field of a tool call (args…, args:<kind>, raw.args…, tool, name, id, format, input, context…)`,
  ];
}

/** Is the field in the tool-rule grammar? With the problem when it is not. */
export function validateConditionField(options: {
  field: string;
}): { ok: true } | { ok: false; problem: string } {
  const problems = conditionFieldProblems(options);
  return problems.length === 0 ? { ok: true } : { ok: false, problem: problems[0]! };
}

export function getPath(facts: unknown, path: string): unknown {
  return valueAt(facts, path.split("."));
}

/**
 * `getPath` over a field already split (parsed fields keep their segments, so no split per check), through
 * own properties only: a field named like one of Object.prototype's members (`constructor`, `toString`,
 * `__proto__`) is absent unless the facts hold it, and an object's prototype (set by a copy that assigned
 * an own "__proto__" key) can never supply a fact such as `context.cwd`. `selectPath`'s answer for a
 * field without `*`, without building its lists (one of these runs for every comparison of every check).
 */
function valueAt(root: unknown, segments: readonly string[]): unknown {
  let current = root;
  for (const key of segments) {
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Every value at `segments` below `root`, `*` standing for every element or key. */
function selectPath(
  root: unknown,
  segments: readonly string[],
): { segments: readonly string[]; value: unknown }[] {
  let current: { segments: readonly string[]; value: unknown }[] = [{ segments: [], value: root }];
  for (const key of segments) {
    const next: { segments: readonly string[]; value: unknown }[] = [];
    for (const { segments: at, value } of current) {
      if (value === null || typeof value !== "object") continue;
      if (key === "*") {
        const entries = Array.isArray(value)
          ? value.map((v, i) => [String(i), v] as const)
          : Object.entries(value as Record<string, unknown>);
        for (const [k, v] of entries) next.push({ segments: [...at, k], value: v });
      } else if (Object.hasOwn(value, key)) {
        next.push({ segments: [...at, key], value: (value as Record<string, unknown>)[key] });
      }
    }
    current = next;
  }
  return current;
}

// ---------------------------------------------------------------------------------------------------
// Prepared facts: the facts plus what the comparisons compute from them, computed once per check

export interface ConditionScope {
  /** Kinds the policy declares for this tool's arguments (argument path -> kind), see arg-kinds.ts. */
  declaredKinds?: Readonly<Record<string, ArgKind | readonly ArgKind[]>>;
  /** The tool's JSON Schema (MCP `inputSchema`), when known. */
  inputSchema?: unknown;
  /**
   * How paths are canonicalised. Relative paths resolve against `paths.base`, else the caller's absolute
   * `context.cwd`, else they are undetermined.
   */
  paths?: PathOptions;
}

/**
 * Canonical forms by options (case folding and base), then kind, then value; bounded in entries (all of
 * them together) and in the length of a cached value. Levels rather than one joined key, so that a
 * lookup builds no string: the options' key is built once per check.
 */
const formCache = new Map<string, Map<string, Map<string, Canonical<unknown>>>>();
let formCount = 0;
const FORM_CACHE_SIZE = 4096;
const MAX_CACHED_VALUE = 1024;

/** The remembered forms for one options key and kind, the whole cache starting over when it is full. */
function formsFor(options: string, kind: string): Map<string, Canonical<unknown>> {
  if (formCount >= FORM_CACHE_SIZE) {
    formCache.clear();
    formCount = 0;
  }
  let byKind = formCache.get(options);
  if (!byKind) {
    byKind = new Map();
    formCache.set(options, byKind);
  }
  let forms = byKind.get(kind);
  if (!forms) {
    forms = new Map();
    byKind.set(kind, forms);
  }
  return forms;
}

const CWD_FIELD = Object.freeze(["context", "cwd"]);
const REAL_PATHS_FIELD = Object.freeze(["context", "realPaths"]);

/** `context.realPaths` as a map of absolute paths to absolute paths; anything else in it is left out. */
function realPathsFact(value: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (typeof value !== "object" || value === null || Array.isArray(value)) return map;
  for (const [from, to] of Object.entries(value)) {
    if (from.startsWith("/") && typeof to === "string" && to.startsWith("/")) map.set(from, to);
  }
  return map;
}
const ARGS_FIELD = Object.freeze(["args"]);

/**
 * Facts with their derived values cached: argument leaves and kinds, canonical forms. Build one per
 * check with `prepareConditionFacts` and evaluate every rule's condition over it.
 */
export class PreparedFacts {
  readonly facts: unknown;
  readonly scope: ConditionScope;
  readonly caseFold: boolean;
  /** The policy does not say whether the file system folds case: path operators try both readings. */
  readonly caseUnknown: boolean;
  readonly base: string | undefined;
  /** The call's arguments, read once (every comparison of the check starts from them). */
  readonly args: unknown;
  /** The canonical-form cache's key for this check's options (case folding, base), once a form is asked. */
  private formOptions: string | undefined;
  private leavesCache: ArgLeaves | undefined;
  private leafIndex: Map<string, ArgLeaf> | undefined;
  private textCache: Map<string, string[]> | undefined;

  /**
   * The real path (symbolic links resolved) of a canonical path, when the caller's trusted facts give one
   * that differs (`context.realPaths`, a map the hook builds from the file system); undefined otherwise.
   */
  realPathOf(path: string): string | undefined {
    this.realPaths ??= realPathsFact(valueAt(this.facts, REAL_PATHS_FIELD));
    const real = this.realPaths.get(path);
    return real !== undefined && real !== path ? real : undefined;
  }
  private realPaths: Map<string, string> | undefined;

  constructor(facts: unknown, scope: ConditionScope) {
    this.facts = facts;
    this.scope = scope;
    this.caseFold = scope.paths?.caseFold === true;
    this.caseUnknown = scope.paths?.caseFold === undefined;
    const cwd = valueAt(facts, CWD_FIELD);
    this.base = scope.paths?.base ?? (typeof cwd === "string" && cwd.startsWith("/") ? cwd : undefined);
    this.args = valueAt(facts, ARGS_FIELD);
  }

  leaves(): ArgLeaves {
    if (!this.leavesCache) {
      this.leavesCache = argLeaves({
        args: this.args,
        ...(this.scope.declaredKinds ? { declared: this.scope.declaredKinds } : {}),
        ...(this.scope.inputSchema !== undefined ? { inputSchema: this.scope.inputSchema } : {}),
      });
    }
    return this.leavesCache;
  }

  leafAt(segments: readonly string[]): ArgLeaf | undefined {
    if (!this.leafIndex) {
      this.leafIndex = new Map(this.leaves().leaves.map((l) => [l.segments.join("\u0000"), l]));
    }
    return this.leafIndex.get(segments.join("\u0000"));
  }

  /** The canonical forms of a value read as `kind` (pure, so cached across checks for short values). */
  canonical(kind: ArgKind, value: unknown): Canonical<unknown> {
    if (typeof value !== "string") {
      return {
        ok: false,
        reason: `a ${kind} must be a string, not ${value === null ? "null" : typeof value}`,
      };
    }
    if (value.length > MAX_CACHED_VALUE) return canonicalise(kind, value, this.caseFold, this.base);
    this.formOptions ??= `${this.caseFold ? 1 : 0}\u0000${this.base ?? ""}`;
    const forms = formsFor(this.formOptions, kind);
    let result = forms.get(value);
    if (!result) {
      result = canonicalise(kind, value, this.caseFold, this.base);
      forms.set(value, result);
      formCount++;
    }
    return result;
  }

  /** A plain text's readings (text.ts); those of a text that is not plain ASCII are kept for the check. */
  texts(value: string): string[] {
    const cached = this.textCache?.get(value);
    if (cached) return cached;
    const readings = textReadings({ text: value });
    if (readings.length > 1) {
      this.textCache ??= new Map();
      this.textCache.set(value, readings);
    }
    return readings;
  }

  /** Every data flow between programs of a command line (`shellPipes`), cached like the forms. */
  pipes(value: unknown): Canonical<{ from: string; to: string }> {
    if (typeof value !== "string") {
      return {
        ok: false,
        reason: `a command must be a string, not ${value === null ? "null" : typeof value}`,
      };
    }
    if (value.length > MAX_CACHED_VALUE) return shellPipes({ command: value });
    const forms = formsFor("", "pipes");
    let result = forms.get(value) as Canonical<{ from: string; to: string }> | undefined;
    if (!result) {
      result = shellPipes({ command: value });
      forms.set(value, result);
      formCount++;
    }
    return result;
  }
}

function canonicalise(
  kind: ArgKind,
  value: unknown,
  caseFold: boolean,
  base: string | undefined,
): Canonical<unknown> {
  switch (kind) {
    case "path":
      return canonicalPath({ path: value, caseFold, ...(base !== undefined ? { base } : {}) });
    case "url":
      return canonicalUrl({ url: value as string });
    case "email":
      return canonicalAddresses({ value: value as string });
    case "command":
      return parseShellCommand({ command: value as string });
  }
}

export function prepareConditionFacts(options: { facts: unknown; scope?: ConditionScope }): PreparedFacts {
  return new PreparedFacts(options.facts, options.scope ?? {});
}

// ---------------------------------------------------------------------------------------------------
// Old comparison semantics on one value

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function norm(text: string, caseSensitive: boolean | undefined): string {
  return caseSensitive ? text : text.toLowerCase();
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

function looseEqual(a: unknown, b: unknown, caseSensitive: boolean | undefined): boolean {
  if (typeof a === "string" && typeof b === "string")
    return norm(a, caseSensitive) === norm(b, caseSensitive);
  if (typeof a === "boolean" && typeof b === "string") return String(a) === b.toLowerCase();
  if (typeof a === "string" && typeof b === "boolean") return a.toLowerCase() === String(b);
  if (typeof a === "number" && typeof b === "string") return b.trim() !== "" && a === Number(b);
  if (typeof a === "string" && typeof b === "number") return a.trim() !== "" && Number(a) === b;
  return a === b;
}

function compareNumbers(
  actual: unknown,
  expected: unknown,
  test: (a: number, b: number) => boolean,
): boolean {
  const a = typeof actual === "number" ? actual : Number(actual);
  const b = typeof expected === "number" ? expected : Number(expected);
  if (actual === undefined || actual === null || actual === "" || Number.isNaN(a) || Number.isNaN(b))
    return false;
  return test(a, b);
}

/** Policy regexes run on RE2 (linear time in the attacker's text); see safe-regex.ts. */
function regex(pattern: string, caseSensitive: boolean | undefined): SafeRegex {
  return safeRegex({ pattern, ...(caseSensitive !== undefined ? { caseSensitive } : {}) });
}

function isEmpty(actual: unknown): boolean {
  return (
    actual === undefined ||
    actual === null ||
    actual === "" ||
    (Array.isArray(actual) && actual.length === 0) ||
    (typeof actual === "object" && Object.keys(actual as object).length === 0)
  );
}

const LT = (a: number, b: number) => a < b;
const LE = (a: number, b: number) => a <= b;
const GT = (a: number, b: number) => a > b;
const GE = (a: number, b: number) => a >= b;

/**
 * Whether `actual` equals `value` or one of its canonical forms (expectedVariants) as a value of the
 * compared field's `kind` reads them.
 */
function equalsExpected(
  c: Comparison,
  actual: unknown,
  value: unknown,
  kind: ArgKind | undefined,
  pf: PreparedFacts,
): boolean {
  for (const x of expectedVariants(kind, c.part, pf, value))
    if (looseEqual(actual, x, c.caseSensitive)) return true;
  return false;
}

/**
 * One text/number comparison on one value. `eq`/`in` accept each expected value itself and, on a field of
 * `kind`, its canonical forms. Loops and plain arguments, not closures or an options object: this runs for
 * every reading of every comparison, and either would be allocated on each of them.
 */
function testPlain(c: Comparison, actual: unknown, kind: ArgKind | undefined, pf: PreparedFacts): boolean {
  const cs = c.caseSensitive;
  switch (c.op) {
    case "eq":
      return equalsExpected(c, actual, c.value, kind, pf);
    case "ne":
      return !equalsExpected(c, actual, c.value, kind, pf);
    case "in":
    case "notIn": {
      let found = false;
      for (const v of asList(c.value)) {
        if (equalsExpected(c, actual, v, kind, pf)) {
          found = true;
          break;
        }
      }
      return c.op === "in" ? found : !found;
    }
    case "contains": {
      if (Array.isArray(actual)) {
        for (const item of actual) if (looseEqual(item, c.value, cs)) return true;
        return false;
      }
      return norm(asText(actual), cs).includes(norm(asText(c.value), cs));
    }
    case "containsAny": {
      const text = norm(asText(actual), cs);
      for (const v of asList(c.value)) {
        const needle = norm(asText(v), cs);
        if (needle !== "" && text.includes(needle)) return true;
      }
      return false;
    }
    case "containsAll": {
      const text = norm(asText(actual), cs);
      for (const v of asList(c.value)) if (!text.includes(norm(asText(v), cs))) return false;
      return true;
    }
    case "matches":
      return regex(asText(c.value), cs).test(asText(actual));
    case "startsWith":
      return norm(asText(actual), cs).startsWith(norm(asText(c.value), cs));
    case "endsWith":
      return norm(asText(actual), cs).endsWith(norm(asText(c.value), cs));
    case "lt":
      return compareNumbers(actual, c.value, LT);
    case "le":
      return compareNumbers(actual, c.value, LE);
    case "gt":
      return compareNumbers(actual, c.value, GT);
    case "ge":
      return compareNumbers(actual, c.value, GE);
    case "exists":
      return actual !== undefined && actual !== null;
    case "empty":
      return isEmpty(actual);
    default:
      throw new WardenError({ code: "INTERNAL", message: `op ${c.op} is not a plain comparison` });
  }
}

// ---------------------------------------------------------------------------------------------------
// Three-valued evaluation

export type Tri = boolean | "unknown";
export interface TriResult {
  value: Tri;
  /** Why the value is unknown (each undetermined value, with its field); empty when it is known. */
  unknown: string[];
}

const TRUE: TriResult = { value: true, unknown: [] };
const FALSE: TriResult = { value: false, unknown: [] };
const triOf = (b: boolean): TriResult => (b ? TRUE : FALSE);

/** One value a comparison looks at, and the kind it is read as (undefined = raw). */
interface Subject {
  raw: unknown;
  kind: ArgKind | undefined;
  /** A command with its separately listed arguments (see ArgLeaf.commandLine): commands are read from it. */
  line?: string;
}
/** The values a field selects; `unknown` when some could not be selected (arguments not walked). */
interface Selection {
  subjects: Subject[];
  multi: boolean;
  unknown?: string;
}

const PATH_OPS = new Set<ComparisonOp>(["pathWithin", "pathMatches"]);
const COMMAND_OPS = new Set<ComparisonOp>(["invokes", "pipesInto"]);
const PART_KINDS: Record<ValuePart, ArgKind[]> = {
  scheme: ["url"],
  host: ["url"],
  port: ["url"],
  href: ["url"],
  userinfo: ["url"],
  path: ["url"],
  domain: ["email", "url"],
  address: ["email"],
  local: ["email"],
  basename: ["path"],
  dirname: ["path"],
};

/** The kind a comparison reads a value as: forced by its op or part, else the leaf's first kind. */
function kindFor(c: Comparison, raw: unknown, kinds: readonly ArgKind[]): ArgKind | undefined {
  if (c.op === "exists" || c.op === "empty" || c.op === "globSelects") return undefined;
  if (PATH_OPS.has(c.op)) return "path";
  if (COMMAND_OPS.has(c.op)) return "command";
  if (c.part) {
    const wanted = PART_KINDS[c.part];
    const known = kinds.find((k) => wanted.includes(k));
    if (known) return known;
    if (c.part === "domain")
      return typeof raw === "string" && raw.includes("@") && !raw.includes("://") ? "email" : "url";
    return wanted[0];
  }
  return kinds[0];
}

function select(c: Comparison, pf: PreparedFacts): Selection {
  const field = parseField(c.field);
  switch (field.type) {
    case "plain": {
      // A path, command or part op reads the value as what it compares, whatever the field holds:
      // `context.cwd pathMatches "/"` sees `/work/proj/../..` as `/`. Other ops read the text.
      const raw = valueAt(pf.facts, field.segments);
      const kind = raw === undefined || raw === null ? undefined : kindFor(c, raw, []);
      return { subjects: [{ raw, kind }], multi: false };
    }
    case "raw": {
      if (!field.multi)
        return { subjects: [{ raw: valueAt(pf.args, field.segments), kind: undefined }], multi: false };
      const found = selectPath(pf.args, field.segments);
      return { subjects: found.map((f) => ({ raw: f.value, kind: undefined })), multi: true };
    }
    case "argsKind": {
      const { leaves, truncated } = pf.leaves();
      const subjects = leaves
        .filter((l) => l.kinds.includes(field.kind))
        .map((l) => ({
          raw: l.value as unknown,
          kind: kindFor(c, l.value, [field.kind]),
          ...(l.commandLine !== undefined ? { line: l.commandLine } : {}),
        }));
      return { subjects, multi: true, ...(truncated ? { unknown: truncated } : {}) };
    }
    case "args": {
      if (!field.multi) {
        // One value at most (undefined when absent: subjectAt reads it as missing).
        const value = valueAt(pf.args, field.segments);
        const expanded = expandArray(c, pf, field.segments, value);
        return expanded
          ? { subjects: withWhole(c, value, expanded), multi: true }
          : { subjects: [subjectAt(c, pf, field.segments, value)], multi: false };
      }
      const subjects: Subject[] = [];
      for (const f of selectPath(pf.args, field.segments)) {
        const expanded = expandArray(c, pf, f.segments, f.value);
        if (expanded) subjects.push(...withWhole(c, f.value, expanded));
        else subjects.push(subjectAt(c, pf, f.segments, f.value));
      }
      return { subjects, multi: true };
    }
  }
}

function subjectAt(c: Comparison, pf: PreparedFacts, segments: readonly string[], raw: unknown): Subject {
  const leaf = typeof raw === "string" ? pf.leafAt(segments) : undefined;
  if (raw === undefined || raw === null) return { raw, kind: undefined };
  const kind = kindFor(c, raw, leaf?.kinds ?? []);
  return kind === "command" && leaf?.commandLine !== undefined
    ? { raw, kind, line: leaf.commandLine }
    : { raw, kind };
}

/**
 * An array read element by element, and for `containsAny` / `containsAll` also as a whole: a fragment a
 * tool sees once it joins the items (`["rm", "-rf", "/"]`) is in no one element. The whole contains what
 * each element does, so it only adds what a search finds.
 */
function withWhole(c: Comparison, value: unknown, elements: Subject[]): Subject[] {
  return c.op === "containsAny" || c.op === "containsAll"
    ? [...elements, { raw: value, kind: undefined }]
    : elements;
}

/**
 * An array argument is read element by element when its elements have a kind or the op needs one
 * (`args.paths pathMatches …` tests every path, not the list's JSON text); otherwise it stays one value,
 * as before (`contains` tests membership).
 */
function expandArray(
  c: Comparison,
  pf: PreparedFacts,
  segments: readonly string[],
  value: unknown,
): Subject[] | undefined {
  if (!Array.isArray(value) || c.op === "exists" || c.op === "empty") return undefined;
  const elements = selectPath(value, ["*"]).map((e) => ({
    segments: [...segments, ...e.segments],
    value: e.value,
  }));
  const forced = PATH_OPS.has(c.op) || COMMAND_OPS.has(c.op) || c.part !== undefined;
  const kinded = elements.some(
    (e) => typeof e.value === "string" && (pf.leafAt(e.segments)?.kinds.length ?? 0) > 0,
  );
  if (!forced && !kinded) return undefined;
  const out: Subject[] = [];
  for (const e of elements) {
    out.push(...(expandArray(c, pf, e.segments, e.value) ?? [subjectAt(c, pf, e.segments, e.value)]));
  }
  return out;
}

/**
 * The units a subject contributes to the comparison: each unit is one value for the quantifier, with its
 * alternative readings (resolved strictly), or unknown. An e-mail list gives one unit per address, a
 * command line one per simple command; a path or URL one unit with its honest readings.
 */
type Unit = { readings: unknown[] } | { unknown: string } | { result: boolean };

function projectUrl(form: UrlParts, part: ValuePart | undefined): unknown {
  return (form as unknown as Record<string, unknown>)[part ?? "href"];
}

function basename(path: string): string {
  if (path === "/") return "/";
  return path.slice(path.lastIndexOf("/") + 1);
}
function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

function projectPath(path: string, part: ValuePart | undefined): string {
  if (part === "basename") return basename(path);
  if (part === "dirname") return dirname(path);
  return path;
}

/** Words a command's text may expand its braces to, at most: `{1..1000}` reads; past it, unknown. */
const MAX_BRACE_TEXT_WORDS = 1024;

/** What a reader of words that removes quotes and backslashes again (xargs, `read`, eval) takes out. */
const REQUOTED = /["'\\]/;
const REQUOTED_ALL = new RegExp(REQUOTED.source, "g");

/**
 * A command's text for the text operators: as written; with every variable and substitution expanded to
 * nothing, when it has one (`cat .e$()nv` is `cat .env`: ShellCommand.emptiedArgs); each of those with
 * its quotes and backslashes removed, as xargs reads words from its input (`echo '.e""nv' | xargs cat`
 * is `cat .env`); and each of these with every brace expanded as bash does (`cat .e{n,}v` is
 * `cat .env .ev`), so a name cannot hide in any of them. A brace that expands past MAX_BRACE_TEXT_WORDS
 * words, or a word too long to expand, is unknown.
 */
function commandTextUnit(cmd: ShellCommand): Unit {
  const readings: string[] = [];
  const asExpanded = cmd.emptiedArgs ? [cmd.args, cmd.emptiedArgs] : [cmd.args];
  const requoted = asExpanded
    .filter((args) => args.some((a) => REQUOTED.test(a)))
    .map((args) => args.map((a) => a.replace(REQUOTED_ALL, "")));
  for (const args of [...asExpanded, ...requoted]) {
    const text = [cmd.program, ...args].join(" ");
    readings.push(text);
    if (!text.includes("{")) continue;
    const words = [cmd.program];
    for (const arg of args) {
      const expanded = braceExpansions({ word: arg, maxWords: MAX_BRACE_TEXT_WORDS - words.length });
      if (expanded === null) return { unknown: `\`${cmd.raw}\`: a brace expands too far to read` };
      words.push(...expanded);
    }
    readings.push(words.join(" "));
  }
  return { readings };
}

const ORDER_OPS = new Set<ComparisonOp>(["lt", "le", "gt", "ge"]);
const EQUALITY_OPS = new Set<ComparisonOp>(["eq", "ne", "in", "notIn"]);
/** Comparisons of one text with the value. */
const SINGLE_TEXT_OPS = new Set<ComparisonOp>([...EQUALITY_OPS, "startsWith", "endsWith", "matches"]);
const TEXT_OPS = new Set<ComparisonOp>([...SINGLE_TEXT_OPS, "contains", "containsAny", "containsAll"]);

/**
 * How a comparison reads a plain value besides as itself: as a text a tool may respell (text.ts), as a
 * number (number.ts: orders, and equality against a number), as a truth value (flag.ts: equality against
 * a boolean). Worked out once per comparison: policies are long-lived and this runs for every value.
 */
interface PlainReads {
  texts: boolean;
  /** A comparison of one text: a list is read as each of its items, an object is unknown. */
  single: boolean;
  numbers: boolean;
  flags: boolean;
}
const plainReads = new WeakMap<Comparison, PlainReads>();

function plainReadsOf(c: Comparison): PlainReads {
  let reads = plainReads.get(c);
  if (!reads) {
    const values = EQUALITY_OPS.has(c.op) ? asList(c.value) : [];
    // Equality reads texts against a text; `raw.` fields are never read otherwise than as they are.
    const texts =
      TEXT_OPS.has(c.op) &&
      (!EQUALITY_OPS.has(c.op) || values.some((v) => typeof v === "string")) &&
      parseField(c.field).type !== "raw";
    reads = {
      texts,
      single: texts && SINGLE_TEXT_OPS.has(c.op),
      numbers: ORDER_OPS.has(c.op) || values.some((v) => typeof v === "number"),
      flags: values.some((v) => typeof v === "boolean"),
    };
    plainReads.set(c, reads);
  }
  return reads;
}

/**
 * A unit with its readings read as the tool may read numbers and flags: a text that parsers read as
 * different numbers, or a list or object where one number is compared, is unknown.
 */
function scalarUnit(reads: PlainReads, unit: Unit): Unit {
  if (!("readings" in unit)) return unit;
  const readings: unknown[] = [];
  for (const reading of unit.readings) {
    for (const value of reads.flags ? flagReadings({ value: reading }) : [reading]) {
      if (!reads.numbers) {
        readings.push(value);
        continue;
      }
      const read = numberReadings({ value });
      if (!read.ok) return { unknown: read.reason };
      for (const form of read.forms) readings.push(form);
    }
  }
  return { readings };
}

/**
 * A plain value's unit for a comparison of texts: a text as tools may read it (text.ts). Where one text
 * is compared, a list is also read as each of its items (JavaScript's `==` reads `["admin"]` as "admin",
 * Python's `in` finds it among others) and an object is unknown (Python's `in` reads its keys); for
 * `contains` a list's texts are read as tools may read them; `containsAny`/`containsAll` read a list or an
 * object as the texts a tool may make of it (its JSON text, its leaves joined: text.ts), each as tools
 * may read a text.
 */
function plainUnit(c: Comparison, reads: PlainReads, pf: PreparedFacts, raw: unknown): Unit {
  if (!reads.texts || raw === null || (typeof raw !== "object" && typeof raw !== "string")) {
    return { readings: [raw] };
  }
  if (typeof raw === "string") return { readings: pf.texts(raw) };
  if (c.op === "contains" && Array.isArray(raw)) return { readings: listReadings({ list: raw }) };
  if (!reads.single) {
    const joined = joinedTexts({ value: raw });
    if (!joined.ok) return { unknown: joined.reason };
    const readings: string[] = [];
    for (const text of joined.texts) readings.push(...pf.texts(text));
    return { readings };
  }
  if (!Array.isArray(raw)) return { unknown: "an object where one text is compared" };
  const readings: unknown[] = [raw];
  for (const item of raw.flat(Number.POSITIVE_INFINITY) as unknown[]) {
    if (typeof item === "string") readings.push(...pf.texts(item));
    else if (typeof item === "object" && item !== null) {
      return { unknown: "an object in a list where one text is compared" };
    } else readings.push(item);
  }
  return { readings };
}

function unitsOf(c: Comparison, pf: PreparedFacts, subject: Subject, strict: boolean): Unit[] {
  const reads = plainReadsOf(c);
  const units = readingUnits(c, reads, pf, subject, strict);
  return reads.numbers || reads.flags ? units.map((unit) => scalarUnit(reads, unit)) : units;
}

/**
 * The units of one selected value. `strict` (the stricter truth value of the comparison, see the header)
 * decides whether a versioned program name (`python3.12`) is read as the program a rule names: where a
 * match is the stricter outcome (deny, ask) it is; in an allow it is not, so an allow of `ls` never
 * covers a program of the agent's own named `ls-1`.
 */
function readingUnits(
  c: Comparison,
  reads: PlainReads,
  pf: PreparedFacts,
  subject: Subject,
  strict: boolean,
): Unit[] {
  const { raw, kind } = subject;
  if (
    (raw === undefined || raw === null) &&
    (PATH_OPS.has(c.op) || COMMAND_OPS.has(c.op) || c.op === "globSelects")
  ) {
    // No path, command or glob at all: the op is false (like `startsWith` on a missing value), never unknown.
    return [{ result: false }];
  }
  if (c.op === "globSelects") return [globUnit(c, raw)];
  if (kind === undefined) return [plainUnit(c, reads, pf, raw)];
  if (c.op === "pipesInto") {
    const line = subject.line ?? raw;
    const flows = pf.pipes(line);
    if (!flows.ok) return [{ unknown: flows.reason }];
    if (flows.forms.some((f) => pipeMatches(c, f, strict))) return [{ result: true }];
    const commands = pf.canonical("command", line) as Canonical<ShellCommand>;
    const hidden = pipesFromArguments({ c, commands, flows: flows.forms, depth: 0 });
    return [hidden !== undefined ? { unknown: hidden } : { result: false }];
  }
  const canonical = pf.canonical(kind, kind === "command" ? (subject.line ?? raw) : raw);
  if (!canonical.ok) return [{ unknown: canonical.reason }];
  switch (kind) {
    case "path": {
      if (c.op === "pathWithin") {
        const roots = resolveRoots(c.value, pf);
        if ("unknown" in roots) return [{ unknown: roots.unknown }];
      }
      return [{ readings: (canonical.forms as string[]).map((p) => projectPath(p, c.part)) }];
    }
    case "url":
      return [{ readings: (canonical.forms as UrlParts[]).map((u) => projectUrl(u, c.part)) }];
    case "email":
      return (canonical.forms as EmailAddress[]).map((a) => ({
        readings: [(a as unknown as Record<string, unknown>)[c.part ?? "address"]],
      }));
    case "command": {
      const commands = canonical.forms as ShellCommand[];
      if (c.op === "invokes") return [invokesUnit(c, commands, pf, { versioned: strict })];
      return commands.map(commandTextUnit);
    }
  }
}

/**
 * `globSelects`: the value is a search tool's file glob (ripgrep's --glob, as written; a list is each of
 * its globs), true when it admits one of the rule's paths (canonical/search-glob.ts). A glob past what
 * Warden reads, or a value that is no glob, is unknown.
 */
function globUnit(c: Comparison, raw: unknown): Unit {
  const selects = someGlobSelects({
    globs: Array.isArray(raw) ? raw : [raw],
    paths: asList(c.value) as string[],
    caseFold: c.caseSensitive !== true,
  });
  return typeof selects === "boolean" ? { result: selects } : selects;
}

/** Does one of `globs` admit one of `paths` (globSelects)? Unknown for a glob past its bounds or no text. */
function someGlobSelects(o: {
  globs: readonly unknown[];
  paths: readonly string[];
  caseFold: boolean;
}): boolean | { unknown: string } {
  let unknown: string | undefined;
  for (const glob of o.globs) {
    if (typeof glob !== "string") {
      unknown = "a glob that is not a text";
      continue;
    }
    const selects = globSelects({ glob, paths: o.paths, caseFold: o.caseFold });
    if (selects === true) return true;
    if (selects === undefined) unknown = "a glob longer, or with more brace alternatives, than Warden reads";
  }
  return unknown === undefined ? false : { unknown };
}

/** A version after a program's name (`python3.12`, `php8.2`, `bash5`, `gcc-12`): the same program to a rule. */
const VERSION_SUFFIX = /^[-.]?\d+(?:\.\d+)*$/;

/**
 * Is `program` the program a rule names as `wanted` — or, when `versioned`, a versioned build of it
 * (`python3.12` of `python3`)?
 */
function programMatches(c: Comparison, program: string, wanted: string, versioned: boolean): boolean {
  const name = norm(program, c.caseSensitive);
  const rule = norm(wanted, c.caseSensitive);
  if (name === rule) return true;
  return versioned && name.startsWith(rule) && VERSION_SUFFIX.test(name.slice(rule.length));
}

/** A program name as a policy writes it (`rm`, `/bin/rm`) compared as the parser reports programs. */
function programName(program: string): string {
  const trimmed = program.trim();
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

const flagCache = new WeakMap<Comparison, Map<string, string[]>>();

/** An `invokes` comparison's flags in the parser's canonical names for `program` (cached per comparison). */
function wantedFlags(c: Comparison, value: InvokesValue, program: string): string[] {
  let byProgram = flagCache.get(c);
  if (!byProgram) {
    byProgram = new Map();
    flagCache.set(c, byProgram);
  }
  let wanted = byProgram.get(program);
  if (!wanted) {
    wanted = (value.flags ?? []).flatMap((flag) => canonicalFlag({ program, flag }));
    if (byProgram.size >= 256) byProgram.clear();
    byProgram.set(program, wanted);
  }
  return wanted;
}

/** Programs whose arguments are data (shell.ts), and the forms of redirections, assignments and loop words. */
const DATA_PROGRAMS = new Set([...SHELL_DATA_PROGRAMS, ...WRITE_FORMS, ...WORD_FORMS]);
/** Package managers, and their subcommands whose words are packages and options, never a command. */
const PACKAGE_MANAGERS = new Set([
  ...["pip", "pip3", "uv", "npm", "pnpm", "yarn", "bun", "gem", "cargo", "composer", "conda", "mamba"],
  ...["poetry", "pipenv", "brew", "apt", "apt-get", "dnf", "yum", "zypper", "apk", "pacman"],
]);
const INSTALL_SUBCOMMANDS = new Set([
  ...["install", "i", "in", "add", "remove", "rm", "uninstall", "un", "update", "up", "upgrade", "ci"],
]);

/**
 * Whether `cmd` installs or removes packages (`pip install -e .`, `npm i -D x`, `python3 -m pip install`,
 * `uv pip install`): its words name packages, so `install` among them is no coreutils install to read.
 */
function installsPackages(cmd: ShellCommand): boolean {
  let words = cmd.args;
  if (/^python[0-9.]*$/.test(cmd.program) && words[0] === "-m") words = words.slice(1);
  else if (!PACKAGE_MANAGERS.has(cmd.program)) return false;
  if (words[0] === "pip" || words[0] === "pip3") words = words.slice(1);
  return INSTALL_SUBCOMMANDS.has(words[0] ?? "");
}

/**
 * Shell builtins a rule may name (`source`, `.`, `eval`): a program that runs its arguments executes a
 * program file, never a builtin, so a word such as jq's `.` does not name one.
 */
const SHELL_BUILTINS = new Set([".", "source", "eval"]);
/** How deep argument words are read as command lines (a word inside a word inside a command). */
const MAX_ARGUMENT_DEPTH = 2;

/**
 * The command lines a command the reading does not model may run from its arguments (`tmux new rm -rf
 * /srv`, `docker run … rm -rf /s`, `xterm -e …`): from each word that names one of `programs` on, and
 * each word that is itself a command line. None for a program whose arguments are data.
 */
function argumentLines(o: {
  c: Comparison;
  cmd: ShellCommand;
  programs: readonly string[];
}): { text: string; named: string | undefined }[] {
  const { c, cmd, programs } = o;
  if (DATA_PROGRAMS.has(cmd.program) || installsPackages(cmd)) return [];
  const lines: { text: string; named: string | undefined }[] = [];
  for (let j = 0; j < cmd.args.length; j++) {
    const word = cmd.args[j] as string;
    const named = programs.some(
      // Read the wide way: a match here is unknown, never true, so it only refuses more.
      (p) => p !== "*" && !SHELL_BUILTINS.has(p) && programMatches(c, programName(word), p, true),
    );
    if (!named && !/\s/.test(word)) continue;
    for (const text of argumentCommands({ args: cmd.args, at: j, named })) {
      lines.push({ text, named: named ? programName(word) : undefined });
    }
  }
  return lines;
}

/**
 * Whether a command the reading does not see running the program may run it from its arguments
 * (argumentLines): those lines are read as commands too; a match there is unknown (why), never true.
 */
function mayRunFromArguments(o: {
  c: Comparison;
  cmd: ShellCommand;
  programs: readonly string[];
  commands: ShellCommand[];
  pf: PreparedFacts;
  depth: number;
}): string | undefined {
  const { c, cmd } = o;
  if (o.depth >= MAX_ARGUMENT_DEPTH) return undefined;
  for (const { text, named } of argumentLines(o)) {
    const parsed = parseShellCommand({ command: text });
    if (!parsed.ok) {
      if (named) return `\`${cmd.raw}\` may run ${named} from its arguments, which cannot be read`;
      continue;
    }
    const inner = invokesUnit(c, parsed.forms, o.pf, {
      all: [...o.commands, ...parsed.forms],
      depth: o.depth + 1,
      versioned: true,
    });
    if ("unknown" in inner || ("result" in inner && inner.result === true)) {
      return `\`${cmd.raw}\` may run what its arguments name (${JSON.stringify(parsed.forms[0]?.raw ?? text)})`;
    }
  }
  return undefined;
}

/**
 * Whether a `pipesInto` flow may run where the reading does not see it: inside a command line a program
 * it does not model runs from its arguments (`tmux new 'curl … | sh'`), or into a `to` program such a
 * program names, fed with the data piped into it (`curl … | docker run -i img sh`). Why, or undefined.
 */
function pipesFromArguments(o: {
  c: Comparison;
  commands: Canonical<ShellCommand>;
  flows: readonly { from: string; to: string }[];
  depth: number;
}): string | undefined {
  const { c } = o;
  // A line the reading cannot split into commands has no arguments to read (its flows were read).
  if (o.depth >= MAX_ARGUMENT_DEPTH || !o.commands.ok) return undefined;
  const value = c.value as PipesIntoValue;
  const fromMatches = (program: string) =>
    value.from.some((p) => p === "*" || programMatches(c, program, p, true));
  const fedFrom = (program: string) => o.flows.some((f) => f.to === program && fromMatches(f.from));
  for (const cmd of o.commands.forms) {
    for (const { text, named } of argumentLines({ c, cmd, programs: value.to })) {
      if (named && fedFrom(cmd.program)) {
        return `\`${cmd.raw}\` may run ${named} with the data piped into it`;
      }
      const inner = shellPipes({ command: text });
      if (!inner.ok) continue;
      if (inner.forms.some((f) => pipeMatches(c, f, true))) {
        return `\`${cmd.raw}\` may run what its arguments name (${JSON.stringify(text)})`;
      }
      const deeper = pipesFromArguments({
        c,
        commands: parseShellCommand({ command: text }),
        flows: inner.forms,
        depth: o.depth + 1,
      });
      if (deeper) return deeper;
    }
  }
  return undefined;
}

/**
 * The command lines an argument may start: a word that is itself one, or the words from one naming the
 * program on — also without a `--` right after it, which may be the runner's own end of options
 * (`start-stop-daemon --exec /bin/rm -- -rf /srv`).
 */
function argumentCommands(o: { args: readonly string[]; at: number; named: boolean }): string[] {
  const word = o.args[o.at] as string;
  if (!o.named) return [word];
  const rest = o.args.slice(o.at);
  return o.args[o.at + 1] === "--" ? [rest.join(" "), [word, ...rest.slice(2)].join(" ")] : [rest.join(" ")];
}

/**
 * Some simple command runs one of the programs with every flag: true; none does, but one runs such a
 * program with flags that a variable could supply, or a command it does not model may run it from its
 * arguments (mayRunFromArguments): unknown; else false.
 */
function invokesUnit(
  c: Comparison,
  commands: ShellCommand[],
  pf: PreparedFacts,
  /** The whole line's commands, how deep in argument words this is, and whether versions match. */
  options: { all?: ShellCommand[]; depth?: number; versioned: boolean },
): Unit {
  const within = { all: options.all ?? commands, depth: options.depth ?? 0 };
  const value = c.value as InvokesValue;
  const programs = (typeof value.program === "string" ? [value.program] : value.program).map(programName);
  let maybe: string | undefined;
  for (const cmd of commands) {
    const split = cmd.workingDirWords ? splitWorkingDir(within.all, pf) : undefined;
    if (split !== undefined) {
      maybe ??= `\`${cmd.raw}\`: ${split}`;
      continue;
    }
    if (!programs.some((p) => programMatches(c, cmd.program, p, options.versioned))) {
      maybe ??= mayRunFromArguments({ c, cmd, programs, commands: within.all, pf, depth: within.depth });
      continue;
    }
    const wanted = wantedFlags(c, value, cmd.program);
    if (wanted.every((f) => cmd.flags.includes(f))) {
      const operandsHold = operandConditions({
        value,
        cmd,
        commands: within.all,
        pf,
        caseFold: c.caseSensitive !== true,
      });
      if (operandsHold === true) return { result: true };
      if (operandsHold !== false) maybe ??= operandsHold.unknown;
    } else if (cmd.unknownFlags) maybe ??= "a variable in the command may supply the flags";
  }
  return maybe !== undefined ? { unknown: maybe } : { result: false };
}

/**
 * Why a command whose words begin with `$PWD` or `$(pwd)` (ShellCommand.workingDirWords, read as `.`)
 * may be other words: a directory it may run in cannot be named, or has a name bash splits or expands
 * when the expansion is unquoted (white space, `*`, `?`, `[`). Undefined when the reading holds.
 */
function splitWorkingDir(commands: ShellCommand[], pf: PreparedFacts): string | undefined {
  const dirs = workingDirs(commands, pf);
  if ("unknown" in dirs) return dirs.unknown;
  const odd = dirs.dirs.find((dir) => /[\s*?[]/.test(dir));
  return odd === undefined
    ? undefined
    : `$PWD is ${JSON.stringify(odd)}, whose name an unquoted expansion splits into other words`;
}

/** Commands that change the directory the rest of the line runs in, and how they name it. */
const CHDIR_PROGRAMS = new Set(["cd", "pushd"]);
/**
 * Options of programs that run their command in another directory: a directory named (`env -C`, `sudo
 * -D`, `tmux new -c`, `parallel --workdir`), the target user's home (`sudo -i`, `su -`, `runuser -l`),
 * or each directory find visits (`-execdir`). Read among the program's own words: before a word that is
 * no option for sudo (its command), before `-c` for su and runuser.
 */
const CHDIR_OPTIONS: Record<string, readonly string[]> = {
  env: ["-C", "--chdir"],
  sudo: ["-D", "--chdir", "-i", "--login", "-R", "--chroot"],
  su: ["-", "-l", "--login"],
  runuser: ["-", "-l", "--login"],
  tmux: ["-c"],
  parallel: ["--wd", "--workdir"],
  find: ["-execdir", "-okdir"],
};
/** Programs that run their command in a directory of their own (a new root, a service's, a namespace's). */
const CHDIR_ALWAYS = new Set(["chroot", "systemd-run", "nsenter", "pkexec"]);

/**
 * The words of `cmd` that may be its own options, as CHDIR_OPTIONS reads them: a wrapper's before the
 * command it runs (wrapperOptionWords: `sudo rm -rf build -i` is rm's -i), su's and runuser's before
 * the command they pass to the shell; every word for another program.
 */
function ownOptionWords(cmd: ShellCommand): readonly string[] {
  const { args } = cmd;
  if (cmd.program === "su" || cmd.program === "runuser") {
    const end = args.findIndex(
      (a) => a === "-c" || a.startsWith("--command") || a.startsWith("--session-command"),
    );
    return end < 0 ? args : args.slice(0, end);
  }
  return wrapperOptionWords({ program: cmd.program, args }) ?? args;
}

/**
 * Whether `word` gives `option`, read as optionIn reads an option's spellings (`-C/x`, a cluster `-Hi`,
 * `--chdir=x`, an abbreviation `--chd`); su's `-` alone is that word.
 */
function givesOption(word: string, option: string): boolean {
  return option === "-" ? word === "-" : optionIn({ option, word, next: undefined }) !== undefined;
}
/** Bounds on the directories a line may run commands in (each `cd` may or may not have run). */
const MAX_CHDIRS = 8;
const MAX_BASES = 32;

/**
 * The non-option words of a command (`-` alone and every word after `--` are operands); for `find`, its
 * starting points (the words before its expression).
 */
function operands(cmd: ShellCommand): string[] {
  if (cmd.program === "find") return findStartingPoints(cmd.args);
  const out: string[] = [];
  let options = true;
  for (const arg of cmd.args) {
    if (options && arg === "--") options = false;
    else if (!options || arg === "-" || !arg.startsWith("-")) out.push(arg);
  }
  return out;
}

/** The operands InvokesValue.operands names: all, the last one, or all but the last. */
function operandsAt(all: string[], at: OperandsAt | undefined): string[] {
  if (at === "last") return all.slice(-1);
  if (at === "allButLast") return all.slice(0, -1);
  return all;
}

/**
 * The directories a command of the line may run in: the caller's `context.cwd`, and what every
 * `cd`/`pushd` of the line makes of it, in any combination (branches and order are not followed, so
 * each may or may not have run). A directory that cannot be read (`cd` alone or `cd -`, `~`, a variable,
 * `popd`, `env -C`, a bare name on a line that mentions CDPATH, cdable_vars or autocd, or that assigns a
 * variable under a computed name) makes them unknown.
 */
function workingDirs(commands: ShellCommand[], pf: PreparedFacts): { dirs: string[] } | { unknown: string } {
  return dirsFrom(commands, getPath(pf.facts, "context.cwd"));
}

/**
 * The directories the commands of a shell `command` may run in, from the workspace `cwd` (as the path
 * operators of `invokes` read them: workingDirs), or why they cannot be named. For a caller that reads
 * the operands' files before a check (`warden hook`'s real paths).
 */
export function shellWorkingDirs(options: {
  command: string;
  cwd: string;
}): { commands: ShellCommand[]; dirs: string[] } | { unknown: string } {
  const parsed = parseShellCommand({ command: options.command });
  if (!parsed.ok) return { unknown: parsed.reason };
  const dirs = dirsFrom(parsed.forms, options.cwd);
  return "unknown" in dirs ? dirs : { commands: parsed.forms, dirs: dirs.dirs };
}

function dirsFrom(commands: ShellCommand[], cwd: unknown): { dirs: string[] } | { unknown: string } {
  if (typeof cwd !== "string" || !cwd.startsWith("/"))
    return { unknown: "the command's working directory (context.cwd) is not an absolute path" };
  let dirs = [cwd];
  let changes = 0;
  // Read once, and only for a line that changes directory.
  let redirected: boolean | undefined;
  for (const cmd of commands) {
    if (cmd.program === "popd") return { unknown: "popd changes to a directory the line does not name" };
    const wrapperOptions = CHDIR_OPTIONS[cmd.program];
    if (
      CHDIR_ALWAYS.has(cmd.program) ||
      wrapperOptions?.some((o) => ownOptionWords(cmd).some((a) => givesOption(a, o)))
    ) {
      return { unknown: `${cmd.program} runs its command in another directory` };
    }
    if (!CHDIR_PROGRAMS.has(cmd.program)) continue;
    changes += 1;
    const target = operands(cmd)[0];
    if (target === undefined || target === "-" || changes > MAX_CHDIRS)
      return { unknown: `\`${cmd.raw}\` changes to a directory the line does not name` };
    redirected ??= commands.some((c) => CD_ELSEWHERE.test(c.raw) || assignsComputedName(c));
    if (redirected && !/^(\/|\.\.?(\/|$))/.test(target))
      return { unknown: `\`${cmd.raw}\` may enter a directory CDPATH, cdable_vars or autocd names` };
    const next = new Set(dirs);
    for (const dir of dirs) {
      const forms = canonicalPath({ path: target, base: dir });
      if (!forms.ok) return { unknown: `\`${cmd.raw}\`: ${forms.reason}` };
      for (const f of forms.forms) next.add(f);
    }
    if (next.size > MAX_BASES) return { unknown: "the line changes directory too many ways" };
    dirs = [...next];
  }
  return { dirs };
}

/**
 * A line that may send `cd NAME` elsewhere than NAME below the current directory: bash's CDPATH (zsh's
 * `cdpath` too), `cdable_vars` (NAME a variable holding the directory) and `autocd`, in any case and with
 * zsh's ignored underscores. Then a bare NAME (not `/…`, `./…` or `../…`) is a directory the line does not name.
 */
const CD_ELSEWHERE = /c_*d_*p_*a_*t_*h|c_*d_*a_*b_*l_*e_*v_*a_*r_*s|a_*u_*t_*o_*c_*d/i;

/** Builtins that assign a variable a word names: `declare NAME=…`, `read NAME`, `printf -v NAME`, `mapfile NAME`. */
const NAMING_BUILTINS = new Set([
  "declare",
  "typeset",
  "export",
  "local",
  "readonly",
  "read",
  "printf",
  "mapfile",
  "readarray",
]);
/** The declarations whose `-n` makes a name a reference to the variable its value names. */
const NAMEREF_BUILTINS = new Set(["declare", "typeset", "local"]);

/**
 * Whether `cmd` may assign a variable whose name is computed at run time (`declare "${x}ATH=…"`,
 * `read "$V"`, a nameref `declare -n r="$V"`): that variable may be CDPATH.
 */
function assignsComputedName(cmd: ShellCommand): boolean {
  if (!NAMING_BUILTINS.has(cmd.program)) return false;
  if (cmd.program === "printf" && !cmd.args.some((a) => a.startsWith("-v"))) return false;
  if (NAMEREF_BUILTINS.has(cmd.program) && cmd.flags.includes("n"))
    return cmd.args.some((a) => a.includes("$"));
  return cmd.args.some((a) => (a.split("=", 1)[0] as string).includes("$"));
}

/** A word whose expansion the reading cannot follow: a brace pattern or find's `{}`, a dot-glob (may match `..`). */
const UNREADABLE_OPERAND = /[{}]|(^|\/)\.[^/]*[*?[]/;

/** A word as a pattern test reads it: a literal word's braces are letters, not a pattern. */
const patternText = (word: string, literal: boolean) => (literal ? word.replace(/[{}]/g, "") : word);

/**
 * The words an operand may be. With a brace bash expands (`build/{a,b}`), each word of its expansion
 * and, since quoting is not known here, the word as written, its braces letters (`'build/{a,b}'` names
 * that one directory); every one is read. A brace that expands too far, or one that expands to nothing
 * else (find's `{}`), stays as written, a pattern the reading cannot follow.
 */
function operandWords(operand: string): { word: string; literal: boolean }[] {
  const expanded = braceExpansions({ word: operand });
  if (expanded === null || (expanded.length === 1 && expanded[0] === operand)) {
    return [{ word: operand, literal: false }];
  }
  return [{ word: operand, literal: true }, ...expanded.map((word) => ({ word, literal: false }))];
}

/**
 * The values of `options` (InvokesValue.optionPaths) among `args`, in every spelling a getopt parser
 * reads: `-o v`, `-ov`, in a short cluster (`-sSo v`, `-sov`), `--output v`, `--output=v`, a prefix of
 * the long name (`--out=v`); a letter of tar's old-style first word (`tar czf v`); a single-dash name
 * (`-out v`); and the rest of a word that begins with an option written `of=`. Read wide:
 * a cluster's letter may be another option's value (`-Ho`), and a word read as a path that is none only
 * refuses more. An option that is the last word has its value in words the line appends (`xargs`),
 * which is unknown.
 */
function optionValues(o: {
  cmd: ShellCommand;
  options: readonly string[];
}): { values: string[] } | { unknown: string } {
  const { args, program } = o.cmd;
  const values = new Set<string>();
  let last = false;
  let computed: string | undefined;
  const container = CONTAINER_ENGINES.has(program);
  const take = (got: { value: string | undefined } | undefined, option: string) => {
    if (got?.value === undefined) {
      if (got) last = true;
      return;
    }
    // A value a variable or a substitution fills is no path the reading can name, nor one it can take
    // apart (`-v "a$X"` is a volume's name only while `$X` holds no `:` or `/`).
    if (hasShellExpansion({ text: got.value })) {
      computed ??= got.value;
      return;
    }
    if (!container) {
      values.add(got.value);
      return;
    }
    // pflag reads `-v=/x` as `/x`: both readings.
    for (const value of new Set([got.value, got.value.replace(/^=/, "")])) {
      for (const path of mountSource({ option, value })) values.add(path);
    }
  };
  for (const option of o.options) {
    if (/^-[^-]$/.test(option) && !container)
      take(oldStyleOptionArgument({ program, args, letter: option.slice(1) }), option);
  }
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === "--") break;
    for (const option of o.options) take(optionIn({ option, word, next: args[i + 1] }), option);
  }
  if (last && (o.cmd.appendedPaths || o.cmd.unknownFlags))
    return { unknown: `\`${o.cmd.raw}\`: an option's value is a word the line appends` };
  if (computed !== undefined)
    return {
      unknown: `\`${o.cmd.raw}\`: an option's value is computed at run time (${JSON.stringify(computed)})`,
    };
  return { values: [...values] };
}

/** Container engines whose mount and output options name host paths (mountSource). */
const CONTAINER_ENGINES = new Set([
  "docker",
  "podman",
  "nerdctl",
  "docker-compose",
  "podman-compose",
  "finch",
]);
/** Options of theirs whose value is `key=value` fields (CSV), and the keys that name a host path. */
const CONTAINER_FIELD_OPTIONS: Record<string, readonly string[]> = {
  "--mount": ["source", "src"],
  "-o": ["dest", "destination"],
  "--output": ["dest", "destination"],
};

/**
 * The host paths a container engine's option names: `-v SRC:DST[:opts]` (and `--volume`) mounts SRC,
 * a host path when it is no volume's name (hostPathLike; a value without `:` is an anonymous volume);
 * the fields of `--mount type=bind,source=SRC,…` and of a build's `-o type=local,dest=DIR` are read as
 * docker reads them (CSV, keys in any case: csvFields), their `source`/`src` or `dest` being the path
 * (a source whatever the type, when it looks like one); `-o DIR` without fields, and any other
 * option's value (`--cidfile`, `--rootfs`), is the path itself.
 */
function mountSource(o: { option: string; value: string }): string[] {
  const { option, value } = o;
  const keys = CONTAINER_FIELD_OPTIONS[option];
  if (keys !== undefined && (option === "--mount" || value.includes("="))) {
    // Where the CSV reader fails (docker refuses the value), read wide: quotes dropped, as a looser
    // parser (podman's) might.
    const fields = csvFields(value) ?? value.split(",").map((field) => field.replaceAll('"', ""));
    const paths = fields.flatMap((field) => {
      const eq = field.indexOf("=");
      return eq > 0 && keys.includes(field.slice(0, eq).toLowerCase()) ? [field.slice(eq + 1)] : [];
    });
    return option === "--mount" ? paths.filter(hostPathLike) : paths;
  }
  if (option !== "-v" && option !== "--volume") return [value];
  const colon = value.indexOf(":");
  if (colon < 0) return [];
  const source = value.slice(0, colon);
  return hostPathLike(source) ? [source] : [];
}

/**
 * The fields of one CSV record as Go's encoding/csv reads it (docker parses `--mount` and `--output`
 * so): comma-separated, a field that begins with `"` quoted up to its closing `"`, `""` inside it one
 * quote. Undefined where that reader fails (a quote inside an unquoted field, an unclosed one).
 */
function csvFields(value: string): string[] | undefined {
  const fields: string[] = [];
  let at = 0;
  for (;;) {
    let field = "";
    if (value[at] === '"') {
      at += 1;
      for (;;) {
        const quote = value.indexOf('"', at);
        if (quote < 0) return undefined;
        field += value.slice(at, quote);
        at = quote + 1;
        if (value[at] !== '"') break;
        field += '"';
        at += 1;
      }
      if (at < value.length && value[at] !== ",") return undefined;
    } else {
      const comma = value.indexOf(",", at);
      field = value.slice(at, comma < 0 ? value.length : comma);
      if (field.includes('"')) return undefined;
      at = comma < 0 ? value.length : comma;
    }
    fields.push(field);
    if (at >= value.length) return fields;
    at += 1;
  }
}

/** Whether a mount's source is a host path rather than a volume's name (`[A-Za-z0-9][A-Za-z0-9_.-]*`). */
function hostPathLike(source: string): boolean {
  return source !== "" && !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(source);
}

/**
 * The value `option` (as optionPaths spells it) takes in `word`, with `next` the word after it: `of=` is
 * the rest of a word that begins with it; a single-dash name of several letters (openssl's `-out`) is
 * that whole word, its value the next; any other is read as getopt does (optionArgument).
 */
function optionIn(o: {
  option: string;
  word: string;
  next: string | undefined;
}): { value: string | undefined } | undefined {
  const { option, word, next } = o;
  if (option.endsWith("=")) return word.startsWith(option) ? { value: word.slice(option.length) } : undefined;
  if (option.startsWith("--")) return optionArgument({ text: word, next, long: option.slice(2) });
  if (option.length > 2) return word === option ? { value: next } : undefined;
  return optionArgument({ text: word, next, short: option.slice(1) });
}

/** An `invokes` comparison's conditions on the operands of a command it matched (none: true); all must hold. */
function operandConditions(o: {
  value: InvokesValue;
  cmd: ShellCommand;
  commands: ShellCommand[];
  pf: PreparedFacts;
  caseFold: boolean;
}): boolean | { unknown: string } {
  const { value, caseFold, ...rest } = o;
  const on = {
    ...rest,
    ...(value.optionPaths ? { optionPaths: value.optionPaths } : {}),
    ...(value.operands ? { operandsAt: value.operands } : {}),
  };
  const results: (boolean | { unknown: string })[] = [];
  if (value.outside !== undefined) results.push(operandOutside({ ...on, value: value.outside }));
  if (value.operandMatches !== undefined)
    results.push(operandMatching({ ...on, globs: asList(value.operandMatches) as string[] }));
  if (value.operandIs !== undefined)
    results.push(operandNaming({ ...on, globs: asList(value.operandIs) as string[] }));
  if (value.globSelects !== undefined)
    results.push(
      optionGlobSelects({
        cmd: o.cmd,
        options: value.optionPaths ?? [],
        paths: asList(value.globSelects) as string[],
        caseFold,
      }),
    );
  if (results.includes(false)) return false;
  return results.find((r): r is { unknown: string } => r !== true) ?? true;
}

/**
 * Is some operand of `cmd` outside the roots? true, false, or unknown (with why). Every operand is
 * read against every directory the command may run in; one reading outside is enough.
 */
function operandOutside(o: {
  value: OutsideRoot | OutsideRoot[];
  cmd: ShellCommand;
  commands: ShellCommand[];
  pf: PreparedFacts;
  optionPaths?: string[];
  operandsAt?: OperandsAt;
}): boolean | { unknown: string } {
  const list = asList(o.value) as OutsideRoot[];
  const isFile = (r: OutsideRoot): r is { file: string } => typeof r === "object" && "file" in r;
  const roots = resolveRoots(
    list.filter((r) => !isFile(r)),
    o.pf,
  );
  if ("unknown" in roots) return roots;
  const fold = (p: string) => (o.pf.caseFold ? p.toLowerCase() : p);
  // Each root also where its links lead, when the caller's facts say (a workspace under a link, macOS's
  // /tmp): an operand's real path is read against them too.
  const real = (paths: string[]) => paths.flatMap((p) => [p, o.pf.realPathOf(p) ?? []].flat());
  const folded = real(canonicalRoots(roots.roots, o.pf)).map(fold);
  const files = real(
    canonicalRoots(
      list.filter(isFile).map((r) => r.file),
      o.pf,
    ),
  ).map(fold);
  const inside = insideFor(o);
  return someOperand({
    ...o,
    pattern: (operand, _dir, literal) =>
      UNREADABLE_OPERAND.test(patternText(operand, literal))
        ? { unknown: `the operand ${JSON.stringify(operand)} expands to paths the reading cannot name` }
        : undefined,
    hit: (path) => !inside(fold(path), folded) && !files.includes(fold(path)),
    below: (forms) =>
      forms.every((f) => strictlyInside(fold(f), folded)) ? false : { unknown: "they may lie outside" },
  });
}

/**
 * Is `path` inside one of `roots`? An operand that is a root itself is not (`rm -rf .` removes the
 * workspace); an option's value (optionPaths) that is one is (`tar -C .`, `git -C .`, `-v .:/app`: the
 * directory a command works or writes in), and so is the starting point of a find that acts only on
 * names a test with a literal part selects (findSelectsByName: `find . -name '*.log' -delete`).
 */
function insideFor(options: {
  optionPaths?: string[];
  operandsAt?: OperandsAt;
  cmd: ShellCommand;
}): (path: string, roots: readonly string[]) => boolean {
  return options.optionPaths || options.operandsAt === "last" || findSelectsByName(options.cmd)
    ? (path, roots) => pathWithin({ path, roots: [...roots] })
    : strictlyInside;
}

/** find's tests that match a name or path against a pattern. */
const FIND_NAME_TESTS = new Set(["-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"]);
/** find's operators: with one of them a test no longer filters every action. */
const FIND_OPERATORS = new Set(["-o", "-or", ",", "!", "-not", "(", ")"]);

/**
 * Whether a find acts only on what a name or path test selects, before its first action, with no
 * operator (`-o`, `!`, parentheses) that could let another path through, and whose pattern has a
 * literal part outside brackets (`*.log`, `./build/*`): it can match neither its starting point nor
 * every name, so the find does not act on the whole tree. `*`, `?*` or `[!.]*` may: they do not count.
 */
function findSelectsByName(cmd: ShellCommand): boolean {
  if (cmd.program !== "find" || cmd.unknownFlags) return false;
  const words = cmd.args;
  if (words.some((w) => FIND_OPERATORS.has(w))) return false;
  for (let k = 0; k < words.length; k++) {
    const word = words[k] as string;
    if (FIND_ACTIONS.has(word)) return false;
    const pattern = words[k + 1];
    if (
      FIND_NAME_TESTS.has(word) &&
      pattern !== undefined &&
      /[^*?]/.test(pattern.replace(/\[[^\]]*\]/g, ""))
    )
      return true;
  }
  return false;
}
/** find's actions, before which a test must come to filter them. */
const FIND_ACTIONS = new Set(["-delete", "-exec", "-execdir", "-ok", "-okdir"]);

/** A word the shell may expand to other paths (a glob or a brace pattern): `*`, `?`, `[`, `{`. */
const PATTERN_CHARS = /[*?[{]/;
/** A pattern segment that may match `..`: one that begins with a dot, a bracket or a brace. */
const MAY_BE_PARENT = /^[.[{]/;

/**
 * Is some operand of `cmd` a path the globs match? true, false, or unknown (with why): a pattern whose
 * expansions may match is unknown, never true (they may or may not exist).
 */
function operandMatching(o: {
  globs: string[];
  cmd: ShellCommand;
  commands: ShellCommand[];
  pf: PreparedFacts;
  optionPaths?: string[];
  operandsAt?: OperandsAt;
}): boolean | { unknown: string } {
  const { pf } = o;
  const { hit, below } = globReading(o);
  return someOperand({
    ...o,
    pattern: (operand, dir, literal) => {
      if (!PATTERN_CHARS.test(patternText(operand, literal))) return undefined;
      const base = canonicalPath({ path: patternBase(operand), base: dir, caseFold: pf.caseFold });
      if (!base.ok) return { unknown: base.reason };
      const may = below(base.forms);
      return may && { unknown: `the pattern ${JSON.stringify(operand)} may expand to such a path` };
    },
    hit,
    below,
  });
}

/**
 * How operandMatching and operandNaming read paths against their globs: in each case reading the file
 * system may have (a policy that does not state whether it folds case is read both ways), a path that
 * one of them matches (`hit`), and the paths xargs appends below a directory where one may lie (`below`).
 */
function globReading(o: { globs: string[]; pf: PreparedFacts }): {
  folds: boolean[];
  hit: (path: string) => boolean;
  below: (forms: readonly string[]) => false | { unknown: string };
} {
  const { globs, pf } = o;
  const folds = pf.caseFold ? [true] : pf.caseUnknown ? [false, true] : [false];
  return {
    folds,
    hit: (path) => folds.some((caseFold) => pathMatches({ path, globs, caseFold })),
    below: (forms) =>
      forms.some((f) => folds.some((caseFold) => pathMayMatchBelow({ dir: f, globs, caseFold })))
        ? { unknown: "they may be such a path" }
        : false,
  };
}

/**
 * Where the expansions of a pattern operand lie: at or below its literal leading directory, one level up
 * for each later segment that is or may be `..` (`src/.*` may be `src/..`).
 */
function patternBase(operand: string): string {
  const segments = operand.split("/");
  const first = segments.findIndex((segment) => PATTERN_CHARS.test(segment));
  const ups = segments
    .slice(first)
    .filter((segment) => segment === ".." || (PATTERN_CHARS.test(segment) && MAY_BE_PARENT.test(segment)));
  const base = [...segments.slice(0, first), ...ups.map(() => "..")].join("/");
  return base === "" ? (operand.startsWith("/") ? "/" : ".") : base;
}

/**
 * Does some operand of `cmd` name a path the globs match (InvokesValue.operandIs)? true when one is such
 * a path; unknown when a pattern may expand to one (shellPatternMayMatch: bash's expansion, without the
 * file system), when an operand cannot be read (a variable, a substitution, xargs' input, find's `{}`)
 * or when xargs appends paths below a directory that may hold one; else false. The script operand of a
 * search or an editor is left out (scriptOperandAt).
 */
function operandNaming(o: {
  globs: string[];
  cmd: ShellCommand;
  commands: ShellCommand[];
  pf: PreparedFacts;
  optionPaths?: string[];
  operandsAt?: OperandsAt;
}): boolean | { unknown: string } {
  const { globs } = o;
  const named = namedWords(o.cmd, { script: o.optionPaths === undefined });
  if (named === undefined)
    return { unknown: `\`${o.cmd.raw}\`: its operands may come from input or a variable` };
  const { folds, hit, below } = globReading(o);
  // Flags a pattern may expand to (`*` may be `-rf`: unknownFlags) do not change the files it names.
  const { unknownFlags: _patternFlags, ...cmd } = named;
  const mayMatch = (pattern: string, operand: string): false | { unknown: string } => {
    const answers = folds.map((caseFold) => shellPatternMayMatch({ pattern, globs, caseFold }));
    if (answers.includes(true))
      return { unknown: `the pattern ${JSON.stringify(operand)} may expand to such a path` };
    if (answers.includes(null))
      return { unknown: `the pattern ${JSON.stringify(operand)} is past what the reading follows` };
    return false;
  };
  return someOperand({
    ...o,
    cmd,
    pattern: (operand, dir, literal) => {
      if (operand.includes("{}"))
        return { unknown: `${JSON.stringify(operand)} stands for paths find finds` };
      if (operand === "~" || operand.startsWith("~/")) {
        // The home directory as a home directory is found: /home/NAME, /Users/NAME, /root, /var/root.
        const rest = operand.slice(1);
        const homeMayMove = o.commands.some((c) => c.raw.includes("HOME"));
        if (homeMayMove || rest.split("/").some((s) => s === ".."))
          return { unknown: `the line may change the home directory ${JSON.stringify(operand)} is in` };
        for (const home of HOME_PATTERNS) {
          const may = mayMatch(`${home}${rest}`, operand);
          if (may !== false) return may;
        }
        return false;
      }
      if (operand.startsWith("~"))
        return { unknown: `${JSON.stringify(operand)} is in a home directory the line does not name` };
      if (!literal && /[{}]/.test(operand) && braceExpansions({ word: operand }) === null)
        return { unknown: `the braces of ${JSON.stringify(operand)} expand too far to read` };
      const text = patternText(operand, literal);
      if (!PATTERN_CHARS.test(text)) return undefined;
      const pattern = absolutePattern(text, dir);
      if (pattern === undefined)
        return { unknown: `the pattern ${JSON.stringify(operand)} may leave its directory` };
      return mayMatch(pattern, operand);
    },
    hit,
    below,
  });
}

/** Where a home directory is: what `~` is read as (a line that mentions HOME leaves it unknown). */
const HOME_PATTERNS = ["/home/*", "/Users/*", "/root", "/var/root"];

/** A word that is a process substitution, `<(…)` or `>(…)`: a pipe the line makes, not a file it names. */
const PROCESS_SUBSTITUTION = /^[<>]\(.*\)$/s;

/**
 * `cmd` with the words that name files as written: without its script operand (scriptOperandAt) and
 * its process substitutions (the commands inside are read on their own); undefined when another word is
 * a variable or a substitution, or the line appends words from input (xargs, parallel): names the
 * reading cannot know.
 */
function namedWords(cmd: ShellCommand, options: { script: boolean }): ShellCommand | undefined {
  if (cmd.appendedWords) return undefined;
  const script = options.script ? scriptOperandAt(cmd) : -1;
  const args: string[] = [];
  for (const [k, word] of cmd.args.entries()) {
    if (k === script) continue;
    const computed = cmd.emptiedArgs !== undefined && cmd.emptiedArgs[k] !== word;
    if (computed && !PROCESS_SUBSTITUTION.test(word)) return undefined;
    if (!computed) args.push(word);
  }
  return { ...cmd, args };
}

/**
 * A pattern operand as an absolute pattern: joined to `dir`, its `.` and `..` segments resolved;
 * undefined when it begins with `~` or a segment with a wildcard may itself be `.` or `..` (`.*`).
 */
function absolutePattern(pattern: string, dir: string): string | undefined {
  if (pattern.startsWith("~")) return undefined;
  const segments: string[] = [];
  for (const segment of (pattern.startsWith("/") ? pattern : `${dir}/${pattern}`).split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else if (PATTERN_CHARS.test(segment) && shellSegmentMayBeDots({ segment })) return undefined;
    else segments.push(segment);
  }
  return `/${segments.join("/")}`;
}

/** Programs whose first operand is a script, not a file, unless an option gives the script (`-e`, `-f`). */
const SCRIPT_FIRST = new Set([
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ugrep",
  "ag",
  "ack",
  "sed",
  "gsed",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "jq",
  "yq",
]);
/** An option that may give the script itself: `-e`, `-f`, a cluster with one of them, the long names. */
const SCRIPT_OPTION = /^-[^-]*[ef]|^--(regexp|file|expression|from-file)(=|$)/;

/**
 * Where the script operand of a search or an editor is (grep's pattern, sed's or awk's program, jq's
 * filter): the first operand of such a program when no option may give the script; -1 otherwise. A
 * word before it that a variable fills is taken for it, so every later word is read as a file.
 */
function scriptOperandAt(cmd: ShellCommand): number {
  if (!SCRIPT_FIRST.has(cmd.program) || cmd.args.some((a) => SCRIPT_OPTION.test(a))) return -1;
  for (const [k, word] of cmd.args.entries()) {
    if (word === "--") return k + 1 < cmd.args.length ? k + 1 : -1;
    if (word === "-" || !word.startsWith("-")) return k;
  }
  return -1;
}

/**
 * Does some operand of `cmd`, read against every directory the command may run in, have a canonical
 * form that `hit` accepts? true, false, or unknown (with why) when an operand or a directory cannot be
 * read. `pattern` answers first for an operand the shell would expand (undefined: read it as a path).
 * Each operand is also read as where its symbolic links lead, when the caller's facts say
 * (`context.realPaths`): what a program opens or writes is that path.
 */
function someOperand(o: {
  cmd: ShellCommand;
  commands: ShellCommand[];
  pf: PreparedFacts;
  /** Read these options' values (optionValues) instead of the operands. */
  optionPaths?: string[];
  operandsAt?: OperandsAt;
  /** `operand` with braces that are letters (`literal`: the word as written, its braces quoted). */
  pattern: (operand: string, dir: string, literal: boolean) => false | { unknown: string } | undefined;
  hit: (path: string) => boolean;
  /** For the paths `xargs` appends (ShellCommand.appendedPaths): all at or below these forms. */
  below: (forms: readonly string[]) => false | { unknown: string };
}): boolean | { unknown: string } {
  const { cmd, pf } = o;
  // find's starting points come first, so words a pattern of its expression expands to are not among them.
  if (cmd.unknownFlags && cmd.program !== "find")
    return { unknown: `\`${cmd.raw}\`: its operands may come from input or a variable` };
  const dirs = workingDirs(o.commands, pf);
  if ("unknown" in dirs) return dirs;
  const read = o.optionPaths
    ? optionValues({ cmd, options: o.optionPaths })
    : { values: operandsAt(operands(cmd), o.operandsAt) };
  if ("unknown" in read) return read;
  let unknown: string | undefined;
  for (const { word: operand, literal } of read.values.flatMap(operandWords)) {
    for (const dir of dirs.dirs) {
      const pattern = o.pattern(operand, dir, literal);
      if (pattern !== undefined) {
        if (pattern !== false) unknown ??= `\`${cmd.raw}\`: ${pattern.unknown}`;
        continue;
      }
      const forms = canonicalPath({ path: operand, base: dir, caseFold: pf.caseFold });
      if (!forms.ok) {
        unknown ??= `\`${cmd.raw}\`: ${forms.reason}`;
        continue;
      }
      // The path as written, and where its links lead (the program opens that): either may hit.
      if (forms.forms.some((f) => o.hit(f) || hitsReal(pf, f, o.hit))) return true;
    }
  }
  for (const start of cmd.appendedPaths ?? []) {
    for (const dir of dirs.dirs) {
      const forms = canonicalPath({ path: start, base: dir, caseFold: pf.caseFold });
      const below = forms.ok ? o.below(forms.forms) : { unknown: forms.reason };
      if (below !== false)
        unknown ??= `\`${cmd.raw}\`: the paths xargs appends from ${start}: ${below.unknown}`;
    }
  }
  return unknown !== undefined ? { unknown } : false;
}

/** Does the real path of `path` (PreparedFacts.realPathOf), where it differs, satisfy `hit`? */
function hitsReal(pf: PreparedFacts, path: string, hit: (path: string) => boolean): boolean {
  const real = pf.realPathOf(path);
  return real !== undefined && hit(real);
}

/**
 * Does the value of one of `options` in `cmd`, read as a search program's file glob, admit one of
 * `paths` (globSelects: as ripgrep's `--glob` reads it, a hidden directory only where the glob matches
 * it; a path of one component is a name, as `find -name` and `grep --include` match one)? A value
 * written `=GLOB` (`-g=?env`) is also read without the `=`. Unknown when a value is past what the glob
 * reader reads, or is a word the line appends.
 */
function optionGlobSelects(o: {
  cmd: ShellCommand;
  options: readonly string[];
  paths: readonly string[];
  caseFold: boolean;
}): boolean | { unknown: string } {
  const read = optionValues({ cmd: withoutFindExclusions(o.cmd), options: o.options });
  if ("unknown" in read) return read;
  const globs = read.values.flatMap(globReadings);
  const selects = someGlobSelects({ globs, paths: o.paths, caseFold: o.caseFold });
  return typeof selects === "boolean" ? selects : { unknown: `\`${o.cmd.raw}\`: ${selects.unknown}` };
}

/**
 * The globs an option's value may be: as written; without a leading `=` (`-g=?env`); and each
 * comma-separated glob after a `NAME:` or `NAME:include:` prefix (ripgrep's `--type-add 'k:*.pem'`).
 */
function globReadings(value: string): string[] {
  const out = [value];
  if (value.startsWith("=")) out.push(value.slice(1));
  const typed = /^[^:*?[{]*:(?:include:)?(.*)$/.exec(value);
  if (typed) out.push(...(typed[1] as string).split(","));
  return out;
}

/** find's negations: `-not` and `!`. */
const FIND_NOT = new Set(["-not", "!"]);

/**
 * `find` without the tests that only exclude: one negated an odd number of times (`-not -path X`,
 * `! -name X`; `-not -not -name X` selects), or pruned with an alternative after it (`-path X -prune -o
 * …`; a `-prune` followed by an action runs it on what it matched), whose glob names what the command
 * leaves out. Other commands as they are.
 */
function withoutFindExclusions(cmd: ShellCommand): ShellCommand {
  if (cmd.program !== "find") return cmd;
  const { args } = cmd;
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (/^-i?(name|path|wholename)$/.test(word)) {
      let negations = 0;
      while (FIND_NOT.has(args[i - 1 - negations] as string)) negations++;
      const pruned = args[i + 2] === "-prune" && (args[i + 3] === "-o" || args[i + 3] === "-or");
      if (negations % 2 === 1 || pruned) {
        i++;
        continue;
      }
    }
    kept.push(word);
  }
  return { ...cmd, args: kept };
}

/** Below one of the roots, not a root itself: `rm -rf .` in the workspace removes the workspace. */
function strictlyInside(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path !== root && pathWithin({ path, roots: [root] }));
}

/** A comparison's roots with context facts filled in, or unknown when a fact is not an absolute path. */
function resolveRoots(value: unknown, pf: PreparedFacts): { roots: string[] } | { unknown: string } {
  const roots: string[] = [];
  for (const root of asList(value)) {
    if (typeof root === "string") {
      roots.push(root);
      continue;
    }
    const name = (root as { context: string }).context;
    const fact = getPath(pf.facts, `context.${name}`);
    if (typeof fact !== "string" || !fact.startsWith("/"))
      return {
        unknown: `the root context.${name} is ${fact === undefined ? "missing" : "not an absolute path"}`,
      };
    roots.push(fact);
  }
  return { roots };
}

/** Does the comparison's value name a context fact (its roots differ from call to call)? */
function hasContextRoot(value: unknown): boolean {
  return asList(value).some((root) => typeof root === "object" && root !== null);
}

function pipeMatches(c: Comparison, flow: { from: string; to: string }, versioned: boolean): boolean {
  const value = c.value as PipesIntoValue;
  const hit = (list: string[], program: string) =>
    list.some((p) => p === "*" || programMatches(c, program, p, versioned));
  return hit(value.from, flow.from) && hit(value.to, flow.to);
}

const rootCache = new Map<string, string[]>();

/**
 * A policy's roots (context facts already filled in, see `resolveRoots`) in canonical form: same case
 * folding and base as the paths they are compared with.
 */
function canonicalRoots(value: readonly string[], pf: PreparedFacts): string[] {
  const key = JSON.stringify([value, pf.caseFold, pf.base ?? null]);
  let roots = rootCache.get(key);
  if (!roots) {
    roots = [];
    for (const root of value) {
      const canonical = canonicalPath({
        path: root,
        caseFold: pf.caseFold,
        ...(pf.base !== undefined ? { base: pf.base } : {}),
      });
      if (!canonical.ok) {
        throw new WardenError({
          code: "INVALID_POLICY",
          message: `pathWithin root ${JSON.stringify(root)} is not a path: ${canonical.reason}`,
        });
      }
      roots.push(...canonical.forms);
    }
    if (rootCache.size > 1000) rootCache.clear();
    rootCache.set(key, roots);
  }
  return roots;
}

const variantCache = new Map<string, unknown[]>();

/**
 * What `eq`/`in` accept for one expected value on a field of `kind`: the value and its canonical forms,
 * of the whole value or of the compared `part` as the field's canonical form holds that part. A rule's
 * `Bücher.DE.` host is the URL's `xn--bcher-kva.de`, its `localhost` is 127.0.0.1 too (ruleHostForms).
 */
function expectedVariants(
  kind: ArgKind | undefined,
  part: ValuePart | undefined,
  pf: PreparedFacts,
  v: unknown,
): unknown[] {
  if (kind === undefined || kind === "command" || typeof v !== "string") return [v];
  const key = JSON.stringify([kind, part ?? null, v, pf.caseFold, pf.base ?? null]);
  let out = variantCache.get(key);
  if (!out) {
    out = [v, ...canonicalVariants(kind, part, pf, v)];
    if (variantCache.size > 1000) variantCache.clear();
    variantCache.set(key, out);
  }
  return out;
}

/** The canonical forms of a rule's text `v` for a field of `kind`, or of its `part`; none when unparsed. */
function canonicalVariants(
  kind: Exclude<ArgKind, "command">,
  part: ValuePart | undefined,
  pf: PreparedFacts,
  v: string,
): unknown[] {
  switch (part) {
    case undefined:
    case "href":
    case "address": {
      const canonical = canonicalise(kind, v, pf.caseFold, pf.base);
      if (!canonical.ok) return [];
      if (kind === "path") return canonical.forms;
      if (kind === "url") return (canonical.forms as UrlParts[]).map((u) => u.href);
      return (canonical.forms as EmailAddress[]).map((a) => a.address);
    }
    case "host":
      return ruleHostForms({ host: v });
    case "domain": {
      if (kind === "url") return ruleHostForms({ host: v });
      const domain = canonicalEmailDomain({ domain: v.trim() });
      return domain === undefined ? [] : [domain];
    }
    case "local":
      return [canonicalLocalPart({ local: v })];
    case "scheme":
      return [v.trim().toLowerCase().replace(/:$/, "")];
    default:
      return [];
  }
}

/**
 * Path-operator results by comparison (the policy's objects live as long as the policy) and path: paths
 * repeat across checks, and a glob list or a set of roots is compiled and tested once per path. Per
 * comparison, the results are kept by everything else they depend on (case folding, base, roots named by
 * context facts: the outer key, built once per test) and then by path, so that the per-path lookup joins
 * no strings; `count` bounds the entries of all of them together.
 */
interface PathResults {
  byOptions: Map<string, Map<string, boolean>>;
  count: number;
}
const pathResults = new WeakMap<Comparison, PathResults>();
const MAX_PATH_RESULTS = 1024;

/** The comparison's results for one options key, with the record that counts them all. */
function pathResultsFor(
  c: Comparison,
  options: string,
): { results: PathResults; byPath: Map<string, boolean> } {
  let results = pathResults.get(c);
  if (!results || results.count >= MAX_PATH_RESULTS) {
    results = { byOptions: new Map(), count: 0 };
    pathResults.set(c, results);
  }
  let byPath = results.byOptions.get(options);
  if (!byPath) {
    byPath = new Map();
    results.byOptions.set(options, byPath);
  }
  return { results, byPath };
}

function testPathOp(c: Comparison, pf: PreparedFacts, path: string, fold: boolean): boolean {
  // Roots named by context facts differ from call to call: the resolved roots are part of the key.
  const resolved = c.op === "pathWithin" ? resolveRoots(c.value, pf) : undefined;
  const rootList = resolved && "roots" in resolved ? resolved.roots : [];
  const contextual = c.op === "pathWithin" && hasContextRoot(c.value) ? rootList.join("\u0001") : "";
  const { results, byPath } = pathResultsFor(
    c,
    `${pf.caseFold ? 1 : 0}${fold ? 1 : 0}\u0000${pf.base ?? ""}\u0000${contextual}`,
  );
  let result = byPath.get(path);
  if (result === undefined) {
    result =
      c.op === "pathWithin"
        ? pathWithin({
            path: fold ? path.toLowerCase() : path,
            roots: fold
              ? canonicalRoots(rootList, pf).map((r) => r.toLowerCase())
              : canonicalRoots(rootList, pf),
          })
        : pathMatches({ path, globs: asList(c.value) as string[], caseFold: fold });
    if (path.length <= MAX_CACHED_VALUE) {
      byPath.set(path, result);
      results.count++;
    }
  }
  return result;
}

/**
 * One reading of one value. A path operator on a file system whose case handling the policy does not
 * state (`rules.paths.caseFold` absent) is tried case-sensitively and case-insensitively, the strict
 * answer winning: `/ETC/shadow` is `/etc/shadow` on macOS' and Windows' default file systems.
 */
function testReading(
  c: Comparison,
  pf: PreparedFacts,
  kind: ArgKind | undefined,
  reading: unknown,
  strict: boolean,
): boolean {
  if (c.op === "pathWithin" || c.op === "pathMatches") {
    const exact = testPathOp(c, pf, reading as string, pf.caseFold);
    if (!pf.caseUnknown || exact === strict) return exact;
    return testPathOp(c, pf, reading as string, true);
  }
  return testPlain(c, reading, kind, pf);
}

const checked = new WeakSet<Comparison>();

/**
 * Records the comparisons of a condition the policy schema has validated (its parse checks each value's
 * shape with comparisonValueProblems, as checkValueShape would), so a check does not validate them a
 * second time on first use: a one-shot check (`warden hook`) would build every value schema for it.
 */
export function markValueShapesChecked(options: { condition: Condition }): void {
  const stack: Condition[] = [options.condition];
  while (stack.length > 0) {
    const c = stack.pop()!;
    if ("all" in c) stack.push(...c.all);
    else if ("any" in c) stack.push(...c.any);
    else if ("not" in c) stack.push(c.not);
    else checked.add(c);
  }
}

/** Rejects a malformed value of the structured ops once per comparison object (policies are long-lived). */
function checkValueShape(c: Comparison): void {
  if (checked.has(c) || !VALUE_SHAPES[c.op]) return;
  const problems = comparisonValueProblems({ comparison: c });
  if (problems.length > 0) {
    throw new WardenError({ code: "INVALID_POLICY", message: `${c.field} ${c.op}: ${problems.join("; ")}` });
  }
  checked.add(c);
}

/** Why comparison `c` is unknown, as its results say it: the field, then the reason. */
function unknownReason(c: Comparison, reason: string): string {
  return `${c.field}: ${reason}`;
}

/** Honest alternative readings of one value: the strict one wins (some passes, or every one must). */
function testReadings(
  c: Comparison,
  pf: PreparedFacts,
  kind: ArgKind | undefined,
  readings: readonly unknown[],
  strict: boolean,
): boolean {
  for (const reading of readings) {
    if (testReading(c, pf, kind, reading, strict) === strict) return strict;
  }
  return !strict;
}

/**
 * One comparison, its values combined by the quantifier (Kleene any/all): decided when some value is
 * decisive (true for any, false for all), else unknown when some value is, else the other answer. Every
 * value is still tested, in order, whatever came before it, so what throws throws as it always did; the
 * results are folded as they come rather than gathered, as this runs for every comparison of every check.
 */
function evaluateComparisonTri(c: Comparison, pf: PreparedFacts, strict: boolean): TriResult {
  checkValueShape(c);
  const selection = select(c, pf);
  if ((c.op === "exists" || c.op === "empty") && selection.multi) {
    // On a selector of several values these ask about the set: is there any value / is every value empty.
    const present = selection.subjects.filter((s) => s.raw !== undefined && s.raw !== null);
    if (c.op === "exists" && present.length > 0) return TRUE;
    if (c.op === "empty" && !selection.subjects.every((s) => isEmpty(s.raw))) return FALSE;
    return selection.unknown
      ? { value: "unknown", unknown: [unknownReason(c, selection.unknown)] }
      : triOf(c.op === "empty");
  }
  const decisive = (c.quantifier ?? (strict ? "any" : "all")) === "any";
  let decided = false;
  let unknown: string[] | undefined;
  for (const subject of selection.subjects) {
    for (const unit of unitsOf(c, pf, subject, strict)) {
      if ("unknown" in unit) {
        unknown ??= [];
        unknown.push(unknownReason(c, unit.unknown));
        continue;
      }
      // Tested before it is folded in (not `||=`, which would skip the test once decided).
      const value = "result" in unit ? unit.result : testReadings(c, pf, subject.kind, unit.readings, strict);
      if (value === decisive) decided = true;
    }
  }
  if (selection.unknown) {
    unknown ??= [];
    unknown.push(unknownReason(c, selection.unknown));
  }
  if (decided) return triOf(decisive);
  return unknown ? { value: "unknown", unknown } : triOf(!decisive);
}

function evaluateTri(condition: Condition, pf: PreparedFacts, strict: boolean): TriResult {
  if ("all" in condition) {
    let unknown: string[] | undefined;
    for (const c of condition.all) {
      const r = evaluateTri(c, pf, strict);
      if (r.value === false) return FALSE;
      if (r.value === "unknown") {
        unknown ??= [];
        unknown.push(...r.unknown);
      }
    }
    return unknown ? { value: "unknown", unknown } : TRUE;
  }
  if ("any" in condition) {
    let unknown: string[] | undefined;
    for (const c of condition.any) {
      const r = evaluateTri(c, pf, strict);
      if (r.value === true) return TRUE;
      if (r.value === "unknown") {
        unknown ??= [];
        unknown.push(...r.unknown);
      }
    }
    return unknown ? { value: "unknown", unknown } : FALSE;
  }
  if ("not" in condition) {
    const r = evaluateTri(condition.not, pf, !strict);
    return r.value === "unknown" ? r : triOf(!r.value);
  }
  return evaluateComparisonTri(condition, pf, strict);
}

/**
 * Three-valued truth of a condition. `strictWhen` is the truth value of the whole condition that gives
 * the stricter outcome (true for deny/ask rules, false for allow rules): comparisons over several values
 * are read so as to reach it. `facts` may be prepared once per check (`prepareConditionFacts`) and reused
 * for every rule; `scope` applies when they are not. Throws WardenError INVALID_POLICY on a malformed
 * comparison value and SyntaxError on an invalid regular expression.
 */
export function evaluateConditionTri(options: {
  condition: Condition;
  facts: unknown;
  strictWhen: boolean;
  scope?: ConditionScope;
}): TriResult {
  const pf =
    options.facts instanceof PreparedFacts
      ? options.facts
      : prepareConditionFacts({ facts: options.facts, ...(options.scope ? { scope: options.scope } : {}) });
  return evaluateTri(options.condition, pf, options.strictWhen);
}

/** The fields that hold the called tool's name, the same in every check of that tool. */
const NAME_FIELDS = new Set(["tool", "name"]);

/** A comparison whose answer is the name's alone: a plain operator on `tool` or `name`. */
function onNameOnly(c: Comparison): boolean {
  return NAME_FIELDS.has(c.field) && c.part === undefined && !PATH_OPS.has(c.op) && !COMMAND_OPS.has(c.op);
}

function specialize(condition: Condition, pf: PreparedFacts, strict: boolean): Condition | boolean {
  if ("all" in condition) return specializeList({ children: condition.all, pf, strict, neutral: true });
  if ("any" in condition) return specializeList({ children: condition.any, pf, strict, neutral: false });
  if ("not" in condition) {
    const inner = specialize(condition.not, pf, !strict);
    if (typeof inner === "boolean") return !inner;
    return inner === condition.not ? condition : { not: inner };
  }
  if (!onNameOnly(condition)) return condition;
  try {
    const result = evaluateComparisonTri(condition, pf, strict);
    return result.value === "unknown" ? condition : result.value;
  } catch {
    // What cannot be evaluated stays, to fail at every check as it did.
    return condition;
  }
}

/**
 * An `all` (neutral `true`) or `any` (neutral `false`) with its children specialised. Evaluation stops at
 * the first child with the other value, so that child decides the list when nothing before it is left to
 * evaluate; after something that is left (which may fail, or decide first), it stays, and what follows it
 * is dropped, as it was never evaluated.
 */
function specializeList(options: {
  children: readonly Condition[];
  pf: PreparedFacts;
  strict: boolean;
  neutral: boolean;
}): Condition | boolean {
  const { children, pf, strict, neutral } = options;
  const kept: Condition[] = [];
  for (const child of children) {
    const special = specialize(child, pf, strict);
    if (typeof special !== "boolean") {
      kept.push(special);
      continue;
    }
    if (special === neutral) continue;
    if (kept.length === 0) return !neutral;
    kept.push(child);
    break;
  }
  if (kept.length === 0) return neutral;
  if (kept.length === 1) return kept[0] as Condition;
  return neutral ? { all: kept } : { any: kept };
}

/**
 * A tool rule's condition for calls of one tool: the comparisons on the tool's name (`tool`, `name`)
 * worked out once, leaving what the other facts of each call decide; `true` or `false` when the name alone
 * decides. Evaluating what is left over a call's facts gives what the whole condition gives (the same
 * value, unknowns and failures), so a policy's conditions can be specialised once per tool name rather
 * than compared on every check (`tool in [write_file, edit_file…]` on a read).
 */
export function conditionForName(options: {
  condition: Condition;
  name: string;
  strictWhen: boolean;
}): Condition | boolean {
  const { name } = options;
  return specialize(options.condition, new PreparedFacts({ tool: name, name }, {}), options.strictWhen);
}

/** One comparison, two-valued (unknown reads as false). */
export function evaluateComparison(c: Comparison, facts: unknown): boolean {
  return evaluateCondition(c, facts);
}

/**
 * Two-valued truth for callers that cannot carry "unknown" (the shield's bindings): comparisons read the
 * way a deny rule reads them, and unknown counts as false.
 */
export function evaluateCondition(condition: Condition, facts: unknown): boolean {
  return evaluateConditionTri({ condition, facts, strictWhen: true }).value === true;
}

/**
 * Everything wrong with a tool-rule condition, for `compile --check`: fields outside the grammar, values
 * the structured operators cannot use, invalid regular expressions, `part`s the op cannot apply to.
 */
export function conditionProblems(options: { condition: Condition }): string[] {
  const problems: string[] = [];
  const visit = (c: Condition): void => {
    if ("all" in c) c.all.forEach(visit);
    else if ("any" in c) c.any.forEach(visit);
    else if ("not" in c) visit(c.not);
    else {
      problems.push(...conditionFieldProblems({ field: c.field }));
      for (const p of comparisonValueProblems({ comparison: c })) problems.push(`${c.field} ${c.op}: ${p}`);
      if (
        c.part &&
        (COMMAND_OPS.has(c.op) || c.op === "pathWithin" || c.op === "exists" || c.op === "empty")
      ) {
        problems.push(`${c.field} ${c.op}: part "${c.part}" does not apply to this operator`);
      }
    }
  };
  visit(options.condition);
  return problems;
}

/**
 * Every `matches` regex of the condition that cannot run (a syntax error, or lookaround/backreferences,
 * which the linear-time engine lacks), as "field matches: invalid regular expression: why". Policy schemas
 * reject a rule with any, so an invalid regex fails the load in every command instead of every check.
 */
export function conditionRegexProblems(options: { condition: Condition }): string[] {
  const c = options.condition;
  if ("all" in c) return c.all.flatMap((condition) => conditionRegexProblems({ condition }));
  if ("any" in c) return c.any.flatMap((condition) => conditionRegexProblems({ condition }));
  if ("not" in c) return conditionRegexProblems({ condition: c.not });
  if (c.op !== "matches") return [];
  const why = validatePolicyRegex({ pattern: asText(c.value), caseSensitive: c.caseSensitive === true });
  return why === undefined ? [] : [`${c.field} matches: invalid regular expression: ${why}`];
}

/** Every field path a condition reads, for verification against the vocabulary. */
export function conditionFields(condition: Condition): string[] {
  if ("all" in condition) return condition.all.flatMap(conditionFields);
  if ("any" in condition) return condition.any.flatMap(conditionFields);
  if ("not" in condition) return conditionFields(condition.not);
  return [condition.field];
}
