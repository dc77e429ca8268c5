/**
 * `warden policy import st-webagentbench`: compiles ST-WebAgentBench's structured policies into a
 * Warden policy artifact (predicates + LTLf rules, see src/engines/shield/import) and writes it as
 * pretty, key-sorted JSON that diffs cleanly; prints a readable summary, or with --json exactly
 * `{ total, compiled, failed, skipped, decoys, inverted, byEvalType }` — `inverted` lists (count, ids,
 * each one's basis and reason) the policies whose literal reading inverts their intent, skipped unless
 * --inverted evaluator compiles them as the official evaluator reads them; `decoys` counts v1's
 * is_fake_policy entries, never counted as compiled. The release is picked with --dataset-version (the
 * root program already owns --version).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { type Command, Option } from "commander";
import { loadStWebAgentBench } from "../../bench/datasets/st-webagentbench.js";
import { WardenError } from "../../core/errors.js";
import type { StImportReport, StInvertedMode } from "../../engines/shield/import/st-webagentbench.js";
import { importStWebAgentBench } from "../../engines/shield/import/st-webagentbench.js";
import { stableStringify } from "../../util/stable-json.js";

interface ImportOptions {
  data: string;
  output: string;
  datasetVersion?: "latest" | "v1";
  inverted?: StInvertedMode;
  json?: boolean;
}

function summary(report: StImportReport, file: string, output: string): string {
  const lines = [
    `ST-WebAgentBench (${report.version}) from ${file}`,
    `  tasks ${report.tasks}, policies ${report.total}: ${report.compiled} compiled, ${report.failed} failed, ${report.skipped} skipped, ${report.decoys.count} decoys; ${report.predicates} predicates`,
  ];
  if (report.inverted.count > 0) {
    lines.push(
      `  inverted (literal reading forbids what the task or the policy asks for; ${report.inverted.mode === "skip" ? "skipped" : "compiled as the evaluator reads them"}): ${report.inverted.count}`,
      `    ${report.inverted.ids.join(", ")}`,
    );
  }
  const types = Object.keys(report.byEvalType).sort();
  const width = Math.max(...types.map((t) => t.length), 9);
  lines.push(`  ${"eval type".padEnd(width)}  total  compiled  failed  skipped  decoys`);
  for (const t of types) {
    const c = report.byEvalType[t]!;
    lines.push(
      `  ${t.padEnd(width)}  ${String(c.total).padStart(5)}  ${String(c.compiled).padStart(8)}  ${String(c.failed).padStart(6)}  ${String(c.skipped).padStart(7)}  ${String(c.decoys).padStart(6)}`,
    );
  }
  if (report.failures.length > 0) {
    lines.push("  failures:");
    for (const f of report.failures.slice(0, 20))
      lines.push(`    task ${f.taskId} policy ${f.index} (${f.evalType}): ${f.reason}`);
    if (report.failures.length > 20) lines.push(`    ... and ${report.failures.length - 20} more`);
  }
  if (report.malformed.length > 0) {
    lines.push(
      `  malformed records: ${report.malformed
        .map((m) => m.id)
        .slice(0, 10)
        .join(", ")}${report.malformed.length > 10 ? ", ..." : ""}`,
    );
  }
  lines.push(`  wrote ${output}`);
  return `${lines.join("\n")}\n`;
}

async function runImport(options: ImportOptions): Promise<void> {
  const dataset = await loadStWebAgentBench({
    path: options.data,
    ...(options.datasetVersion ? { version: options.datasetVersion } : {}),
  });
  const { policy, report } = importStWebAgentBench({
    tasks: dataset.tasks,
    version: dataset.version,
    ...(options.inverted ? { inverted: options.inverted } : {}),
  });
  report.malformed = [...dataset.malformed];
  const output = resolve(options.output);
  try {
    await mkdir(dirname(output), { recursive: true });
    await writeFile(output, `${stableStringify({ value: policy, indent: 2 })}\n`, "utf8");
  } catch (error) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `output: cannot write ${output}: ${(error as Error).message}`,
      details: { field: "output" },
      cause: error,
    });
  }
  if (options.json) {
    const { total, compiled, failed, skipped, byEvalType } = report;
    const decoys = report.decoys.count;
    const inverted = {
      mode: report.inverted.mode,
      count: report.inverted.count,
      ids: report.inverted.ids,
      policies: report.inverted.policies.map(({ id, basis, values, reason }) => ({
        id,
        basis,
        values,
        reason,
      })),
    };
    process.stdout.write(
      `${JSON.stringify({ total, compiled, failed, skipped, decoys, inverted, byEvalType })}\n`,
    );
  } else {
    process.stdout.write(summary(report, dataset.file, output));
  }
  process.exitCode = 0;
}

/** Adds `import st-webagentbench` under the `policy` command group; returns the `import` group. */
export function registerPolicyImportCommand(options: { policy: Command }): Command {
  const group =
    options.policy.commands.find((c) => c.name() === "import") ??
    options.policy
      .command("import")
      .description("compile a benchmark's or a document's policies into a Warden policy artifact");
  group
    .command("st-webagentbench")
    .description("compile ST-WebAgentBench's structured policies into predicates and LTLf rules")
    .requiredOption(
      "--data <path>",
      "test.raw.json, a folder holding it, or a folder of releases (latest-*/, v1-*/)",
    )
    .requiredOption("-o, --output <file>", "where to write the policy artifact (JSON)")
    .addOption(
      new Option(
        "--dataset-version <version>",
        "which release's evaluator semantics to use (default: detected)",
      ).choices(["latest", "v1"]),
    )
    .addOption(
      new Option(
        "--inverted <mode>",
        "policies whose literal reading forbids what the task asks for: skip them (default) or compile them as the evaluator reads them (always listed in the report)",
      ).choices(["skip", "evaluator"]),
    )
    .option("--json", "print only { total, compiled, failed, skipped, decoys, inverted, byEvalType } as JSON")
    .action(async (opts: ImportOptions) => {
      await runImport(opts);
    });
  return group;
}
