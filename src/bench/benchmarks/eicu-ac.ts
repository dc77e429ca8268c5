/**
 * EICU-AC (GuardAgent's access-control benchmark) with EHRAgent's real logs, checked against the
 * bundled eicu-ac policy. Rows also carry, for every record, how the facts the compiled engine extracted
 * differ from the hand annotation (`access_gt`) and why — our extraction, or the annotation counting
 * more than the code reads.
 */
import type { Decision } from "../../core/decision.js";
import { classifyDisagreement } from "../../engines/compiled/extractors/ehragent/index.js";
import { loadPolicy } from "../../policies/load-policy.js";
import type { BenchCase, BenchRow, LoadedBenchmark } from "../bench-types.js";
import { loadEicuAc } from "../datasets/eicu-ac.js";

export async function loadEicuAcBenchmark(options: { data: string }): Promise<LoadedBenchmark> {
  const dataset = await loadEicuAc({ dir: options.data });
  const cases: BenchCase[] = dataset.records.map((r) => ({
    id: r.id,
    subject: r.subject,
    group: r.identity,
    truth: { label: r.label, inaccessible: r.inaccessible, answer: r.answer },
    extra: {
      accessGt: r.accessGt,
      code: r.log.lastRunCode ?? "",
      lastRunCodeFailed: r.log.lastRunCodeFailed,
      goldSql: r.query ?? undefined,
    },
  }));
  return {
    cases,
    policy: loadPolicy({ ref: "eicu-ac" }).policy,
    problems: dataset.problems.map((p) => ({ id: p.id, message: p.message })),
    source: dataset.dir,
  };
}

/** Adds the extraction-vs-annotation analysis to a row when the decision carries extracted facts. */
export function annotateEicuRow(options: { row: BenchRow; case: BenchCase; decision: Decision }): BenchRow {
  const resources = options.decision.trace?.facts?.resources as Record<string, string[]> | undefined;
  const extra = options.case.extra ?? {};
  if (!resources) return options.row;
  const disagreements = classifyDisagreement({
    extracted: resources,
    accessGt: extra.accessGt as Record<string, string[]>,
    code: String(extra.code ?? ""),
    ...(extra.lastRunCodeFailed ? { lastRunCodeFailed: true } : {}),
    ...(typeof extra.goldSql === "string" ? { goldSql: extra.goldSql } : {}),
  });
  if (disagreements.length === 0) return options.row;
  return { ...options.row, notes: { ...options.row.notes, disagreements } };
}
