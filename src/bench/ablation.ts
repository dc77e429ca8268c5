/**
 * The papers' ablations as one command: demonstrations k (Figure 4), least- vs most-similar retrieval
 * (Table 7), with and without toolbox and memory (Table 4). Each variant is a full, resumable run in its
 * own sub-directory; the charts compare them.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type BenchmarkOptions, type BenchmarkResult, runBenchmark } from "./run-benchmark.js";
import { barChart, lineChart } from "./svg-chart.js";

export const ABLATIONS = ["shots", "retrieval", "toolbox"] as const;
export type AblationName = (typeof ABLATIONS)[number];

export interface AblationVariant {
  name: string;
  result: BenchmarkResult;
}

export async function runAblation(options: {
  base: BenchmarkOptions & { out: string };
  ablation: AblationName;
  shotsList?: readonly number[];
  onVariant?: (name: string) => void;
}): Promise<{ variants: AblationVariant[]; chart: string }> {
  const { base } = options;
  const plan: { name: string; options: Partial<BenchmarkOptions> }[] =
    options.ablation === "shots"
      ? (options.shotsList ?? [0, 1, 2, 3, 4]).map((k) => ({
          name: `k${k}`,
          options: { shots: k, memory: k > 0 },
        }))
      : options.ablation === "retrieval"
        ? [
            { name: "most", options: { retrieval: "most" } },
            { name: "least", options: { retrieval: "least" } },
          ]
        : [
            { name: "with-toolbox-and-memory", options: { toolbox: true, memory: true } },
            { name: "without-toolbox-and-memory", options: { toolbox: false, memory: false } },
          ];
  const variants: AblationVariant[] = [];
  for (const step of plan) {
    options.onVariant?.(step.name);
    const result = await runBenchmark({ ...base, ...step.options, out: join(base.out, step.name) });
    variants.push({ name: step.name, result });
    if (result.interrupted) break;
  }
  const subtitle = [base.model ? `model: ${base.model.id}` : "", base.note ?? ""].filter(Boolean).join(" — ");
  let svg: string;
  let chart: string;
  if (options.ablation === "shots") {
    chart = "ablation-shots.svg";
    svg = lineChart({
      title: `${base.dataset}: LPA and CCA against the number of demonstrations (Figure 4)`,
      ...(subtitle ? { subtitle } : {}),
      xLabel: "demonstrations k",
      yLabel: "%",
      series: ["LPA", "CCA"].map((m) => ({
        name: m,
        points: variants.map((v) => [Number(v.name.slice(1)), v.result.summary.metrics[m] ?? 0] as const),
      })),
    });
  } else if (options.ablation === "retrieval") {
    chart = "ablation-retrieval.svg";
    svg = barChart({
      title: `${base.dataset}: most- vs least-similar demonstrations (Table 7)`,
      ...(subtitle ? { subtitle } : {}),
      xLabel: "metric",
      yLabel: "%",
      groups: ["LPA", "LPP", "LPR", "CCA"].map((m) => ({
        label: m,
        bars: variants.map((v) => ({ name: `${v.name}-similar`, value: v.result.summary.metrics[m] ?? 0 })),
      })),
    });
  } else {
    chart = "ablation-toolbox.svg";
    svg = barChart({
      title: `${base.dataset}: with and without toolbox and memory (Table 4)`,
      ...(subtitle ? { subtitle } : {}),
      xLabel: "metric",
      yLabel: "%",
      groups: ["ERBefore", "ERAfter", "LPA"].map((m) => ({
        label: m === "ERBefore" ? "ER before debugging" : m === "ERAfter" ? "ER after debugging" : m,
        bars: variants.map((v) => ({
          name: v.name.replace(/-/g, " "),
          value: v.result.summary.metrics[m] ?? 0,
        })),
      })),
    });
  }
  writeFileSync(join(base.out, chart), svg);
  const rows = variants.map((v) => {
    const m = v.result.summary.metrics;
    const f = (x: number | undefined) => (x === undefined ? "–" : x.toFixed(1));
    return `| ${v.name} | ${v.result.summary.n} | ${f(m.LPA)} | ${f(m.LPP)} | ${f(m.LPR)} | ${f(m.CCA)} | ${f(m.FRA)} | ${f(m.ERBefore)} | ${f(m.ERAfter)} | ${v.result.summary.cost.llmCallsPerCheck} |`;
  });
  writeFileSync(
    join(base.out, `ablation-${options.ablation}.md`),
    `# ${base.dataset}: ablation "${options.ablation}" (engine ${base.engine}, model ${base.model?.id ?? "none"})\n\n${base.note ? `**${base.note}**\n\n` : ""}| variant | n | LPA | LPP | LPR | CCA | FRA | ER before | ER after | LLM calls / check |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n${rows.join("\n")}\n\n![chart](${chart})\n\nEach variant's full report is in its sub-directory.\n`,
  );
  return { variants, chart };
}
