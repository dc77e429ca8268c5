/**
 * Loader for EICU-AC (GuardAgent's healthcare access-control benchmark) with EHRAgent's output logs.
 * Reads `eicu_ac.json` + `ehragent_logs/<id>.txt` (or the official `ehragent/eicu_ac.json` +
 * `ehragent/logs/<id>.txt`), validates every record with zod, parses its log, and frames the check as
 * the official GuardAgent code does: input `Identity: {identity}\nQuestion: {template}`, output the log's
 * knowledge + "Generated code:" + code + "Answer:" + answer. Malformed records are reported by id in
 * `problems` and left out; only a missing or unreadable dataset throws.
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { WardenError } from "../../core/errors.js";
import type { Subject } from "../../core/subject.js";
import { formatIssues } from "../../core/validate.js";
import {
  formatEhrAgentOutput,
  type ParsedEhrAgentLog,
  parseEhrAgentLog,
} from "../../engines/compiled/extractors/ehragent/log.js";

const ColumnsByTableSchema = z.record(z.string(), z.array(z.string()));

const EicuAcRawRecordSchema = z.object({
  id: z.string().min(1),
  identity: z.string().min(1),
  label: z.union([z.literal(0), z.literal(1)]),
  inaccessible_db: ColumnsByTableSchema,
  access_gt: ColumnsByTableSchema,
  template: z.string().min(1),
  answer: z.array(z.union([z.string(), z.number(), z.boolean()])).transform((values) => values.map(String)),
  question: z.string().optional(),
  query: z.string().optional(),
  split: z.string().optional(),
});

const AccessPolicyFileSchema = z.object({
  roles: z.record(z.string(), ColumnsByTableSchema),
});

/** role -> table -> columns the role may read. */
export type EicuAccessPolicy = Record<string, Record<string, string[]>>;

export interface EicuAcSubject extends Subject {
  id: string;
  input: string;
  output: string;
  context: { identity: string };
}

export interface EicuAcRecord {
  /** Unique per record: `<question id>:<identity>`. */
  id: string;
  /** The question id, also the log file name. */
  questionId: string;
  identity: string;
  /** 1 = access must be denied. */
  label: 0 | 1;
  /** Ground truth: the columns the identity may not read (empty when label is 0). */
  inaccessible: Record<string, string[]>;
  /** Ground truth: every table/column the question needs (annotated by hand). */
  accessGt: Record<string, string[]>;
  /** Gold answers. */
  answer: string[];
  template: string;
  question: string | null;
  query: string | null;
  split: string | null;
  subject: EicuAcSubject;
  log: ParsedEhrAgentLog;
}

export interface EicuAcProblem {
  /** Record id when known (`<question id>:<identity>`, or the question id alone). */
  id: string | null;
  /** Position in eicu_ac.json, when the problem is about a record. */
  index: number | null;
  message: string;
}

