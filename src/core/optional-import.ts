/**
 * Loading an optional peer dependency at the one place that needs it. `npm i warden` installs only what a
 * compiled check needs; the model providers, pg, node-llama-cpp and QuickJS are optional peers the user
 * installs for the features that use them. When one is absent (or installed but cannot load) the caller
 * gets a MISSING_DEPENDENCY WardenError that names the package and the command that installs it, never a
 * bare "Cannot find package" from deep inside a check.
 */
import { WardenError } from "./errors.js";

/** Loads a module: each caller passes its own literal `() => import("pkg")` so bundlers see the name. */
export type ModuleLoader<T> = () => Promise<T>;

export interface ImportOptionalOptions<T> {
  /** The npm package to install ("@ai-sdk/openai"). */
  packageName: string;
  /** What needs it, for the message ("openai: models"). */
  feature: string;
  /** Packages the feature needs beside this one, named in the same install command ("ai"). */
  companions?: readonly string[];
  load: ModuleLoader<T>;
}

/** The command that installs the package (and its companions) beside warden. */
export function installCommand(options: { packageName: string; companions?: readonly string[] }): string {
  return `npm install ${[...(options.companions ?? []), options.packageName].join(" ")}`;
}

/** True when the error says the package itself could not be found (rather than failing as it loaded). */
function isNotFound(options: { error: unknown; packageName: string }): boolean {
  const { error, packageName } = options;
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  // A package that is there but misses one of its own files is broken, not absent.
  const message = error instanceof Error ? error.message : "";
  return message.includes(`'${packageName}'`) || message.includes(`"${packageName}"`);
}

/** The error for an optional package that is absent or cannot be loaded. */
export function missingDependency(options: {
  packageName: string;
  feature: string;
  companions?: readonly string[];
  cause?: unknown;
}): WardenError {
  const { packageName, feature, cause } = options;
  const install = installCommand({
    packageName,
    ...(options.companions ? { companions: options.companions } : {}),
  });
  const absent = cause === undefined || isNotFound({ error: cause, packageName });
  const reason = cause instanceof Error ? cause.message : String(cause);
  const message = absent
    ? `${feature} need the optional package ${packageName}, which is not installed: run "${install}"`
    : `${feature} need the optional package ${packageName}, which is installed but could not be loaded (${reason}); reinstall it with "${install}"`;
  return new WardenError({
    code: "MISSING_DEPENDENCY",
    message,
    details: { package: packageName, install },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Imports an optional package, or throws MISSING_DEPENDENCY naming it. */
export async function importOptional<T>(options: ImportOptionalOptions<T>): Promise<T> {
  try {
    return await options.load();
  } catch (error) {
    const { packageName, feature, companions } = options;
    throw missingDependency({ packageName, feature, ...(companions ? { companions } : {}), cause: error });
  }
}
