/**
 * Loads a policy by bundled name (`eicu-ac`), directory (containing policy.json) or file (.json/.yaml),
 * resolves texts kept in files beside it, and validates it with the policy schema.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, isAbsolute, join, resolve } from "node:path";
import YAML from "yaml";
import { WardenError } from "../core/errors.js";
import { type Policy, PolicyFileSchema, PolicySchema } from "../core/policy.js";
import { parseWith } from "../core/validate.js";
import { packageRoot } from "./package-root.js";

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

function readStructured(path: string): unknown {
  const text = readFileSync(path, "utf8");
  try {
    return [".yaml", ".yml"].includes(extname(path).toLowerCase()) ? YAML.parse(text) : JSON.parse(text);
  } catch (error) {
    throw new WardenError({
      code: "INVALID_POLICY",
      message: `Policy file ${path} is not valid ${extname(path) === ".json" ? "JSON" : "JSON/YAML"}: ${(error as Error).message}`,
      cause: error,
    });
  }
}

function resolveText(options: { value: string | { file: string }; dir: string; field: string }): string {
  const { value, dir } = options;
  if (typeof value === "string") return value;
  const path = isAbsolute(value.file) ? value.file : join(dir, value.file);
  if (!existsSync(path)) {
    throw new WardenError({
      code: "INVALID_POLICY",
      message: `Policy field ${options.field} refers to ${value.file}, which does not exist (looked in ${dir})`,
      details: { field: options.field },
    });
  }
  return readFileSync(path, "utf8");
}

/** Parses an in-memory policy document whose file references resolve against `dir`. */
export function parsePolicyDocument(options: { document: unknown; dir: string; what?: string }): Policy {
  const what = options.what ?? "policy";
  const file = parseWith({ schema: PolicyFileSchema, value: options.document, what, code: "INVALID_POLICY" });
  return parseWith({
    schema: PolicySchema,
    value: {
      ...file,
      specification: resolveText({ value: file.specification, dir: options.dir, field: "specification" }),
      requests: resolveText({ value: file.requests, dir: options.dir, field: "requests" }),
    },
    what,
    code: "INVALID_POLICY",
  });
}

export function loadPolicy(options: { ref: string; cwd?: string }): LoadedPolicy {
  const { ref } = options;
  const cwd = options.cwd ?? process.cwd();
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
  const policy = parsePolicyDocument({ document: readStructured(path), dir, what: `policy ${path}` });
  return { policy, dir, path, bundled };
}
