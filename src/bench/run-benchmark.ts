/**
 * One benchmark run: load the dataset, build the engine, check every case (resumable, bounded
 * concurrency, seeded order), score each Decision against the ground truth, and summarise — metrics in
 * percent, cost per check, failures by id. Writes results.jsonl, summary.json and report.md when given
 * an output directory.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Decision } from "../core/decision.js";
import { toWardenError, WardenError } from "../core/errors.js";
import { createMemoryBank, type MemoryBank } from "../memory/memory-bank.js";
import { loadPolicy } from "../policies/load-policy.js";
import { createEngine } from "../runtime/create-engine.js";
import { openStore } from "../runtime/default-store.js";
import { seedPolicyMemory } from "../runtime/policy-context.js";
import {
  type BenchCase,
  type BenchmarkOptions,
  type BenchmarkResult,
  type BenchRow,
  type BenchSummary,
  DATASETS,
  type DatasetName,
  type LoadedBenchmark,
} from "./bench-types.js";
import { loadAgentHarmBenchmark } from "./benchmarks/agentharm.js";
import { annotateEicuRow, loadEicuAcBenchmark } from "./benchmarks/eicu-ac.js";
import { loadMind2WebScBenchmark } from "./benchmarks/mind2web-sc.js";
import { loadQaBenchmark } from "./benchmarks/qa.js";
import { guardMetrics, percentile, riskRecall } from "./metrics.js";
import { writeReport } from "./report.js";
import { runCases } from "./runner.js";
import { scoreGuard } from "./score.js";
import { createWordMeter } from "./word-meter.js";

export { type BenchmarkOptions, type BenchmarkResult, DATASETS, type DatasetName };

/** What a benchmark's own cases are trusted with. */
const BENCHMARK_TRUST = { contextFacts: true } as const;

/** The paper's number of demonstrations per benchmark (GuardAgent section 5.1). */
export const DEFAULT_SHOTS: Record<DatasetName, number> = {
  "eicu-ac": 1,
  "mind2web-sc": 3,
  agentharm: 1,
  qa: 1,
  "st-webagentbench": 0,
};

async function load(o: BenchmarkOptions): Promise<LoadedBenchmark> {
  const need = () => {
    if (!o.data) {
      throw new WardenError({ code: "INVALID_INPUT", message: `bench ${o.dataset} needs --data <dir|file>` });
    }
    return o.data;
  };
  switch (o.dataset) {
    case "eicu-ac":
      return loadEicuAcBenchmark({ data: need() });
    case "mind2web-sc":
      return loadMind2WebScBenchmark(o.data ? { data: o.data } : {});
    case "agentharm":
      return loadAgentHarmBenchmark({ data: need() });
    case "qa":
      return loadQaBenchmark({ data: need(), ...(o.policy ? { policy: o.policy } : {}) });
    case "st-webagentbench":
      throw new WardenError({
        code: "UNSUPPORTED",
        message: "st-webagentbench runs through the trajectory benchmark",
      });
  }
}

function errorRow(c: BenchCase, error: unknown): BenchRow {
  const e = toWardenError({ error });
  return {
    id: c.id,
    ...(c.group ? { group: c.group } : {}),
    label: c.truth.label,
    predicted: 1,
    verdict: "deny",
    violations: [],
    cost: { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 },
    failure: { code: e.code, message: e.message },
    error: e.message,
  };
}

