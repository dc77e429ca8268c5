/** `warden bench compare a/ b/`: how two runs differ — metrics, cost, and the cases whose verdict changed. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { WardenError } from "../core/errors.js";
import type { BenchRow, BenchSummary } from "./bench-types.js";

function readRun(dir: string): { summary: BenchSummary; rows: Map<string, BenchRow> } {
  const summaryPath = join(dir, "summary.json");
  if (!existsSync(summaryPath)) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `${dir} has no summary.json (is it a benchmark --out directory?)`,
    });
  }
  const summary = JSON.parse(readFileSync(summaryPath, "utf8")) as BenchSummary;
  const rows = new Map<string, BenchRow>();
  const resultsPath = join(dir, "results.jsonl");
  if (existsSync(resultsPath)) {
    for (const line of readFileSync(resultsPath, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const row = JSON.parse(line) as BenchRow;
      rows.set(row.id, row);
    }
  }
  return { summary, rows };
}

export interface RunComparison {
  a: BenchSummary;
  b: BenchSummary;
  metrics: { name: string; a: number | null; b: number | null; delta: number | null }[];
  changed: { id: string; label: number; a: number; b: number }[];
}

export function compareRuns(options: { a: string; b: string }): RunComparison {
  const a = readRun(options.a);
  const b = readRun(options.b);
  const names = [...new Set([...Object.keys(a.summary.metrics), ...Object.keys(b.summary.metrics)])];
  const metrics = [
    ...names.map((name) => {
      const x = a.summary.metrics[name] ?? null;
      const y = b.summary.metrics[name] ?? null;
      return { name, a: x, b: y, delta: x === null || y === null ? null : Math.round((y - x) * 100) / 100 };
    }),
    {
      name: "llmCallsPerCheck",
      a: a.summary.cost.llmCallsPerCheck,
      b: b.summary.cost.llmCallsPerCheck,
      delta: Math.round((b.summary.cost.llmCallsPerCheck - a.summary.cost.llmCallsPerCheck) * 1000) / 1000,
    },
    {
      name: "msPerCheck.p50",
      a: a.summary.cost.msPerCheck.p50,
      b: b.summary.cost.msPerCheck.p50,
      delta: Math.round((b.summary.cost.msPerCheck.p50 - a.summary.cost.msPerCheck.p50) * 1000) / 1000,
    },
  ];
  const changed: RunComparison["changed"] = [];
  for (const [id, rowA] of a.rows) {
    const rowB = b.rows.get(id);
    if (rowB && rowB.predicted !== rowA.predicted)
      changed.push({ id, label: rowA.label, a: rowA.predicted, b: rowB.predicted });
  }
  return { a: a.summary, b: b.summary, metrics, changed };
}

export function formatComparison(c: RunComparison): string {
  const lines = [
    `A: ${c.a.dataset} / ${c.a.engine} / ${c.a.model ?? "no model"} (n=${c.a.n})`,
    `B: ${c.b.dataset} / ${c.b.engine} / ${c.b.model ?? "no model"} (n=${c.b.n})`,
    "",
    "metric              A          B          B - A",
    ...c.metrics.map(
      (m) =>
        `${m.name.padEnd(18)} ${String(m.a ?? "–").padStart(9)} ${String(m.b ?? "–").padStart(10)} ${(m.delta === null ? "–" : (m.delta > 0 ? "+" : "") + m.delta).padStart(10)}`,
    ),
    "",
    c.changed.length === 0
      ? "No case changed its predicted label."
      : `${c.changed.length} case(s) changed their predicted label:\n${c.changed
          .slice(0, 50)
          .map(
            (x) =>
              `  ${x.id}: truth ${x.label}, A ${x.a} -> B ${x.b}${x.b === x.label ? " (fixed)" : x.a === x.label ? " (broken)" : ""}`,
          )
          .join("\n")}`,
  ];
  return lines.join("\n");
}
