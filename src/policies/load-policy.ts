/**
 * Loads a policy by bundled name (`eicu-ac`), directory (containing policy.json) or file (.json/.yaml),
 * resolves texts kept in files beside it, and validates it with the policy schema.
 *
 * A policy is data someone else may have written: its files are read only when they are regular files
 * under a size cap, its document is checked for depth before the (recursive) schema parses it, and a
 * `{ "file": … }` text reference is confined to the policy's own folder — relative, no `..` escape, and
 * its real path (symbolic links resolved) inside the real path of that folder — since the service serves
 * policy texts back to callers.
 *
 * A bundled policy's document is validated by the build: the build parses each with the schema exactly
 * as a load does, and when the schema returns the document unchanged it records the SHA-256 of the
 * file's bytes (validated-policy-digests.ts). A load whose file has one of those digests takes the
 * parsed JSON as it is: the schema walk (~40M instructions for coding-agent, on every hook call) would
 * return the same value. Any other byte, or a checkout's sources (no digests), gets the full parse.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { markValueShapesChecked } from "../core/condition.js";
import { WardenError } from "../core/errors.js";
import { lazyModule } from "../core/lazy-module.js";
import { MAX_POLICY_FILE_BYTES } from "../core/limits.js";
import { checkPolicyDocumentLimits, type Policy, PolicyFileSchema } from "../core/policy.js";
import { withRegexesParsedAtUse } from "../core/safe-regex.js";
import { parseWith } from "../core/validate.js";
import { packageRoot } from "./package-root.js";
import { VALIDATED_POLICY_DIGESTS } from "./validated-policy-digests.js";

/** The YAML parser, loaded only for a policy written in YAML (core/lazy-module.ts). */
const yaml = lazyModule<typeof import("yaml")>({ specifier: "yaml" });
/** For the digest of a policy file, loaded by the first load that has digests to compare with. */
const crypto = lazyModule<typeof import("node:crypto")>({ specifier: "node:crypto" });

export interface LoadedPolicy {
  policy: Policy;
  /** Directory the policy was read from (demonstrations and texts are resolved against it). */
  dir: string;
  /** Path of the policy file. */
  path: string;
  bundled: boolean;
}

export function bundledPoliciesDir(): string {
  return join(packageRoot(), "policies");
}

export function listBundledPolicies(): string[] {
  const dir = bundledPoliciesDir();
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, "policy.json")))
    .sort();
}

function invalidPolicy(options: { message: string; field?: string; cause?: unknown }): WardenError {
  return new WardenError({
    code: "INVALID_POLICY",
    message: options.message,
    ...(options.field ? { details: { field: options.field, fields: [options.field] } } : {}),
    ...(options.cause === undefined ? {} : { cause: options.cause }),
  });
}

/** The text of a regular file of at most MAX_POLICY_FILE_BYTES; `what` names it in errors. */
export function readPolicyFile(options: { path: string; what: string; field?: string }): string {
  const { path, what } = options;
  const field = options.field ? { field: options.field } : {};
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    throw invalidPolicy({ message: `cannot read ${what} ${path} (${code})`, ...field, cause: error });
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw invalidPolicy({ message: `${what} ${path} is not a regular file`, ...field });
    const buffer = Buffer.alloc(Math.min(MAX_POLICY_FILE_BYTES + 1, stat.size + 1));
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, length);
      if (read === 0) break;
      length += read;
    }
    if (length > MAX_POLICY_FILE_BYTES || stat.size > MAX_POLICY_FILE_BYTES) {
      throw invalidPolicy({
        message: `${what} ${path} is larger than ${MAX_POLICY_FILE_BYTES} bytes`,
        ...field,
      });
    }
    return buffer.subarray(0, length).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function parseStructured(options: { path: string; text: string }): unknown {
  const { path, text } = options;
  try {
    return [".yaml", ".yml"].includes(extname(path).toLowerCase()) ? yaml().parse(text) : JSON.parse(text);
  } catch (error) {
    throw new WardenError({
      code: "INVALID_POLICY",
      message: `Policy file ${path} is not valid ${extname(path) === ".json" ? "JSON" : "JSON/YAML"}: ${(error as Error).message}`,
      cause: error,
    });
  }
}