export function summarise(options: {
  dataset: string;
  engine: string;
  model: string | null;
  rows: readonly BenchRow[];
}): BenchSummary {
  const { rows } = options;
  const m = guardMetrics({ predictions: rows });
  const metrics: Record<string, number> = { LPA: m.LPA, LPP: m.LPP, LPR: m.LPR, CCA: m.CCA, FRA: m.FRA };
  const withAttempts = rows.filter((r) => r.executableFirst !== undefined);
  if (withAttempts.length > 0) {
    metrics.ERBefore =
      Math.round((10000 * withAttempts.filter((r) => r.executableFirst).length) / withAttempts.length) / 100;
    metrics.ERAfter =
      Math.round((10000 * withAttempts.filter((r) => r.executableAfterDebug).length) / withAttempts.length) /
      100;
  }
  const words = rows.filter((r) => r.promptWords !== undefined);
  if (words.length > 0)
    metrics.promptWordsPerCheck = Math.round(
      words.reduce((n, r) => n + (r.promptWords ?? 0), 0) / words.length,
    );
  const risk = rows.some((r) => r.risk) ? riskRecall({ predictions: rows }) : undefined;
  return {
    dataset: options.dataset,
    engine: options.engine,
    model: options.model,
    n: rows.length,
    metrics,
    cost: costSummary({ rows }),
    failures: failureList({ rows }),
    ...(risk ? { riskRecall: risk } : {}),
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Cost of a run: LLM calls and tokens in all and per check, time per check p50/p95. */
export function costSummary(options: { rows: readonly BenchRow[] }): BenchSummary["cost"] {
  const { rows } = options;
  const llmCalls = rows.reduce((n, r) => n + r.cost.llmCalls, 0);
  const ms = rows.map((r) => r.cost.ms);
  return {
    llmCalls,
    llmCallsPerCheck: rows.length ? round3(llmCalls / rows.length) : 0,
    inputTokens: rows.reduce((n, r) => n + r.cost.inputTokens, 0),
    outputTokens: rows.reduce((n, r) => n + r.cost.outputTokens, 0),
    msPerCheck: { p50: round3(percentile(ms, 50)), p95: round3(percentile(ms, 95)) },
  };
}

/** Every case that did not reach a decision by evaluating the policy, with why. */
export function failureList(options: { rows: readonly BenchRow[] }): BenchSummary["failures"] {
  return options.rows
    .filter((r) => r.failure)
    .map((r) => ({ id: r.id, code: r.failure!.code, message: r.failure!.message }));
}

export async function runBenchmark(o: BenchmarkOptions): Promise<BenchmarkResult> {
  const loaded = await load(o);
  const usesModel = o.engine === "guardagent" || o.engine === "baseline" || (o.engine === "auto" && o.model);
  const shots = o.memory === false ? 0 : (o.shots ?? DEFAULT_SHOTS[o.dataset]);
  const learn = o.learn ?? "correct-only";
  let memory: MemoryBank | undefined;
  let closeStore: (() => Promise<void>) | undefined;
  if (usesModel && shots > 0) {
    if (o.out) mkdirSync(o.out, { recursive: true });
    const store = await openStore({ path: o.out ? join(o.out, "memory.db") : ":memory:" });
    closeStore = () => store.close();
    memory = createMemoryBank({ store, learn });
    await seedPolicyMemory({
      loaded: loadPolicy({ ref: o.dataset === "qa" && o.policy ? o.policy : loaded.policy.name }),
      memory,
    });
  }
  const meter = o.model ? createWordMeter({ model: o.model }) : undefined;
  const handle = await createEngine({
    engine: o.engine,
    ...(meter ? { model: meter.model } : {}),
    ...(memory ? { memory } : {}),
    shots,
    ...(o.retrieval ? { retrieval: o.retrieval } : {}),
    toolbox: o.toolbox ?? true,
    learn,
    sandboxWorkers: Math.max(1, Math.min(o.concurrency ?? 1, 4)),
  });
  try {
    const outcome = await runCases<BenchCase, BenchRow>({
      cases: loaded.cases,
      ...(o.out ? { resultsPath: join(o.out, "results.jsonl") } : {}),
      ...(o.fresh ? { fresh: true } : {}),
      concurrency: o.concurrency ?? 1,
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
      progress: o.progress ?? false,
      label: `${o.dataset}/${o.engine}`,
      ...(o.signal ? { signal: o.signal } : {}),
      onError: errorRow,
      run: async (c, signal) => {
        // A benchmark is a trusted caller of its own data: the context facts its cases state (EICU-AC's
        // code, a dataset's tool calls) are the recorded truth, taken as given (context-facts.ts).
        const check = () =>
          handle.engine.check({ policy: loaded.policy, subject: c.subject, signal, trust: BENCHMARK_TRUST });
        let decision: Decision;
        let words: number | undefined;
        if (meter) {
          const measured = await meter.measure(check);
          decision = measured.result;
          words = measured.words;
        } else {
          decision = await check();
        }
        let row = scoreGuard({
          case: c,
          decision,
          answerMatch: o.dataset === "mind2web-sc" ? "exact" : "judge",
          ...(words !== undefined ? { promptWords: words } : {}),
        });
        if (o.dataset === "eicu-ac") row = annotateEicuRow({ row, case: c, decision });
        if (handle.guardAgent && learn === "correct-only") {
          const correct =
            row.predicted === row.label &&
            (row.label === 1 ? row.reasonsCorrect === true : row.answerCorrect !== false);
          await handle.guardAgent.feedback({ subject: c.subject, decision, correct });
        }
        return row;
      },
    });
    const summary = summarise({
      dataset: o.dataset,
      engine: o.engine,
      model: o.model?.id ?? null,
      rows: outcome.rows,
    });
    const result: BenchmarkResult = {
      summary,
      rows: outcome.rows,
      resumed: outcome.resumed,
      interrupted: outcome.interrupted,
      loaded,
      ...(memory ? { learning: memory.describeLearning() } : {}),
    };
    if (o.out) {
      writeFileSync(join(o.out, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
      writeReport({ dir: o.out, result, options: o });
    }
    return result;
  } finally {
    await handle.close();
    await closeStore?.();
  }
}
