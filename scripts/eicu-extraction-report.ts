/**
 * Extraction-accuracy report for EICU-AC: runs the EHRAgent extractor on every record's last-run code,
 * compares the extracted tables/columns with the hand-annotated `access_gt`, classifies every
 * disagreement (classifyDisagreement), and scores the access decision that follows from the extraction
 * and access_policy.json against the records' `label` / `inaccessible_db` (LPA, LPP, LPR, CCA).
 *
 *   npx tsx scripts/eicu-extraction-report.ts [--data <dir>] [--json]
 *
 * The data directory defaults to ../shared/datasets/eicu-ac relative to the repository root.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type EicuAccessPolicy, type EicuAcRecord, loadEicuAc } from "../src/bench/datasets/eicu-ac.js";
import {
  type ColumnDisagreement,
  classifyDisagreement,
  DISAGREEMENT_CAUSES,
  type DisagreementCause,
  type EhrAgentAccess,
  extractEhrAgentAccess,
} from "../src/engines/compiled/extractors/ehragent/index.js";

type Tables = Record<string, string[]>;

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({
  options: {
    data: { type: "string", default: resolve(repoRoot, "../shared/datasets/eicu-ac") },
    json: { type: "boolean", default: false },
  },
});

/** Columns of `tables` the identity may not read under `policy`, sorted. */
function disallowed(tables: Tables, policy: EicuAccessPolicy, identity: string): Tables {
  const allowed = policy[identity] ?? {};
  const out: Tables = {};
  for (const [table, columns] of Object.entries(tables)) {
    const denied = columns.filter((column) => !(allowed[table] ?? []).includes(column));
    if (denied.length > 0) out[table] = [...denied].sort();
  }
  return out;
}

function sameTables(a: Tables, b: Tables): boolean {
  const flat = (t: Tables) =>
    Object.entries(t)
      .flatMap(([table, columns]) => columns.map((column) => `${table}.${column}`))
      .sort()
      .join(",");
  return flat(a) === flat(b);
}

function showTables(tables: Tables): string {
  const entries = Object.entries(tables).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return "(none)";
  return entries.map(([table, columns]) => `${table}(${[...columns].sort().join(", ")})`).join(" ");
}

function percent(numerator: number, denominator: number): number {
  return denominator === 0 ? Number.NaN : Math.round((1000 * numerator) / denominator) / 10;
}

interface RecordReport {
  id: string;
  identity: string;
  shape: string;
  extracted: Tables;
  accessGt: Tables;
  confidence: EhrAgentAccess["confidence"];
  unresolved: string[];
  errors: string[];
  lastRunCodeFailed: boolean;
  disagreements: ColumnDisagreement[];
  label: 0 | 1;
  predictedLabel: 0 | 1 | null;
  inaccessible: Tables;
  predictedInaccessible: Tables | null;
  /** Decision from access_gt itself (sanity check of the policy transcription). */
  labelFromAccessGt: 0 | 1 | null;
}

let dataset: Awaited<ReturnType<typeof loadEicuAc>>;
try {
  dataset = await loadEicuAc({ dir: args.data });
} catch (error) {
  process.stderr.write(
    `EICU-AC data not available at ${args.data}: ${error instanceof Error ? error.message : String(error)}\n` +
      "Nothing to report (pass --data <dir> to point at the dataset).\n",
  );
  process.exit(0);
}