/** A policy file as the schema returns it: a Policy whose texts may still be file references. */
type PolicyFile = z.output<typeof PolicyFileSchema>;

function sha256(text: string): string {
  return crypto().createHash("sha256").update(text, "utf8").digest("hex");
}

/** Whether `path` is `dir` itself or below it (both already absolute and normalised). */
function isInside(options: { path: string; dir: string }): boolean {
  const rel = relative(options.dir, options.path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/** The real path of a text file referenced by a policy, confined to the policy's folder. */
function confinedPath(options: { file: string; dir: string; field: string }): string {
  const { file, dir, field } = options;
  const refuse = (why: string) =>
    invalidPolicy({
      message: `Policy field ${field} refers to ${file}: ${why}; texts in files must sit in the policy's folder (${dir}), named relative to it`,
      field,
    });
  if (isAbsolute(file) || /^[a-zA-Z]:|^[\\/]/.test(file)) throw refuse("an absolute path");
  if (file.split(/[\\/]/).includes("..")) throw refuse("a path with '..'");
  const path = join(dir, file);
  if (!existsSync(path)) {
    throw invalidPolicy({
      message: `Policy field ${field} refers to ${file}, which does not exist (looked in ${dir})`,
      field,
    });
  }
  const real = realpathSync(path);
  if (!isInside({ path: real, dir: realpathSync(dir) }))
    throw refuse(`its real path ${real} is outside the folder`);
  return real;
}

function resolveText(options: { value: string | { file: string }; dir: string; field: string }): string {
  const { value, dir, field } = options;
  if (typeof value === "string") return value;
  const path = confinedPath({ file: value.file, dir, field });
  return readPolicyFile({ path, what: `policy text (${field})`, field });
}

/** The policy schema's parse of a document (its size and depth checked first), texts not yet read. */
function parsePolicyFile(options: { document: unknown; what: string; regexes?: RegexChecks }): PolicyFile {
  const { document, what } = options;
  checkPolicyDocumentLimits({ document, what });
  // One parse: PolicyFileSchema is PolicySchema with the two texts also allowed as file references, so
  // once those are read (strings) the result is a valid Policy — parsing it again with PolicySchema
  // would only walk every rule a second time (about half of a large policy's load).
  const parse = () => parseWith({ schema: PolicyFileSchema, value: document, what, code: "INVALID_POLICY" });
  return options.regexes === "use" ? withRegexesParsedAtUse({ run: parse }) : parse();
}

/** The policy with its texts: each a string, or read from its file in `dir`. */
function withTexts(options: { file: PolicyFile; dir: string }): Policy {
  const { file, dir } = options;
  return {
    ...file,
    specification: resolveText({ value: file.specification, dir, field: "specification" }),
    requests: resolveText({ value: file.requests, dir, field: "requests" }),
  };
}

/**
 * A policy whose document the schema validated (parsed here, or bytes the build validated): the value
 * shapes of its comparisons are not checked again when a check first meets them.
 */
function validated(policy: Policy): Policy {
  for (const rule of policy.rules?.toolRules ?? []) {
    if (rule.when) markValueShapesChecked({ condition: rule.when });
  }
  for (const predicate of policy.rules?.predicates ?? []) {
    const binding = predicate.binding;
    if (binding?.kind === "condition" || binding?.kind === "history") {
      markValueShapesChecked({ condition: binding.when });
    }
  }
  return policy;
}

/** Parses an in-memory policy document whose file references resolve against `dir`. */
export function parsePolicyDocument(options: {
  document: unknown;
  dir: string;
  what?: string;
  /** When each `matches` regex is parsed: at load (default), or when it first runs (see REGEX_CHECKS). */
  regexes?: RegexChecks;
}): Policy {
  const what = options.what ?? "policy";
  const file = parsePolicyFile({
    document: options.document,
    what,
    ...(options.regexes ? { regexes: options.regexes } : {}),
  });
  return validated(withTexts({ file, dir: options.dir }));
}

/**
 * The build's side of validated documents: the SHA-256 of a JSON policy file's text when the schema's
 * parse (regexes checked at load, the stricter way) returns its document unchanged, undefined when the
 * parse changes it (a default filled in); throws as a load would when the policy is invalid.
 */
export function validatedPolicyDigest(options: { text: string; what: string }): string | undefined {
  const document = JSON.parse(options.text) as unknown;
  const file = parsePolicyFile({ document, what: options.what, regexes: "load" });
  return isDeepStrictEqual(file, document) ? sha256(options.text) : undefined;
}

/**
 * A policy file's schema-checked content: taken as parsed when its bytes are a document the build
 * validated (`digests`, see validatedPolicyDigest), otherwise parsed with the schema.
 */
export function readPolicyFileContent(options: {
  path: string;
  what: string;
  regexes?: RegexChecks;
  /** SHA-256 digests of documents known to parse to themselves; the build's by default. */
  digests?: readonly string[];
}): PolicyFile {
  const { path, what } = options;
  const text = readPolicyFile({ path, what: "policy file" });
  const digests = options.digests ?? VALIDATED_POLICY_DIGESTS;
  const json = extname(path).toLowerCase() === ".json";
  // A validated document is valid JSON: its parse cannot throw.
  if (json && digests.length > 0 && digests.includes(sha256(text))) return JSON.parse(text) as PolicyFile;
  return parsePolicyFile({
    document: parseStructured({ path, text }),
    what,
    ...(options.regexes ? { regexes: options.regexes } : {}),
  });
}

/**
 * When a policy's `matches` regexes are parsed: "load" rejects a policy with one RE2 refuses as it loads
 * (every command but one); "use" parses each when it first runs, where a refused pattern throws and the
 * check is denied (fail closed) — for `warden hook`, a one-shot check of a large policy whose other
 * rules never run (core/safe-regex.ts, withRegexesParsedAtUse).
 */
export const REGEX_CHECKS = ["load", "use"] as const;
export type RegexChecks = (typeof REGEX_CHECKS)[number];

const LoadPolicyOptionsSchema = z
  .object({
    /** A bundled policy's name, or a policy file or directory (resolved against `cwd`). */
    ref: z.string().min(1),
    cwd: z.string().min(1).optional(),
    regexes: z.enum(REGEX_CHECKS).default("load"),
  })
  .strict();

export function loadPolicy(options: z.input<typeof LoadPolicyOptionsSchema>): LoadedPolicy {
  const {
    ref,
    cwd: given,
    regexes,
  } = parseWith({
    schema: LoadPolicyOptionsSchema,
    value: options,
    what: "loadPolicy options",
  });
  const cwd = given ?? process.cwd();
  const candidate = resolve(cwd, ref);
  let path: string | undefined;
  let bundled = false;
  if (existsSync(candidate)) {
    path = statSync(candidate).isDirectory() ? join(candidate, "policy.json") : candidate;
    if (!existsSync(path)) {
      throw new WardenError({
        code: "POLICY_NOT_FOUND",
        message: `Directory ${candidate} has no policy.json`,
      });
    }
  } else if (/^[a-z0-9][a-z0-9._-]*$/i.test(ref)) {
    const bundledPath = join(bundledPoliciesDir(), ref, "policy.json");
    if (existsSync(bundledPath)) {
      path = bundledPath;
      bundled = true;
    }
  }
  if (!path) {
    const names = listBundledPolicies();
    throw new WardenError({
      code: "POLICY_NOT_FOUND",
      message: `No policy named or found at "${ref}". Bundled policies: ${names.join(", ") || "(none)"}; or pass a path to a policy file or directory.`,
    });
  }
  const dir = dirname(path);
  const file = readPolicyFileContent({ path, what: `policy ${path}`, regexes });
  return { policy: validated(withTexts({ file, dir })), dir, path, bundled };
}
