/**
 * The EHRAgent fact extractor: from the Python code EHRAgent generated, the tables and columns it reads.
 * The code is parsed (py-parser.ts) and run through the abstract interpreter (interpreter.ts) against the
 * database schema: one implementation of the semantics. Confidence is "high" only when the code parsed,
 * every read was resolved and nothing outside the modelled world (files, modules, dynamic code) was
 * touched; otherwise "low", so that `compiled` fails closed and `auto` can fall back to a model. Never
 * throws.
 *
 * The same program text recurs (a guard sees an agent's code at several steps, a service sees retries):
 * answers are kept in a small LRU keyed on the exact code text and the schema's exact content, so a hit
 * is the answer to exactly the same question, never to a similar one.
 */
import { toWardenError } from "../../../../core/errors.js";
import { interpretModule } from "./interpreter.js";
import { parsePython } from "./py-parser.js";
import { type DatabaseSchema, EICU_SCHEMA, isNormalizedSchema, normalizeSchema } from "./schema.js";
import { sortedStrings, sortStrings } from "./sort-strings.js";

export interface EhrAgentAccess {
  /**
   * table -> columns the code reads, both sorted, each column once. A table the code reads without
   * naming a column (`len(LoadDB('t'))`, `select count(*) from t`) is listed with no columns.
   */
  tables: Record<string, string[]>;
  /**
   * Tables whose every column the code exposes (a whole DataFrame printed or left in `answer`, SQL
   * `select *`); their columns are all in `tables`. Sorted.
   */
  wholeTables: string[];
  /**
   * Tables the code reads without naming any column (`select count(*) from t`, `len(LoadDB('t'))`,
   * `exists(select 1 from t)`): reading them still reads the table. Sorted. A table listed here may
   * also have columns in `tables`.
   */
  tablesRead?: string[];
  confidence: "high" | "low";
  /** What could not be determined, e.g. a condition built from a value only known at run time. */
  unresolved: string[];
  /** Parse errors and other failures (bad input, SQL the parser rejects, analysis budget). */
  errors: string[];
}

function failed(errors: string[]): EhrAgentAccess {
  return { tables: {}, wholeTables: [], tablesRead: [], confidence: "low", unresolved: [], errors };
}

// ------------------------------------------------------------------ the cache

const DEFAULT_CACHE_ENTRIES = 512;
let cacheLimit = DEFAULT_CACHE_ENTRIES;
/** schema fingerprint -> (code -> answer), each inner map in least- to most-recently-used order. */
const cache = new Map<string, Map<string, EhrAgentAccess>>();
let cacheSize = 0;
const fingerprints = new WeakMap<object, string>();

/**
 * The schema's whole content as text (tables and columns, in order): two schemas share a fingerprint
 * only when they are the same schema. Kept beside a normalized (frozen) schema, which cannot change.
 */
function schemaFingerprint(schema: DatabaseSchema): string {
  const known = fingerprints.get(schema);
  if (known !== undefined) return known;
  const text = JSON.stringify(Object.keys(schema).map((table) => [table, schema[table]]));
  if (isNormalizedSchema(schema)) fingerprints.set(schema, text);
  return text;
}

/** A copy the caller may change without changing the cached answer. */
function copyAccess(access: EhrAgentAccess): EhrAgentAccess {
  const tables: Record<string, string[]> = {};
  for (const [table, columns] of Object.entries(access.tables)) tables[table] = [...columns];
  return {
    tables,
    wholeTables: [...access.wholeTables],
    tablesRead: [...(access.tablesRead ?? [])],
    confidence: access.confidence,
    unresolved: [...access.unresolved],
    errors: [...access.errors],
  };
}

function cacheGet(fingerprint: string, code: string): EhrAgentAccess | undefined {
  const entries = cache.get(fingerprint);
  const hit = entries?.get(code);
  if (hit === undefined || entries === undefined) return undefined;
  // Most recently used goes last.
  entries.delete(code);
  entries.set(code, hit);
  return copyAccess(hit);
}

function cachePut(fingerprint: string, code: string, access: EhrAgentAccess): void {
  if (cacheLimit <= 0) return;
  let entries = cache.get(fingerprint);
  if (!entries) {
    entries = new Map();
    cache.set(fingerprint, entries);
  }
  if (!entries.has(code)) cacheSize++;
  entries.set(code, copyAccess(access));
  while (cacheSize > cacheLimit) evictOne();
}

