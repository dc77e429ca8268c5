/**
 * `warden bench <dataset>`: run an engine over a benchmark and print the papers' metrics (or one JSON
 * summary with --json); `--out` writes results.jsonl (resumable), summary.json, report.md and charts;
 * `--ablation` runs the papers' ablations; `warden bench compare a/ b/` diffs two runs.
 */
import { join } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { ABLATIONS, runAblation } from "../../bench/ablation.js";
import type { BenchSummary } from "../../bench/bench-types.js";
import { compareRuns, formatComparison } from "../../bench/compare-runs.js";
import { DATASETS, runBenchmark } from "../../bench/run-benchmark.js";
import { runTrajectoryBenchmark } from "../../bench/run-trajectory-benchmark.js";
import { WardenError } from "../../core/errors.js";
import { parseWith } from "../../core/validate.js";
import { ENGINE_NAMES } from "../../runtime/create-engine.js";
import { ModelOptionsSchema, modelFromOptions } from "../../runtime/model-options.js";
import { namingPathOptions } from "../system-errors.js";

const BenchOptionsSchema = ModelOptionsSchema.extend({
  data: z.string().optional(),
  trajectories: z.string().optional(),
  engine: z.enum(ENGINE_NAMES).default("compiled"),
  policy: z.string().optional(),
  shots: z.coerce.number().int().min(0).optional(),
  retrieval: z.enum(["most", "least"]).optional(),
  toolbox: z.boolean().default(true),
  memory: z.boolean().default(true),
  learn: z.enum(["off", "successful", "correct-only"]).default("correct-only"),
  limit: z.coerce.number().int().positive().optional(),
  concurrency: z.coerce.number().int().min(1).max(64).default(1),
  seed: z.coerce.number().int().optional(),
  out: z.string().optional(),
  fresh: z.boolean().default(false),
  json: z.boolean().default(false),
  progress: z.boolean().default(true),
  note: z.string().optional(),
  ablation: z.enum(ABLATIONS).optional(),
  shotsList: z
    .string()
    .transform((s) => s.split(",").map((x) => Number(x.trim())))
    .pipe(z.array(z.number().int().min(0)))
    .optional(),
});

export function formatSummary(s: BenchSummary): string {
  const m = s.metrics;
  const f = (x: number | undefined) => (x === undefined ? "  –  " : x.toFixed(1).padStart(5));
  const lines = [
    `${s.dataset} — engine ${s.engine}${s.model ? `, model ${s.model}` : ""} — ${s.n} cases`,
    "  LPA    LPP    LPR    CCA    FRA",
    `  ${f(m.LPA)}  ${f(m.LPP)}  ${f(m.LPR)}  ${f(m.CCA)}  ${f(m.FRA)}`,
  ];
  if (m.ACC !== undefined)
    lines.splice(1, 2, "  ACC    FPR    ARR", `  ${f(m.ACC)}  ${f(m.FPR)}  ${f(m.ARR)}`);
  if (m.ERBefore !== undefined)
    lines.push(`  executable rate: ${m.ERBefore}% before debugging, ${m.ERAfter}% after`);
  lines.push(
    `  LLM calls: ${s.cost.llmCalls} (${s.cost.llmCallsPerCheck} per check); ms per check: p50 ${s.cost.msPerCheck.p50}, p95 ${s.cost.msPerCheck.p95}`,
  );
  if (s.failures.length)
    lines.push(`  ${s.failures.length} check(s) failed (fail-closed): see the report or --json`);
  return lines.join("\n");
}