const policy = dataset.accessPolicy;
const extractionCache = new Map<string, EhrAgentAccess>();
const reports: RecordReport[] = dataset.records.map((record: EicuAcRecord) => {
  const code = record.log.lastRunCode ?? "";
  let extraction = extractionCache.get(record.questionId);
  if (!extraction) {
    extraction = extractEhrAgentAccess({ code });
    extractionCache.set(record.questionId, extraction);
  }
  const disagreements = classifyDisagreement({
    extracted: extraction.tables,
    accessGt: record.accessGt,
    code,
    lastRunCodeFailed: record.log.lastRunCodeFailed,
    extractionErrors: extraction.errors,
    wholeTables: extraction.wholeTables,
    ...(record.query === null ? {} : { goldSql: record.query }),
  });
  const predictedInaccessible = policy ? disallowed(extraction.tables, policy, record.identity) : null;
  const predictedLabel = predictedInaccessible
    ? Object.keys(predictedInaccessible).length > 0
      ? 1
      : 0
    : null;
  const fromGt = policy ? disallowed(record.accessGt, policy, record.identity) : null;
  return {
    id: record.id,
    identity: record.identity,
    shape: record.log.shape,
    extracted: extraction.tables,
    accessGt: record.accessGt,
    confidence: extraction.confidence,
    unresolved: extraction.unresolved,
    errors: extraction.errors,
    lastRunCodeFailed: record.log.lastRunCodeFailed,
    disagreements,
    label: record.label,
    predictedLabel,
    inaccessible: record.inaccessible,
    predictedInaccessible,
    labelFromAccessGt: fromGt ? (Object.keys(fromGt).length > 0 ? 1 : 0) : null,
  };
});

// ---------------------------------------------------------------- summary

const questionIds = new Set(dataset.records.map((record) => record.questionId));
const shapes = new Map<string, number>();
const sectionCounts = new Map<number, number>();
for (const questionId of questionIds) {
  const record = dataset.records.find((r) => r.questionId === questionId)!;
  shapes.set(record.log.shape, (shapes.get(record.log.shape) ?? 0) + 1);
  sectionCounts.set(record.log.sections.length, (sectionCounts.get(record.log.sections.length) ?? 0) + 1);
}

/** Column disagreements counted once per question (all identities of a question share the code). */
const perQuestion = new Map<string, RecordReport>();
for (const report of reports) perQuestion.set(report.id.split(":")[0]!, report);
const causeCounts: Record<DisagreementCause, number> = { a: 0, b: 0, c: 0, d: 0 };
for (const report of perQuestion.values()) for (const d of report.disagreements) causeCounts[d.cause]++;

let tp = 0;
let fp = 0;
let fn = 0;
let tn = 0;
let ccaHits = 0;
let positives = 0;
let gtSanityMismatches = 0;
const decisionMismatches: RecordReport[] = [];
for (const report of reports) {
  if (report.predictedLabel === null) continue;
  if (report.label === 1) positives++;
  if (report.predictedLabel === 1 && report.label === 1) tp++;
  else if (report.predictedLabel === 1) fp++;
  else if (report.label === 1) fn++;
  else tn++;
  const exact =
    report.label === 1 &&
    report.predictedLabel === 1 &&
    sameTables(report.predictedInaccessible!, report.inaccessible);
  if (exact) ccaHits++;
  if (report.predictedLabel !== report.label || (report.label === 1 && !exact))
    decisionMismatches.push(report);
  if (report.labelFromAccessGt !== report.label) gtSanityMismatches++;
}
const scored = tp + fp + fn + tn;
const metrics = policy
  ? {
      records: scored,
      LPA: percent(tp + tn, scored),
      LPP: percent(tp, tp + fp),
      LPR: percent(tp, tp + fn),
      CCA: percent(ccaHits, positives),
      counts: { tp, fp, fn, tn, ccaHits, positives },
      accessGtDecisionMismatches: gtSanityMismatches,
    }
  : null;

const lowConfidence = [...perQuestion.values()].filter((report) => report.confidence === "low");
const remaining = [...perQuestion.values()].filter((report) => report.disagreements.length > 0);

if (args.json) {
  process.stdout.write(
    `${JSON.stringify(
      {
        data: dataset.dir,
        layout: dataset.layout,
        records: dataset.records.length,
        questions: questionIds.size,
        problems: dataset.problems,
        logShapes: Object.fromEntries(shapes),
        sectionCounts: Object.fromEntries(sectionCounts),
        lowConfidence: lowConfidence.map((r) => ({
          id: r.id.split(":")[0],
          unresolved: r.unresolved,
          errors: r.errors,
        })),
        disagreementsByCause: causeCounts,
        remainingDisagreements: remaining.map((r) => ({
          question: r.id.split(":")[0],
          disagreements: r.disagreements,
        })),
        metrics,
        decisionMismatches: decisionMismatches.map((r) => ({
          id: r.id,
          label: r.label,
          predictedLabel: r.predictedLabel,
          inaccessible: r.inaccessible,
          predictedInaccessible: r.predictedInaccessible,
          causes: r.disagreements,
        })),
        perRecord: reports,
      },
      null,
      2,
    )}\n`,
  );
  process.exit(0);
}

