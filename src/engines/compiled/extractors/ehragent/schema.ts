/**
 * The database schema the extractor resolves names against: table -> columns. The default is the eICU
 * schema EHRAgent queries in EICU-AC (the columns of Fig. 5 of the GuardAgent paper plus each table's
 * row id, e.g. `labid`, which EHRAgent's database exposes and some questions ask for).
 */
import { z } from "zod";
import { parseWith } from "../../../../core/validate.js";

/** Table name -> its column names, all lower case. */
export type DatabaseSchema = Readonly<Record<string, readonly string[]>>;

export const EICU_SCHEMA: DatabaseSchema = {
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
};

const SchemaInputSchema = z.record(z.string().min(1), z.array(z.string().min(1)));

/** Validates a caller-supplied schema and lower-cases every name (EHRAgent's tools are case-insensitive). */
export function normalizeSchema(options: { schema: unknown }): DatabaseSchema {
  const parsed = parseWith({
    schema: SchemaInputSchema,
    value: options.schema,
    what: "database schema",
    path: "schema",
  });
  const out: Record<string, string[]> = {};
  for (const [table, columns] of Object.entries(parsed)) {
    out[table.toLowerCase()] = [...new Set(columns.map((column) => column.toLowerCase()))];
  }
  return out;
}
