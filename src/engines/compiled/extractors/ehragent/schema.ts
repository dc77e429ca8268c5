/**
 * The database schema the extractor resolves names against: table -> columns. The default is the eICU
 * schema EHRAgent queries in EICU-AC (the columns of Fig. 5 of the GuardAgent paper plus each table's
 * row id, e.g. `labid`, which EHRAgent's database exposes and some questions ask for).
 */
import { z } from "zod";
import { parseWith } from "../../../../core/validate.js";

/** Table name -> its column names, all lower case. */
export type DatabaseSchema = Readonly<Record<string, readonly string[]>>;

/** Schemas produced by normalizeSchema (and the built-in one): frozen, so they can be trusted as they are. */
const normalized = new WeakSet<object>();

/** True for a schema normalizeSchema returned (or EICU_SCHEMA): valid, lower case, frozen. */
export function isNormalizedSchema(schema: unknown): schema is DatabaseSchema {
  return typeof schema === "object" && schema !== null && normalized.has(schema);
}

const columnSetCache = new WeakMap<object, ReadonlyMap<string, ReadonlySet<string>>>();

/**
 * Each table's columns as a Set, for membership tests. Built once for a normalized (frozen) schema and
 * kept beside it; any other schema object may change between calls, so it gets a fresh index.
 */
export function schemaColumnSets(options: {
  schema: DatabaseSchema;
}): ReadonlyMap<string, ReadonlySet<string>> {
  const { schema } = options;
  const cached = columnSetCache.get(schema);
  if (cached) return cached;
  const index = new Map<string, ReadonlySet<string>>();
  for (const table of Object.keys(schema)) index.set(table, new Set(schema[table]));
  if (normalized.has(schema)) columnSetCache.set(schema, index);
  return index;
}

/**
 * A frozen copy with no prototype: code names tables with any text, and a lookup such as
 * `schema["constructor"]` must find nothing rather than a method inherited from Object.prototype.
 */
function freezeSchema(schema: Record<string, string[]>): DatabaseSchema {
  const out: Record<string, readonly string[]> = Object.create(null);
  for (const [table, columns] of Object.entries(schema)) out[table] = Object.freeze([...columns]);
  normalized.add(Object.freeze(out));
  return out;
}

export const EICU_SCHEMA: DatabaseSchema = freezeSchema({
  allergy: ["allergyid", "patientunitstayid", "drugname", "allergyname", "allergytime"],
  cost: ["costid", "uniquepid", "patienthealthsystemstayid", "eventtype", "eventid", "chargetime", "cost"],
  diagnosis: ["diagnosisid", "patientunitstayid", "icd9code", "diagnosisname", "diagnosistime"],
  intakeoutput: [
    "intakeoutputid",
    "patientunitstayid",
    "cellpath",
    "celllabel",
    "cellvaluenumeric",
    "intakeoutputtime",
  ],
  lab: ["labid", "patientunitstayid", "labname", "labresult", "labresulttime"],
  medication: [
    "medicationid",
    "patientunitstayid",
    "drugname",
    "dosage",
    "routeadmin",
    "drugstarttime",
    "drugstoptime",
  ],
  microlab: ["microlabid", "patientunitstayid", "culturesite", "organism", "culturetakentime"],
  patient: [
    "patientunitstayid",
    "patienthealthsystemstayid",
    "gender",
    "age",
    "ethnicity",
    "hospitalid",
    "wardid",
    "admissionheight",
    "hospitaladmitsource",
    "hospitaldischargestatus",
    "admissionweight",
    "dischargeweight",
    "uniquepid",
    "hospitaladmittime",
    "unitadmittime",
    "unitdischargetime",
    "hospitaldischargetime",
  ],
  treatment: ["treatmentid", "patientunitstayid", "treatmentname", "treatmenttime"],
  vitalperiodic: [
    "vitalperiodicid",
    "patientunitstayid",
    "temperature",
    "sao2",
    "heartrate",
    "respiration",
    "systemicsystolic",
    "systemicdiastolic",
    "systemicmean",
    "observationtime",
  ],
});

const SchemaInputSchema = z.record(z.string().min(1), z.array(z.string().min(1)));

/** Validates a caller-supplied schema and lower-cases every name (EHRAgent's tools are case-insensitive). */
export function normalizeSchema(options: { schema: unknown }): DatabaseSchema {
  const parsed = parseWith({
    schema: SchemaInputSchema,
    value: options.schema,
    what: "database schema",
    path: "schema",
  });
  // No prototype, so a table named "__proto__" is a table like any other.
  const out: Record<string, string[]> = Object.create(null);
  for (const [table, columns] of Object.entries(parsed)) {
    out[table.toLowerCase()] = [...new Set(columns.map((column) => column.toLowerCase()))];
  }
  return freezeSchema(out);
}