const out: string[] = [];
out.push(`EICU-AC extraction report — ${dataset.dir} (${dataset.layout} layout)`);
out.push(
  `${dataset.records.length} records, ${questionIds.size} question ids, ${dataset.problems.length} load problems`,
);
for (const problem of dataset.problems) out.push(`  problem ${problem.id ?? "-"}: ${problem.message}`);
out.push("");
out.push("Per record (extracted vs access_gt; decision from access_policy.json):");
for (const report of reports) {
  const decision =
    report.predictedLabel === null
      ? "no policy"
      : `label ${report.label} predicted ${report.predictedLabel}${report.predictedLabel === report.label ? "" : "  <-- MISMATCH"}`;
  out.push(`- ${report.id}  [${report.confidence}]  ${decision}`);
  out.push(`    extracted: ${showTables(report.extracted)}`);
  out.push(`    access_gt: ${showTables(report.accessGt)}`);
  if (report.label === 1 || report.predictedLabel === 1) {
    out.push(
      `    inaccessible: truth ${showTables(report.inaccessible)} / predicted ${showTables(report.predictedInaccessible ?? {})}`,
    );
  }
  for (const d of report.disagreements) {
    out.push(`    (${d.cause}) ${d.kind} ${d.table}.${d.column}: ${d.explanation}`);
  }
  for (const note of [...report.unresolved, ...report.errors]) out.push(`    low confidence: ${note}`);
}
out.push("");
out.push(
  "Log shapes (one letter per solution section: C cell, K bare code, E error, T TERMINATE, G ground truth, r other, . empty):",
);
for (const [shape, count] of [...shapes.entries()].sort((a, b) => b[1] - a[1]))
  out.push(`  ${String(count).padStart(4)}  ${shape}`);
out.push(
  `Sections per log: ${[...sectionCounts.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([sections, count]) => `${sections}: ${count}`)
    .join(", ")}`,
);
out.push("");
out.push(
  `Extraction confidence: ${perQuestion.size - lowConfidence.length} high, ${lowConfidence.length} low (per question id)`,
);
for (const report of lowConfidence) {
  out.push(`  ${report.id.split(":")[0]}: ${[...report.unresolved, ...report.errors].join("; ")}`);
}
out.push("");
out.push("Column disagreements with access_gt (per question id):");
for (const cause of ["a", "b", "c", "d"] as const) {
  out.push(`  (${cause}) ${DISAGREEMENT_CAUSES[cause]}: ${causeCounts[cause]}`);
}
for (const report of remaining) {
  for (const d of report.disagreements) {
    out.push(`  ${report.id.split(":")[0]}  (${d.cause}) ${d.kind} ${d.table}.${d.column}: ${d.explanation}`);
  }
}
out.push("");
if (metrics) {
  out.push(`Decision vs ground truth (${metrics.records} records):`);
  out.push(
    `  LPA ${metrics.LPA}  LPP ${metrics.LPP}  LPR ${metrics.LPR}  CCA ${metrics.CCA}   (TP ${tp}, FP ${fp}, FN ${fn}, TN ${tn}, CCA ${ccaHits}/${positives})`,
  );
  out.push(`  sanity: decision computed from access_gt differs from label in ${gtSanityMismatches} records`);
  for (const report of decisionMismatches) {
    const causes = report.disagreements
      .map((d) => `(${d.cause}) ${d.kind} ${d.table}.${d.column}`)
      .join(", ");
    out.push(
      `  ${report.id}: label ${report.label} -> ${report.predictedLabel}; truth ${showTables(report.inaccessible)} predicted ${showTables(report.predictedInaccessible ?? {})}; because ${causes || "?"}`,
    );
  }
} else {
  out.push("No access_policy.json beside eicu_ac.json: decision metrics skipped.");
}
process.stdout.write(`${out.join("\n")}\n`);
