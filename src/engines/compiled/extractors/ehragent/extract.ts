/**
 * The EHRAgent fact extractor: from the Python code EHRAgent generated, the tables and columns it reads.
 * The fast path (fast-path.ts) reads the shapes EHRAgent writes most in one pass; anything else is parsed
 * (py-parser.ts) and run through the abstract interpreter (interpreter.ts) against the database schema,
 * with the same answer either way. Confidence is "high" only when the code parsed and every read was
 * resolved; otherwise "low", so that an `auto` engine can fall back to a model. Never throws.
 */
import { toWardenError } from "../../../../core/errors.js";
import { fastEhrAgentAccess } from "./fast-path.js";
import { interpretModule } from "./interpreter.js";
import { parsePython } from "./py-parser.js";
import { type DatabaseSchema, EICU_SCHEMA, isNormalizedSchema, normalizeSchema } from "./schema.js";

export interface EhrAgentAccess {
  /** table -> columns the code reads, both sorted, each column once. */
  tables: Record<string, string[]>;
  /**
   * Tables whose every column the code exposes (a whole DataFrame printed or left in `answer`, SQL
   * `select *`); their columns are all in `tables`. Sorted.
   */
  wholeTables: string[];
  confidence: "high" | "low";
  /** What could not be determined, e.g. a condition built from a value only known at run time. */
  unresolved: string[];
  /** Parse errors and other failures (bad input, SQL the parser rejects, analysis budget). */
  errors: string[];
}

function failed(errors: string[]): EhrAgentAccess {
  return { tables: {}, wholeTables: [], confidence: "low", unresolved: [], errors };
}

/** Tables and columns read by EHRAgent code. `schema` defaults to the eICU schema of EICU-AC. */
export function extractEhrAgentAccess(options: { code: string; schema?: DatabaseSchema }): EhrAgentAccess {
  return extract(options, true);
}

/**
 * The same extraction without the fast path: always the tokenizer, parser and abstract interpreter. For
 * tests and benchmarks that hold the fast path to the general one.
 */
export function extractEhrAgentAccessGeneral(options: {
  code: string;
  schema?: DatabaseSchema;
}): EhrAgentAccess {
  return extract(options, false);
}

function extract(options: { code: string; schema?: DatabaseSchema }, fast: boolean): EhrAgentAccess {
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
  // /\S/ finds what trim() would keep, without copying the code (a first character above " " that is
  // not white space answers at once: the usual case).
  const first = code.charCodeAt(0);
  if (!(first > 32 && first < 127) && !/\S/.test(code)) return failed(["code: the generated code is empty"]);
  if (fast) {
    const quick = fastEhrAgentAccess({ code, schema });
    if (quick !== null) return quick;
  }
  let module: ReturnType<typeof parsePython>;
  try {
    module = parsePython({ source: code });
  } catch (error) {
    return failed([
      toWardenError({ error, code: "EXTRACTION_FAILED", message: "the code could not be parsed" }).message,
    ]);
  }
  const result = interpretModule({ module, schema });
  const tables: Record<string, string[]> = {};
  for (const table of [...result.reads.keys()].sort()) {
    const columns = [...(result.reads.get(table) ?? [])].sort();
    if (columns.length > 0) tables[table] = columns;
  }
  return {
    tables,
    wholeTables: [...result.wholeTables].sort(),
    confidence: result.errors.length === 0 && result.unresolved.length === 0 ? "high" : "low",
    unresolved: result.unresolved,
    errors: result.errors,
  };
}
