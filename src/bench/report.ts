/**
 * report.md for one benchmark run: our figures beside the papers' (each with the model that produced
 * it), the per-group breakdown (Table 3), executable rates (Table 4), cost, every disagreement with the
 * ground truth and its cause, failures by id — plus metrics.svg.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { RISK_LEVELS } from "../core/risk.js";
import { anchorsFor } from "./anchors.js";
import type { BenchmarkOptions, BenchmarkResult, BenchRow } from "./bench-types.js";
import { guardMetricsByGroup } from "./metrics.js";
import { runInfo } from "./run-info.js";
import { barChart } from "./svg-chart.js";

const METRICS = ["LPA", "LPP", "LPR", "CCA", "FRA"] as const;

function cell(value: number | undefined): string {
  return value === undefined ? "–" : value.toFixed(1);
}

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function disagreementSection(rows: readonly BenchRow[]): string {
  const items: string[][] = [];
  for (const r of rows) {
    const list = (r.notes?.disagreements ?? []) as {
      table: string;
      column: string;
      kind: string;
      cause: string;
      explanation: string;
    }[];
    for (const d of list) {
      items.push([
        r.id,
        String(r.label),
        String(r.predicted),
        `${d.table}.${d.column}`,
        d.kind,
        d.cause,
        escapeCell(d.explanation),
      ]);
    }
  }
  if (items.length === 0) return "";
  const byCause = new Map<string, number>();
  for (const i of items) byCause.set(i[5]!, (byCause.get(i[5]!) ?? 0) + 1);
  const causeNames: Record<string, string> = {
    a: "(a) our extraction is wrong",
    b: "(b) the annotation lists a column the code never reads",
    c: "(c) the annotation omits a column the code reads",
    d: "(d) other",
  };
  return `## Disagreements between the extracted facts and the hand annotation (access_gt)

Every column on which the tables/columns our extractor read from the agent's last-run code differ from the
dataset's hand annotation, with its cause. Causes: ${[...byCause.entries()]
    .map(([c, n]) => `${causeNames[c] ?? c}: ${n}`)
    .join("; ")}. Cause (b) cannot be fixed by a faithful extractor and is left as it is.

${table(["record", "label", "predicted", "column", "kind", "cause", "explanation"], items)}
`;
}

/** GuardAgent App. N, Table 10: the recall of each true risk level, and the cases each level missed. */
function riskSection(result: BenchmarkResult): string {
  const recall = result.summary.riskRecall;
  if (!recall) return "";
  const levels = RISK_LEVELS.filter((l) => recall[l]);
  const misses = result.rows.filter((r) => r.risk && r.risk.truth !== r.risk.predicted);
  return `## Recall by risk level (GuardAgent App. N, Table 10)

The risk level is the number of violated rules: none (0), low (1), medium (2), high (3), very high (4
or more). For each true level: the cases whose Decision has that level.

${table(
  ["", ...levels],
  [
    ["cases", ...levels.map((l) => String(recall[l]!.n))],
    ["recall", ...levels.map((l) => `${recall[l]!.correct}/${recall[l]!.n} (${cell(recall[l]!.recall)})`)],
  ],
)}
${
  misses.length
    ? `\n${table(
        ["case", "true level", "Decision's level", "violated rules reported"],
        misses
          .slice(0, 100)
          .map((r) => [
            r.id,
            r.risk!.truth,
            r.risk!.predicted ?? "none given",
            escapeCell(r.violations.map((v) => v.ruleId).join(", ") || "–"),
          ]),
      )}\n`
    : ""
}
`;
}

function fraMisses(rows: readonly BenchRow[]): string {
  const misses = rows.filter((r) => r.label === 0 && r.predicted === 0 && r.answerCorrect === false);
  if (misses.length === 0) return "";
  return `## Allowed cases whose answer does not match the gold answer (FRA misses)

The guard allowed these and passed the agent's own answer through; it differs from the dataset's gold
answer, so FRA does not count them.

${table(
  ["case", "guard-railed answer"],
  misses.map((r) => [r.id, escapeCell(JSON.stringify(r.output ?? null).slice(0, 200))]),
)}

`;
}