/** Drops the least recently used answer of the least recently created schema's map. */
function evictOne(): void {
  for (const [fingerprint, entries] of cache) {
    const oldest = entries.keys().next();
    if (!oldest.done) {
      entries.delete(oldest.value);
      cacheSize--;
    }
    if (entries.size === 0) cache.delete(fingerprint);
    return;
  }
  cacheSize = 0;
}

/**
 * Sets how many answers the extraction cache keeps (default 512); 0 turns it off and empties it. For
 * benchmarks that measure the uncached cost, and for callers that never see the same code twice.
 */
export function configureEhrAgentCache(options: { maxEntries: number }): void {
  const limit = Number.isFinite(options.maxEntries) ? Math.max(0, Math.floor(options.maxEntries)) : 0;
  cacheLimit = limit;
  while (cacheSize > cacheLimit) evictOne();
  if (cacheLimit === 0) cache.clear();
}

// ------------------------------------------------------------------ extraction

/** Longer code is undetermined (fails closed) rather than read: the analysis is linear but not free. */
export const MAX_CODE_LENGTH = 128 * 1024;

/** Tables and columns read by EHRAgent code. `schema` defaults to the eICU schema of EICU-AC. */
export function extractEhrAgentAccess(options: { code: string; schema?: DatabaseSchema }): EhrAgentAccess {
  const given: { code?: unknown; schema?: unknown } =
    typeof options === "object" && options !== null ? options : {};
  // A typeof check, not a zod schema: this runs on every check, and the only field is one string.
  if (typeof given.code !== "string") return failed(["code: expected the generated code as a string"]);
  let schema: DatabaseSchema = EICU_SCHEMA;
  // A schema normalizeSchema already produced (a compiled policy's) is not validated again per check.
  if (given.schema !== undefined && isNormalizedSchema(given.schema)) {
    schema = given.schema;
  } else if (given.schema !== undefined) {
    try {
      schema = normalizeSchema({ schema: given.schema });
    } catch (error) {
      return failed([toWardenError({ error }).message]);
    }
  }
  const code = given.code;
  if (code.length > MAX_CODE_LENGTH) {
    // Agent code for a query is a few kilobytes; analysing megabytes would hold the check for seconds.
    return failed([`code: longer than ${MAX_CODE_LENGTH} characters, so it is not analysed`]);
  }
  // /\S/ finds what trim() would keep, without copying the code (a first character above " " that is
  // not white space answers at once: the usual case).
  const first = code.charCodeAt(0);
  if (!(first > 32 && first < 127) && !/\S/.test(code)) return failed(["code: the generated code is empty"]);
  const fingerprint = cacheLimit > 0 ? schemaFingerprint(schema) : "";
  if (cacheLimit > 0) {
    const hit = cacheGet(fingerprint, code);
    if (hit) return hit;
  }
  const access = analyse(code, schema);
  if (cacheLimit > 0) cachePut(fingerprint, code, access);
  return access;
}

function analyse(code: string, schema: DatabaseSchema): EhrAgentAccess {
  let module: ReturnType<typeof parsePython>;
  try {
    module = parsePython({ source: code });
  } catch (error) {
    return failed([
      toWardenError({ error, code: "EXTRACTION_FAILED", message: "the code could not be parsed" }).message,
    ]);
  }
  const result = interpretModule({ module, schema });
  // A table read with no column named is listed with no columns: reading it is still reading it, and
  // an access check denies a role that may not read that table at all.
  const names = [...result.reads.keys()];
  for (const table of result.tablesRead) if (!result.reads.has(table)) names.push(table);
  const tables: Record<string, string[]> = {};
  for (const table of sortStrings(names)) {
    const columns = result.reads.get(table);
    tables[table] = columns ? sortedStrings(columns) : [];
  }
  return {
    tables,
    wholeTables: sortedStrings(result.wholeTables),
    tablesRead: sortedStrings(result.tablesRead),
    confidence: result.errors.length === 0 && result.unresolved.length === 0 ? "high" : "low",
    unresolved: result.unresolved,
    errors: result.errors,
  };
}
