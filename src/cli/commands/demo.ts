/**
 * `warden demo` (what `npm start` runs): the bundled example records through the default engine, no
 * model, no network — a table on stdout and a Markdown report. `--data <eicu-ac dir>` runs the real
 * EICU-AC benchmark with the compiled engine instead.
 */
import type { Command } from "commander";
import { runBenchmark } from "../../bench/run-benchmark.js";
import { formatDemoTable, runDemo, writeDemoReport } from "../../demo/run-demo.js";
import { namingPathOptions } from "../system-errors.js";
import { formatSummary } from "./bench.js";

export function registerDemoCommand(options: { program: Command }): void {
  options.program
    .command("demo")
    .description(
      "Guard the bundled example agent records with no model (or the real EICU-AC set with --data)",
    )
    .option("--data <dir>", "run the real EICU-AC benchmark from this directory instead")
    .option("--report <path>", "where to write the Markdown report", "out/demo/report.md")
    .option("--json", "print the decisions as JSON")
    .action((raw: { data?: string; report: string; json?: boolean }) =>
      namingPathOptions({
        paths: { "--report": raw.report, "--data": raw.data },
        run: () => runDemoCommand(raw),
      }),
    );
}

async function runDemoCommand(raw: { data?: string; report: string; json?: boolean }): Promise<void> {
  if (raw.data) {
    const out = raw.report.replace(/\/?[^/]*\.md$/, "") || "out/demo";
    const result = await runBenchmark({
      dataset: "eicu-ac",
      data: raw.data,
      engine: "compiled",
      out,
      fresh: true,
      progress: true,
    });
    process.stdout.write(
      raw.json
        ? `${JSON.stringify(result.summary)}\n`
        : `${formatSummary(result.summary)}\nreport: ${out}/report.md\n`,
    );
    return;
  }
  const rows = await runDemo();
  writeDemoReport({ rows, path: raw.report });
  if (raw.json) {
    process.stdout.write(
      `${JSON.stringify(
        rows.map((r) => ({ id: r.record.id, decision: r.decision })),
        null,
        2,
      )}\n`,
    );
    return;
  }
  const agree = rows.filter((r) => r.matchesExpected).length;
  process.stdout.write(
    `Warden demo: ${rows.length} example agent records guarded by the compiled engine (no model, no network)\n\n${formatDemoTable({ rows, width: process.stdout.columns || 150 })}\n\n${agree}/${rows.length} decided as expected; 0 LLM calls. Report: ${raw.report}\n`,
  );
  if (agree !== rows.length) process.exitCode = 1;
}