export function registerBenchCommand(options: { program: Command }): void {
  const bench = options.program
    .command("bench")
    .description("Benchmark an engine on a dataset and report the papers' metrics")
    .argument("[dataset]", `one of: ${DATASETS.join(", ")}`)
    .option("--data <dir|file>", "dataset location (e.g. ../shared/datasets/eicu-ac)")
    .option(
      "--trajectories <file>",
      "st-webagentbench: labelled trajectories to replay (JSONL; bench/suites/write-st-webagentbench-suite.ts writes ours)",
    )
    .option(
      "--engine <engine>",
      "compiled | auto | guardagent | baseline | llamaguard | direct | rule-traverse | shield",
      "compiled",
    )
    .option(
      "--policy <name|file>",
      "policy to judge against (qa format; defaults to the dataset's bundled policy)",
    )
    .option("--model <provider:model-id>", "model for the model-based engines")
    .option("--base-url <url>", "the model server's base URL")
    .option("--timeout-ms <ms>", "time limit of each model request", (v) => Number(v))
    .option("--cassette <file>", "record model calls to / replay them from this file")
    .option("--cassette-mode <mode>", "record | replay | auto", "auto")
    .option(
      "--shots <k>",
      "demonstrations per check (default: the paper's, 1 for eicu-ac and 3 for mind2web-sc)",
    )
    .option("--retrieval <order>", "most | least similar demonstrations")
    .option("--no-toolbox", "remove the toolbox (ablation)")
    .option("--no-memory", "remove memory: no demonstrations (ablation)")
    .option(
      "--learn <mode>",
      "correct-only (the paper's benchmark setting) | successful | off",
      "correct-only",
    )
    .option("--limit <n>", "only the first n cases (after seeded ordering)")
    .option("--concurrency <n>", "checks in flight at once", "1")
    .option("--seed <s>", "shuffle the case order deterministically")
    .option("--out <dir>", "write results.jsonl (resumable), summary.json, report.md and charts here")
    .option("--fresh", "start over instead of resuming the results in --out")
    .option("--ablation <name>", "run an ablation: shots | retrieval | toolbox (needs --out)")
    .option("--shots-list <list>", "k values for --ablation shots, e.g. 0,1,2,3,4")
    .option("--note <text>", "a note printed on the report and charts")
    .option("--no-progress", "no progress bar on stderr")
    .option("--json", "print one JSON summary on stdout")
    .action((dataset: string | undefined, raw: Record<string, unknown>) =>
      namingPathOptions({
        paths: {
          "--out": raw.out as string | undefined,
          "--data": raw.data as string | undefined,
          "--trajectories": raw.trajectories as string | undefined,
        },
        run: () => runBenchCommand({ dataset, raw }),
      }),
    );

  bench
    .command("compare")
    .description("Compare two benchmark runs (their --out directories)")
    .argument("<a>", "first run directory")
    .argument("<b>", "second run directory")
    .option("--json", "print the comparison as JSON")
    .action((a: string, b: string, raw: { json?: boolean }) => {
      const comparison = compareRuns({ a, b });
      process.stdout.write(
        raw.json ? `${JSON.stringify(comparison, null, 2)}\n` : `${formatComparison(comparison)}\n`,
      );
    });
}

async function runBenchCommand(options: {
  dataset: string | undefined;
  raw: Record<string, unknown>;
}): Promise<void> {
  const { dataset, raw } = options;
  const name = parseWith({
    schema: z.enum(DATASETS, { error: `dataset must be one of: ${DATASETS.join(", ")}` }),
    value: dataset,
    what: "dataset",
    path: "dataset",
  });
  const o = parseWith({ schema: BenchOptionsSchema, value: raw, what: "bench options" });
  const model = await modelFromOptions(o);
  const controller = new AbortController();
  const onSigint = () => {
    process.stderr.write("\nwarden: interrupted — finishing the checks in flight and saving results\n");
    controller.abort();
  };
  process.once("SIGINT", onSigint);
  try {
    const base = {
      dataset: name,
      engine: o.engine,
      ...(o.data ? { data: o.data } : {}),
      ...(o.trajectories ? { trajectories: o.trajectories } : {}),
      ...(model ? { model } : {}),
      ...(o.policy ? { policy: o.policy } : {}),
      ...(o.shots !== undefined ? { shots: o.shots } : {}),
      ...(o.retrieval ? { retrieval: o.retrieval } : {}),
      toolbox: o.toolbox,
      memory: o.memory,
      learn: o.learn,
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
      concurrency: o.concurrency,
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.out ? { out: o.out } : {}),
      fresh: o.fresh,
      progress: o.progress,
      signal: controller.signal,
      ...(o.note ? { note: o.note } : {}),
    };
    if (o.ablation) {
      if (!o.out) throw new WardenError({ code: "INVALID_INPUT", message: "--ablation needs --out <dir>" });
      const { variants, chart } = await runAblation({
        base: { ...base, out: o.out },
        ablation: o.ablation,
        ...(o.shotsList ? { shotsList: o.shotsList } : {}),
        onVariant: (v) => process.stderr.write(`warden: ablation variant ${v}\n`),
      });
      if (o.json)
        process.stdout.write(
          `${JSON.stringify(
            variants.map((v) => ({ variant: v.name, ...v.result.summary })),
            null,
            2,
          )}\n`,
        );
      else
        process.stdout.write(
          `${variants.map((v) => `[${v.name}] ${formatSummary(v.result.summary)}`).join("\n\n")}\n\nchart: ${o.out}/${chart}\n`,
        );
      return;
    }
    const result =
      name === "st-webagentbench" ? await runTrajectoryBenchmark(base) : await runBenchmark(base);
    if (result.resumed > 0)
      process.stderr.write(
        `warden: resumed ${result.resumed} finished case(s) from ${join(o.out ?? ".", "results.jsonl")}\n`,
      );
    process.stdout.write(
      o.json
        ? `${JSON.stringify(result.summary)}\n`
        : `${formatSummary(result.summary)}\n${o.out ? `report: ${join(o.out, "report.md")}\n` : ""}`,
    );
    if (result.interrupted) process.exitCode = 130;
  } finally {
    process.removeListener("SIGINT", onSigint);
    await model?.close?.();
  }
}
