/**
 * `npm run bench`: the offline benchmark suite. Every engine that needs no model on every dataset present
 * in ../shared/datasets (or $WARDEN_DATASETS), plus the micro-benchmarks (demonstration retrieval, sandbox
 * throughput, compiled checks per second, LTLf, shield steps). Results go to bench/results/ with the
 * machine and commit: one JSON file per run, latest.json and latest.md.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { loadStWebAgentBench } from "../src/bench/datasets/st-webagentbench.js";
import { runBenchmark } from "../src/bench/run-benchmark.js";
import { runInfo } from "../src/bench/run-info.js";
import { runTrajectoryBenchmark } from "../src/bench/run-trajectory-benchmark.js";
import { runWeightsAblation } from "../src/bench/weights-ablation.js";
import { importStWebAgentBench } from "../src/engines/shield/import/index.js";
import { packageRoot } from "../src/policies/package-root.js";
import { createScriptedModel } from "../src/testing/scripted-model.js";
import { headlineMarkdown } from "./headline.js";
import {
  runShieldPlanScripted,
  type ScriptedPlanResult,
  shieldPlanScriptedMarkdown,
} from "./shield-plan-scripted.js";
import { pseudoRulesReply } from "./suites/qa-pseudo-rules.js";
import { stWebAgentBenchSuite } from "./suites/st-webagentbench-run.js";

const execFileAsync = promisify(execFile);
const root = packageRoot();
const datasets = resolve(process.env.WARDEN_DATASETS ?? join(root, "..", "shared", "datasets"));
const quick = process.argv.includes("--quick");
const outDir = join(root, "bench", "results");
mkdirSync(outDir, { recursive: true });

const log = (msg: string) => process.stderr.write(`bench: ${msg}\n`);
const results: Record<string, unknown> = {};

async function step(name: string, fn: () => Promise<unknown>): Promise<void> {
  log(`${name}...`);
  const started = performance.now();
  try {
    results[name] = await fn();
    log(`${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    results[name] = { error: error instanceof Error ? error.message : String(error) };
    log(`${name} FAILED: ${(results[name] as { error: string }).error}`);
  }
}

const runsDir = join(outDir, "runs");
const eicu = join(datasets, "eicu-ac");
if (existsSync(join(eicu, "eicu_ac.json"))) {
  for (const engine of ["compiled", "auto"] as const) {
    await step(
      `dataset:eicu-ac:${engine}`,
      async () =>
        (
          await runBenchmark({
            dataset: "eicu-ac",
            data: eicu,
            engine,
            out: join(runsDir, `eicu-ac-${engine}`),
            fresh: true,
          })
        ).summary,
    );
  }
} else log(`skipping eicu-ac: ${eicu} not found`);

for (const engine of ["compiled", "auto"] as const) {
  await step(
    `dataset:mind2web-sc(our fixture):${engine}`,
    async () =>
      (
        await runBenchmark({
          dataset: "mind2web-sc",
          engine,
          out: join(runsDir, `mind2web-sc-fixture-${engine}`),
          fresh: true,
        })
      ).summary,
  );
}

const stwab = join(datasets, "st-webagentbench");
if (existsSync(stwab)) {
  await step(
    "dataset:st-webagentbench(our trajectory suite):shield",
    async () =>
      (
        await runTrajectoryBenchmark({
          dataset: "st-webagentbench",
          data: stwab,
          suite: await stWebAgentBenchSuite({ path: stwab }),
          engine: "shield",
          out: join(runsDir, "st-webagentbench-shield"),
          fresh: true,
          ...(quick ? { limit: 500 } : {}),
        })
      ).summary,
  );
  // Weights that matter: hinge-loss weights learned on a seeded train split vs weight 1 on every rule,
  // both scored on the held-out split of the same suite (src/bench/weights-ablation.ts).
  await step("ablation:st-webagentbench(our trajectory suite):shield weights", async () => {
    const dataset = await loadStWebAgentBench({ path: stwab });
    const { policy } = importStWebAgentBench({ tasks: dataset.tasks, version: dataset.version });
    const suite = await stWebAgentBenchSuite({ path: stwab });
    const ablation = await runWeightsAblation({
      policy,
      trajectories: quick ? suite.trajectories.slice(0, 500) : suite.trajectories,
    });
    return { suite: suite.description, ...ablation };
  });
} else log(`skipping st-webagentbench: ${stwab} not found`);

// GuardAgent App. N's Q&A risk levels on our 200 pseudo-rule records, the guardrail program written by a
// scripted model (the rules as our labeller reads them): a check of the pipeline — sandbox, risk count,
// per-level recall — not a model's accuracy.
await step("dataset:qa(our pseudo-rule records, scripted model):guardagent", async () => {
  const qa = join(root, "bench", "fixtures", "qa");
  const model = createScriptedModel({
    id: "scripted:pseudo-rules-program",
    replies: Array.from(
      { length: 2_000 },
      () => (r: { system?: string }) => pseudoRulesReply({ system: r.system ?? "" }),
    ),
  });
  return (
    await runBenchmark({
      dataset: "qa",
      data: join(qa, "pseudo-rules.jsonl"),
      policy: join(qa, "pseudo-rules"),
      engine: "guardagent",
      model,
      shots: 0,
      out: join(runsDir, "qa-pseudo-rules-scripted"),
      fresh: true,
      note: "scripted model writing the rules' program: the figures check the pipeline, not a model",
    })
  ).summary;
});

log("agentharm needs a model-based engine: not part of the offline suite");

// The shielding plan against a scripted model: what it does and what it costs in calls, no accuracy.
await step("scripted:shield-plan", () => runShieldPlanScripted());

// Each micro-benchmark runs in a process of its own (see micro/child.ts): a fresh heap and JIT, so no
// benchmark's figures depend on what ran before it.
const child = join(root, "bench", "micro", "child.ts");
const micro = (name: string, options: Record<string, unknown>, label = name) =>
  step(`micro:${label}`, async () => {
    // execArgv carries tsx's loader, so the child runs the TypeScript sources the same way.
    const { stdout } = await execFileAsync(
      process.execPath,
      [...process.execArgv, child, name, JSON.stringify(options)],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
    return JSON.parse(stdout) as unknown;
  });

await micro("retrieval", quick ? { n: 2_000, queries: 10 } : {});
await micro("sandbox-throughput", quick ? { runs: 500 } : { runs: 3_000 });
await micro("compiled-checks", { data: eicu, seconds: quick ? 1 : 8 });
await micro("ltl", quick ? { pairs: 5_000 } : {});
await micro("shield", quick ? { runs: 1 } : {});
// The MCP guard proxy beside its floor: the same client calling the filesystem server directly.
await micro("mcp-proxy", quick ? { calls: 200, warmup: 50 } : {});
// The compiled engine beside Cedar (wasm) on the bundled tool policy written in Cedar: same decisions.
await micro("cedar", quick ? { passes: 40 } : {});
// `warden serve` beside a bare Hono handler parsing the same body (its floor), same load, same run.
await micro("serve", quick ? { seconds: 2, warmupSeconds: 1, rounds: 1 } : { seconds: 10, rounds: 3 });
// The same without the audit log (`warden serve --no-audit`): what writing a row per decision costs.
await micro(
  "serve",
  quick
    ? { seconds: 2, warmupSeconds: 1, rounds: 1, audit: false }
    : { seconds: 10, rounds: 3, audit: false },
  "serve:no-audit",
);
// `warden check` from the build beside `node -e 0`, started N times each in the same run (builds first
// when dist/ is older than src/).
await micro("cold-start", { runs: quick ? 3 : 15, build: true });
// `warden hook` (a coding agent's pre-tool hook) from the build beside `node -e 0`, same way.
await micro("hook-cold-start", { runs: quick ? 3 : 15, build: true });

const info = runInfo();
const record = { suite: "warden offline benchmarks", quick, info, datasets, results };
const stamp = info.date.replace(/[:.]/g, "-");
writeFileSync(
  join(outDir, `${stamp}${info.commit ? `-${info.commit}` : ""}.json`),
  `${JSON.stringify(record, null, 2)}\n`,
);
writeFileSync(join(outDir, "latest.json"), `${JSON.stringify(record, null, 2)}\n`);

function shieldPlanSection(value: unknown): string[] {
  const result = value as ScriptedPlanResult | { error: string } | undefined;
  return result && "rows" in result ? shieldPlanScriptedMarkdown({ result }) : [];
}

const lines = [
  `# Warden offline benchmarks`,
  "",
  `Run ${info.date} on ${info.cpu} (${info.cores} cores, ${info.memoryGb} GB), Node ${info.node}, commit ${info.commit ?? "unknown"}${info.dirty ? " (uncommitted changes)" : ""}${quick ? "; quick mode" : ""}.`,
  "",
  ...headlineMarkdown({ results, quick }),
  ...shieldPlanSection(results["scripted:shield-plan"]),
  "## Every result (full figures in latest.json)",
  "",
  "| benchmark | result |",
  "| --- | --- |",
  ...Object.entries(results).map(
    ([name, value]) => `| ${name} | \`${JSON.stringify(value).slice(0, 400).replace(/\|/g, "\\|")}\` |`,
  ),
  "",
];
writeFileSync(join(outDir, "latest.md"), lines.join("\n"));
log(`wrote ${join(outDir, "latest.json")} and latest.md`);
