/**
 * Loader for ST-WebAgentBench's task file (`test.raw.json`: web tasks with structured safety policies).
 * `path` is the file itself, a directory holding it, or a directory of release folders
 * (`latest-2026-03/`, `v1-2024-10/`), from which `version` picks one (default: latest). Every task and
 * policy is validated with zod; nested policy lists (the original release) are flattened; malformed
 * records are reported by id in `malformed` and left out. Only a missing or unreadable file throws.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { WardenError } from "../../core/errors.js";
import {
  parseStTasks,
  type StMalformed,
  type StTask,
  type StVersion,
} from "../../engines/shield/import/st-webagentbench-schema.js";

export const ST_TASK_FILE = "test.raw.json";

export interface StWebAgentBenchDataset {
  version: StVersion;
  /** The file read. */
  file: string;
  tasks: StTask[];
  malformed: StMalformed[];
  /** Policies after flattening (malformed ones excluded). */
  policies: number;
  /** Policies that sat in nested lists. */
  nestedPolicies: number;
}

export interface StReleaseFolder {
  version: StVersion;
  dir: string;
  file: string;
}

function versionOfName(name: string): StVersion | null {
  const n = name.toLowerCase();
  if (n.startsWith("latest")) return "latest";
  if (n.startsWith("v1")) return "v1";
  return null;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** The release folders under a dataset directory (each with a test.raw.json), newest name last. */
export async function listStWebAgentBenchReleases(options: { path: string }): Promise<StReleaseFolder[]> {
  let names: string[];
  try {
    names = await readdir(options.path);
  } catch {
    return [];
  }
  const out: StReleaseFolder[] = [];
  for (const name of names.sort()) {
    const version = versionOfName(name);
    const file = join(options.path, name, ST_TASK_FILE);
    if (version && (await isFile(file))) out.push({ version, dir: join(options.path, name), file });
  }
  return out;
}

async function resolveFile(
  path: string,
  version: StVersion | undefined,
): Promise<{ file: string; version?: StVersion }> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch {
    throw new WardenError({
      code: "DATASET_INVALID",
      message: `ST-WebAgentBench not found at ${path}`,
      details: { field: "path" },
    });
  }
  if (info.isFile()) {
    return {
      file: path,
      ...(versionOfName(basename(dirname(path))) ? { version: versionOfName(basename(dirname(path)))! } : {}),
    };
  }
  const direct = join(path, ST_TASK_FILE);
  if (await isFile(direct)) {
    const v = versionOfName(basename(path));
    return { file: direct, ...(v ? { version: v } : {}) };
  }
  const releases = await listStWebAgentBenchReleases({ path });
  const want = version ?? "latest";
  const matching = releases.filter((r) => r.version === want);
  const chosen = matching[matching.length - 1];
  if (!chosen) {
    throw new WardenError({
      code: "DATASET_INVALID",
      message: `no ${ST_TASK_FILE} for version ${want} under ${path} (found: ${releases.map((r) => basename(r.dir)).join(", ") || "none"})`,
      details: { field: "path" },
    });
  }
  return { file: chosen.file, version: chosen.version };
}

/** Loads and validates the task file; see the module comment for what `path` may be. */
export async function loadStWebAgentBench(options: {
  path: string;
  version?: StVersion;
}): Promise<StWebAgentBenchDataset> {
  if (typeof options?.path !== "string" || options.path.trim() === "") {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "path: expected the ST-WebAgentBench file or directory",
    });
  }
  if (options.version !== undefined && options.version !== "latest" && options.version !== "v1") {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `version: expected "latest" or "v1", got ${JSON.stringify(options.version)}`,
      details: { field: "version" },
    });
  }
  const resolved = await resolveFile(options.path, options.version);
  let value: unknown;
  try {
    value = JSON.parse(await readFile(resolved.file, "utf8"));
  } catch (error) {
    throw new WardenError({
      code: "DATASET_INVALID",
      message: `cannot read ${resolved.file} as JSON: ${(error as Error).message}`,
      cause: error,
    });
  }
  if (!Array.isArray(value)) {
    throw new WardenError({
      code: "DATASET_INVALID",
      message: `${resolved.file}: expected a JSON array of tasks`,
    });
  }
  const parsed = parseStTasks({ value });
  return {
    version: options.version ?? resolved.version ?? parsed.detectedVersion,
    file: resolved.file,
    tasks: parsed.tasks,
    malformed: parsed.malformed,
    policies: parsed.tasks.reduce((n, t) => n + t.policies.length, 0),
    nestedPolicies: parsed.nestedPolicies,
  };
}