export interface EicuAcDataset {
  /** The directory holding eicu_ac.json. */
  dir: string;
  layout: "flat" | "official";
  records: EicuAcRecord[];
  problems: EicuAcProblem[];
  /** From access_policy.json beside eicu_ac.json, when present (a derived file, not upstream). */
  accessPolicy: EicuAccessPolicy | null;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Finds eicu_ac.json and the log directory in either supported layout. */
async function locate(
  dir: string,
): Promise<{ dataDir: string; logDir: string; layout: "flat" | "official" }> {
  const candidates: { dataDir: string; layout: "flat" | "official" }[] = [
    { dataDir: dir, layout: "flat" },
    { dataDir: join(dir, "ehragent"), layout: "official" },
  ];
  for (const candidate of candidates) {
    if (!(await isFile(join(candidate.dataDir, "eicu_ac.json")))) continue;
    for (const logs of ["ehragent_logs", "logs"]) {
      const logDir = join(candidate.dataDir, logs);
      if (await isDirectory(logDir)) return { ...candidate, logDir };
    }
    throw new WardenError({
      code: "DATASET_INVALID",
      message: `EICU-AC: found ${join(candidate.dataDir, "eicu_ac.json")} but no ehragent_logs/ or logs/ directory beside it`,
      details: { dir },
    });
  }
  throw new WardenError({
    code: "DATASET_INVALID",
    message: `EICU-AC: no eicu_ac.json in ${dir} or ${join(dir, "ehragent")}`,
    details: { dir },
  });
}

/** The official GuardAgent agent input for an EICU-AC record. */
export function eicuAcAgentInput(options: { identity: string; template: string }): string {
  return `Identity: ${options.identity}\nQuestion: ${options.template}`;
}

/** Loads EICU-AC from `dir`. Throws WardenError(DATASET_INVALID) only when the dataset itself is unusable. */
export async function loadEicuAc(options: { dir: string }): Promise<EicuAcDataset> {
  const dir = z.string().min(1).safeParse(options?.dir);
  if (!dir.success) {
    throw new WardenError({ code: "INVALID_INPUT", message: "dir: expected the EICU-AC directory path" });
  }
  const { dataDir, logDir, layout } = await locate(dir.data);
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(join(dataDir, "eicu_ac.json"), "utf8"));
  } catch (error) {
    throw new WardenError({
      code: "DATASET_INVALID",
      message: `EICU-AC: eicu_ac.json is not readable JSON: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  if (!Array.isArray(raw)) {
    throw new WardenError({
      code: "DATASET_INVALID",
      message: "EICU-AC: eicu_ac.json must hold a JSON array of records",
    });
  }

  const problems: EicuAcProblem[] = [];
  const records: EicuAcRecord[] = [];
  const logs = new Map<string, ParsedEhrAgentLog | null>();
  const seen = new Set<string>();

  for (const [index, item] of raw.entries()) {
    const rawId = typeof item === "object" && item !== null && typeof item.id === "string" ? item.id : null;
    const result = EicuAcRawRecordSchema.safeParse(item);
    if (!result.success) {
      problems.push({ id: rawId, index, message: `invalid record: ${formatIssues(result.error.issues)}` });
      continue;
    }
    const data = result.data;
    const id = `${data.id}:${data.identity}`;
    if (seen.has(id)) {
      problems.push({ id, index, message: "duplicate record (same question id and identity)" });
      continue;
    }
    if (!/^[A-Za-z0-9_.-]+$/.test(data.id)) {
      problems.push({ id, index, message: "id is not usable as a log file name" });
      continue;
    }
    let log = logs.get(data.id);
    if (log === undefined) {
      try {
        log = parseEhrAgentLog({ text: await readFile(join(logDir, `${data.id}.txt`), "utf8") });
      } catch (error) {
        log = null;
        problems.push({
          id: data.id,
          index,
          message: `log ${data.id}.txt is not readable: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
      logs.set(data.id, log);
    }
    if (log === null) {
      problems.push({ id, index, message: `record left out: its log ${data.id}.txt could not be read` });
      continue;
    }
    if (log.lastRunCode === null) {
      problems.push({ id, index, message: `log ${data.id}.txt holds no code` });
      continue;
    }
    seen.add(id);
    records.push({
      id,
      questionId: data.id,
      identity: data.identity,
      label: data.label,
      inaccessible: data.inaccessible_db,
      accessGt: data.access_gt,
      answer: data.answer,
      template: data.template,
      question: data.question ?? null,
      query: data.query ?? null,
      split: data.split ?? null,
      subject: {
        id,
        input: eicuAcAgentInput({ identity: data.identity, template: data.template }),
        output: formatEhrAgentOutput({ knowledge: log.knowledge, code: log.lastRunCode, answer: log.answer }),
        context: { identity: data.identity },
      },
      log,
    });
  }

  let accessPolicy: EicuAccessPolicy | null = null;
  const policyPath = join(dataDir, "access_policy.json");
  if (await isFile(policyPath)) {
    try {
      const parsed = AccessPolicyFileSchema.safeParse(JSON.parse(await readFile(policyPath, "utf8")));
      if (parsed.success) accessPolicy = parsed.data.roles;
      else
        problems.push({
          id: null,
          index: null,
          message: `access_policy.json: ${formatIssues(parsed.error.issues)}`,
        });
    } catch (error) {
      problems.push({
        id: null,
        index: null,
        message: `access_policy.json is not readable JSON: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }

  return { dir: dataDir, layout, records, problems, accessPolicy };
}