export function writeReport(options: {
  dir: string;
  result: BenchmarkResult;
  options: BenchmarkOptions;
}): void {
  const { result, dir } = options;
  const o = options.options;
  const s = result.summary;
  const info = runInfo();
  const anchors = anchorsFor({ dataset: s.dataset });
  const ours = `Warden ${s.engine} (this run)`;
  const model = s.model ?? "none";
  const perCheck =
    s.cost.msPerCheck.p50 >= 1000
      ? `${(s.cost.msPerCheck.p50 / 1000).toFixed(1)} s`
      : `${s.cost.msPerCheck.p50} ms`;
  const metricRows: string[][] = [
    [ours, model, ...METRICS.map((m) => cell(s.metrics[m])), String(s.cost.llmCallsPerCheck), perCheck],
    ...anchors
      .filter((a) => METRICS.some((m) => a.metrics[m] !== undefined))
      .map((a) => [
        `${a.method} (${a.paper}, ${a.table})`,
        a.model,
        ...METRICS.map((m) => cell(a.metrics[m])),
        "–",
        a.metrics.secondsPerCheck ? `${a.metrics.secondsPerCheck} s` : "–",
      ]),
  ];
  const groups = guardMetricsByGroup({ predictions: result.rows });
  const groupRows = Object.entries(groups).map(([g, m]) => [
    escapeCell(g),
    String(m.n),
    cell(m.LPA),
    cell(m.LPR),
    cell(m.CCA),
    cell(m.FRA),
  ]);
  const failures = s.failures.slice(0, 200).map((f) => [f.id, f.code, escapeCell(f.message)]);
  const er =
    s.metrics.ERBefore !== undefined
      ? `## Executable rate of the guardrail code (Table 4)

| | ER before debugging | ER after debugging | LPA |
| --- | --- | --- | --- |
| ${ours} | ${cell(s.metrics.ERBefore)} | ${cell(s.metrics.ERAfter)} | ${cell(s.metrics.LPA)} |
${anchors
  .filter((a) => a.metrics.ERBefore !== undefined)
  .map(
    (a) =>
      `| ${a.method} (${a.paper}, ${a.model}) | ${cell(a.metrics.ERBefore)} | ${cell(a.metrics.ERAfter)} | ${cell(a.metrics.LPA)} |`,
  )
  .join("\n")}
`
      : "";
  const md = `# Warden benchmark: ${s.dataset} — engine ${s.engine}

- Data: ${result.loaded.source} — ${s.n} cases${result.loaded.problems.length ? `; ${result.loaded.problems.length} records could not be used (listed below)` : ""}${result.resumed ? `; ${result.resumed} results resumed from an earlier run` : ""}${result.interrupted ? "; **the run was interrupted: results are partial**" : ""}
- Engine: ${s.engine}; model: ${model}${s.model ? "" : " (no model: 0 LLM calls)"}${o.shots !== undefined ? `; demonstrations k = ${o.shots}` : ""}${o.retrieval ? `; retrieval: ${o.retrieval}-similar` : ""}${o.toolbox === false ? "; toolbox removed" : ""}${o.memory === false ? "; memory removed" : ""}
${result.learning ? `- Memory: ${result.learning}.\n` : ""}- Run: ${info.date} on ${info.cpu} (${info.cores} cores, ${info.memoryGb} GB), Node ${info.node}, commit ${info.commit ?? "unknown"}${info.dirty ? " (with uncommitted changes)" : ""}
${o.note ? `- Note: **${o.note}**\n` : ""}
## Results beside the papers' reported figures

Our row is measured by this run. The others are the papers' reported numbers with the model that produced
them; they were not reproduced here${s.model ? "" : " (reproducing them needs those models)"}.

${table(["method", "model", ...METRICS, "LLM calls / check", "time / check (p50)"], metricRows)}

Cost of this run: ${s.cost.llmCalls} LLM calls (${s.cost.llmCallsPerCheck} per check), ${s.cost.inputTokens} input and ${s.cost.outputTokens} output tokens${s.metrics.promptWordsPerCheck !== undefined ? `, ${s.metrics.promptWordsPerCheck} prompt words per check (Table 9)` : ""}; time per check p50 ${s.cost.msPerCheck.p50} ms, p95 ${s.cost.msPerCheck.p95} ms.

![metrics](metrics.svg)

## Breakdown by ${s.dataset === "eicu-ac" ? "role" : "group"} (Table 3)

${groupRows.length ? table(["group", "n", "LPA", "LPR", "CCA", "FRA"], groupRows) : "(no groups)"}

${er}
${riskSection(result)}
${disagreementSection(result.rows)}
${fraMisses(result.rows)}## Failures

${failures.length ? table(["case", "code", "message"], failures) : "None: every check reached a decision."}
${
  result.loaded.problems.length
    ? `\n## Records that could not be used\n\n${table(
        ["record", "problem"],
        result.loaded.problems.map((p) => [p.id ?? "?", escapeCell(p.message)]),
      )}\n`
    : ""
}`;
  writeFileSync(join(dir, "report.md"), md);
  const paper = anchors.find((a) => METRICS.some((m) => a.metrics[m] !== undefined));
  writeFileSync(
    join(dir, "metrics.svg"),
    barChart({
      title: `${s.dataset}: Warden ${s.engine} vs the paper`,
      ...(o.note ? { subtitle: o.note } : {}),
      xLabel: "metric",
      yLabel: "%",
      groups: METRICS.map((m) => ({
        label: m,
        bars: [
          { name: `Warden ${s.engine}`, value: s.metrics[m] ?? 0 },
          ...(paper && paper.metrics[m] !== undefined
            ? [{ name: `${paper.method} (${paper.model})`, value: paper.metrics[m] }]
            : []),
        ],
      })),
    }),
  );
}
