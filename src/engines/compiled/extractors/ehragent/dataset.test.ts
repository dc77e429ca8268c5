/**
 * Runs the extractor over the real EICU-AC development split when it is present (../shared/datasets
 * relative to the repository root) and checks that no disagreement with access_gt is the extractor's
 * fault. Skipped, with the reason in its name, when the data is absent.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { type EicuAcDataset, loadEicuAc } from "../../../../bench/datasets/eicu-ac.js";
import { classifyDisagreement } from "./disagreement.js";
import { type EhrAgentAccess, extractEhrAgentAccess } from "./extract.js";
import { EICU_SCHEMA } from "./schema.js";
import { extractSqlAccess } from "./sql-access.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../..");
const dataDir = resolve(repoRoot, "../shared/datasets/eicu-ac");
const present = existsSync(join(dataDir, "eicu_ac.json"));

describe.skipIf(!present)(
  `EICU-AC development split${present ? "" : ` (skipped: no data at ${dataDir})`}`,
  () => {
    let dataset: EicuAcDataset;
    const extractions = new Map<string, EhrAgentAccess>();

    beforeAll(async () => {
      dataset = await loadEicuAc({ dir: dataDir });
      for (const record of dataset.records) {
        if (!extractions.has(record.questionId)) {
          extractions.set(record.questionId, extractEhrAgentAccess({ code: record.log.lastRunCode ?? "" }));
        }
      }
    });

    it("loads every record and parses every log", () => {
      const raw = JSON.parse(readFileSync(join(dataDir, "eicu_ac.json"), "utf8")) as unknown[];
      expect(dataset.problems).toEqual([]);
      expect(dataset.records).toHaveLength(raw.length);
      expect(new Set(dataset.records.map((r) => r.id)).size).toBe(raw.length);
      for (const record of dataset.records) {
        expect(record.log.warnings, record.id).toEqual([]);
        expect(record.log.lastRunCode, record.id).not.toBeNull();
        expect(record.log.goldAnswers.length, record.id).toBeGreaterThan(0);
        expect(record.subject.output).toContain("\nGenerated code:\n");
      }
    });

    it("has no disagreement with access_gt that is the extractor's fault", () => {
      const faults: string[] = [];
      for (const record of dataset.records) {
        const extraction = extractions.get(record.questionId)!;
        const disagreements = classifyDisagreement({
          extracted: extraction.tables,
          accessGt: record.accessGt,
          code: record.log.lastRunCode ?? "",
          lastRunCodeFailed: record.log.lastRunCodeFailed,
          extractionErrors: extraction.errors,
          wholeTables: extraction.wholeTables,
        });
        for (const d of disagreements) {
          if (d.cause === "a") faults.push(`${record.id} ${d.kind} ${d.table}.${d.column}: ${d.explanation}`);
        }
      }
      expect(faults).toEqual([]);
    });

    it("explains every low-confidence extraction", () => {
      for (const [questionId, extraction] of extractions) {
        if (extraction.confidence === "low") {
          expect(extraction.unresolved.length + extraction.errors.length, questionId).toBeGreaterThan(0);
        }
      }
    });

    it("parses every gold SQL query without unresolved names", () => {
      for (const record of dataset.records) {
        if (record.query === null) continue;
        const access = extractSqlAccess({ sql: record.query, schema: EICU_SCHEMA });
        expect({ id: record.id, errors: access.errors, unresolved: access.unresolved }).toEqual({
          id: record.id,
          errors: [],
          unresolved: [],
        });
      }
    });
  },
);
