/**
 * Micro-benchmark of the compiled engine's hot path on the real EICU-AC development records: every check
 * is `await engine.check({ policy, subject })` on a freshly built Subject (promise included), so the
 * subject's text is read again each time; only the policy is compiled once (per-policy caching), and
 * nothing derived from a subject is kept from one check to the next. One thread, so checks per second is
 * checks per second per core.
 *
 * How each number is measured. After a reference pass and a warm-up, the run is a sequence of passes over
 * every record, of two kinds, interleaved:
 * - Throughput passes (7 of every 8): the checks run back to back with no timer around each; the pass is
 *   timed as a whole with performance.now(). `checksPerSecond` is the mean over the run: the checks of all
 *   throughput passes divided by the sum of their wall times (not the best pass; garbage collection and
 *   everything else that happens during the passes counts). `meanPassUsPerCheck` is its inverse;
 *   `bestPassUsPerCheck` the fastest throughput pass's time per check; `cpuUsPerCheck` the process CPU
 *   time (main thread and the garbage collector's helpers, process.cpuUsage() around each pass) of the
 *   throughput passes per check. Each decision's verdict and label are compared with the reference as it
 *   arrives (two comparisons; the decision is not kept).
 * - Latency passes (every 8th): each check is timed on its own with performance.now() before and after
 *   `engine.check`; `usPerCheck` (p50, p95, mean) is the distribution of those sampled latencies. They
 *   are kept out of the throughput figures because the timer calls and keeping the samples cost time and
 *   allocation of their own. Their decisions are kept and, after the pass, compared in full with the
 *   reference (verdict, label, the sorted inaccessible set and the failure code).
 * So a faster path that changes a decision shows in `identicalDecisions`.
 *
 * The EHRAgent extractor keeps answers in an LRU keyed on the exact code text; the benchmark turns that
 * cache off (configureEhrAgentCache({ maxEntries: 0 })) so every check parses and interprets the code
 * again, and turns it back on when done. Optionally measures each stage of a check on its own (identity,
 * code extraction and its parts, decision).
 *
 * Run standalone: `npx tsx bench/micro/compiled-checks.ts [--data <dir>] [--seconds <n>] [--stages]` prints
 * JSON. The data directory defaults to ../shared/datasets/eicu-ac relative to the repository root; without
 * it the script says so and exits 0.
 */
import { existsSync } from "node:fs";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { z } from "zod";
import { type EicuAcRecord, loadEicuAc } from "../../src/bench/datasets/eicu-ac.js";
import type { Decision } from "../../src/core/decision.js";
import { WardenError } from "../../src/core/errors.js";
import type { Policy } from "../../src/core/policy.js";
import type { Subject } from "../../src/core/subject.js";
import { parseWith } from "../../src/core/validate.js";
import { agentAnswer } from "../../src/engines/common/agent-answer.js";
import { createCompiledEngine } from "../../src/engines/compiled/compiled-engine.js";
import { compilePolicyRules } from "../../src/engines/compiled/compiled-policy.js";
import { extractFacts } from "../../src/engines/compiled/extract-facts.js";
// extractFacts runs synchronously here: its extractors are registered up front, as the library does.
import "../../src/engines/compiled/extractors/eager-extractors.js";
import {
  configureEhrAgentCache,
  extractEhrAgentAccess,
  parsePython,
  splitEhrAgentOutput,
  tokenizePython,
} from "../../src/engines/compiled/extractors/ehragent/index.js";
import { extractIdentity } from "../../src/engines/compiled/extractors/identity/index.js";
import { loadPolicy } from "../../src/policies/load-policy.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Where the benchmark looks for EICU-AC when no directory is given. */
export const DEFAULT_EICU_AC_DIR = resolve(repoRoot, "../shared/datasets/eicu-ac");

/** Mean microseconds per record of each stage of a check, each measured on its own (fastest pass). */
export interface CompiledCheckStages {
  /** extractIdentity on the agent input and context. */
  identity: number;
  /** splitEhrAgentOutput: finding the generated code in the agent output. */
  splitOutput: number;
  /** tokenizePython on the code. */
  tokenize: number;
  /** parsePython on the code (tokenizing included). */
  parse: number;
  /** extractEhrAgentAccess on the code: parse and abstract interpretation (nothing cached). */
  extraction: number;
  /** extractFacts: every fact the policy needs, as the engine extracts them. */
  facts: number;
  /** decideFacts from facts already extracted (decision and Decision object). */
  decide: number;
  /** agentAnswer: the answer passed through on allow. */
  answer: number;
}

export interface BenchCompiledChecksResult {
  name: string;
  /** Records checked on each pass. */
  records: number;
  /** Checks of the throughput passes (after the warm-up); a multiple of `records`. */
  checks: number;
  /** Mean over the run: throughput-pass checks / the sum of the throughput passes' wall times. */
  checksPerSecond: number;
  /** One thread does every check, so this equals checksPerSecond. */
  checksPerSecondPerCore: number;
  /** 1e6 / checksPerSecond: the mean wall time per check over the throughput passes, microseconds. */
  meanPassUsPerCheck: number;
  /**
   * Mean µs per check of the fastest throughput pass: what a quiet core does at best. On a shared machine
   * the other figures include time the thread waited for the CPU.
   */
  bestPassUsPerCheck: number;
  /** Process CPU time per check over the throughput passes (main thread and GC helpers), microseconds. */
  cpuUsPerCheck: number;
  /** Checks timed one by one, in the latency passes (every 8th pass). */
  sampledChecks: number;
  /** Latency of one check in the latency passes, microseconds, promise and timer calls included. */
  usPerCheck: { p50: number; p95: number; mean: number };
  /** Every decision equalled the reference of the first pass. */
  identicalDecisions: boolean;
  /** The first record whose decision differed, when one did. */
  firstMismatch?: { id: string; expected: string; got: string };
  /** How the reference decisions split. */
  verdicts: Record<string, number>;
  stages?: CompiledCheckStages;
  node: string;
  /** Machine context: wall-clock figures are only comparable on a quiet machine. */
  cpus: number;
  loadAverage: number;
}

const OptionsSchema = z.object({
  data: z.string().min(1).optional(),
  seconds: z.number().positive().max(600).optional(),
  stages: z.boolean().optional(),
});

/** What must not change: verdict, label and the inaccessible set (tables and columns sorted). */
function decisionKey(decision: Decision): string {
  const inaccessible: Record<string, string[]> = {};
  for (const violation of decision.violations) {
    const found = violation.details?.inaccessible;
    if (typeof found !== "object" || found === null) continue;
    for (const [table, columns] of Object.entries(found as Record<string, unknown>)) {
      const list = Array.isArray(columns) ? columns.map(String) : [];
      inaccessible[table] = [...new Set([...(inaccessible[table] ?? []), ...list])].sort();
    }
  }
  const sorted = Object.keys(inaccessible)
    .sort()
    .map((table) => [table, inaccessible[table]]);
  const failure = decision.failure ? `${decision.failure.code}` : "";
  return JSON.stringify([decision.verdict, decision.label, sorted, failure]);
}

/** A new Subject with the record's text, as a caller would build one per request. */
function freshSubject(record: EicuAcRecord): Subject {
  const { subject } = record;
  return {
    id: subject.id,
    input: subject.input,
    output: subject.output,
    context: { identity: subject.context.identity },
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * Mean µs per call of `fn` over every record, after a warm-up pass: the fastest of `rounds` passes over
 * the records, as bestPassUsPerCheck is (on a shared machine a slower pass includes time spent waiting).
 */
function timeStage(records: readonly EicuAcRecord[], rounds: number, fn: (record: EicuAcRecord) => unknown) {
  let sink = 0;
  for (const record of records) if (fn(record)) sink++;
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const started = performance.now();
    for (const record of records) if (fn(record)) sink++;
    best = Math.min(best, performance.now() - started);
  }
  return { us: round((best * 1000) / records.length), sink };
}

function measureStages(
  records: readonly EicuAcRecord[],
  policy: Policy,
  engine: ReturnType<typeof createCompiledEngine>,
): CompiledCheckStages {
  const compiled = compilePolicyRules({ policy });
  const rounds = 20;
  const codes = records.map((record) => splitEhrAgentOutput({ output: record.subject.output })?.code ?? "");
  const codeOf = new Map(records.map((record, i) => [record, codes[i]!]));
  const factsOf = new Map(
    records.map((record) => [record, extractFacts({ compiled, subject: freshSubject(record) })]),
  );
  return {
    identity: timeStage(records, rounds, (r) =>
      extractIdentity({ input: r.subject.input, context: { identity: r.subject.context.identity } }),
    ).us,
    splitOutput: timeStage(records, rounds, (r) => splitEhrAgentOutput({ output: r.subject.output })).us,
    tokenize: timeStage(records, rounds, (r) => tokenizePython({ source: codeOf.get(r)! })).us,
    parse: timeStage(records, rounds, (r) => parsePython({ source: codeOf.get(r)! })).us,
    extraction: timeStage(records, rounds, (r) =>
      extractEhrAgentAccess({ code: codeOf.get(r)!, schema: compiled.schema }),
    ).us,
    facts: timeStage(records, rounds, (r) => extractFacts({ compiled, subject: freshSubject(r) })).us,
    decide: timeStage(records, rounds, (r) =>
      engine.decideFacts({ policy, subject: freshSubject(r), facts: factsOf.get(r)! }),
    ).us,
    answer: timeStage(records, rounds, (r) => agentAnswer({ policy, subject: freshSubject(r) })).us,
  };
}

/**
 * Checks every EICU-AC development record with the compiled engine for about `seconds` (default 3) after
 * a warm-up, and reports throughput, latency and whether any decision changed between passes.
 * Throws WardenError(DATASET_INVALID) when the data directory is missing.
 */
export async function benchCompiledChecks(
  options: { data?: string; seconds?: number; stages?: boolean } = {},
): Promise<BenchCompiledChecksResult> {
  const input = parseWith({ schema: OptionsSchema, value: options, what: "benchCompiledChecks options" });
  const dir = input.data ?? DEFAULT_EICU_AC_DIR;
  const seconds = input.seconds ?? 3;
  if (!existsSync(join(dir, "eicu_ac.json")) && !existsSync(join(dir, "ehragent", "eicu_ac.json"))) {
    throw new WardenError({
      code: "DATASET_INVALID",
      message: `no EICU-AC data at ${dir} (expected eicu_ac.json and ehragent_logs/); pass --data <dir>`,
      details: { dir },
    });
  }
  const dataset = await loadEicuAc({ dir });
  const records = dataset.records;
  if (records.length === 0) {
    throw new WardenError({ code: "DATASET_INVALID", message: `EICU-AC at ${dir} holds no usable records` });
  }
  const policy = loadPolicy({ ref: "eicu-ac" }).policy;
  const engine = createCompiledEngine();
  // Nothing cached per record: every check analyses its code again.
  configureEhrAgentCache({ maxEntries: 0 });
  try {
    return await measure(records, policy, engine, seconds, input.stages ?? false);
  } finally {
    configureEhrAgentCache({ maxEntries: 512 });
  }
}

async function measure(
  records: readonly EicuAcRecord[],
  policy: Policy,
  engine: ReturnType<typeof createCompiledEngine>,
  seconds: number,
  stages: boolean,
): Promise<BenchCompiledChecksResult> {
  // The reference: one decision per record, taken before any warm-up.
  const reference: string[] = [];
  const verdicts: Record<string, number> = {};
  for (const record of records) {
    const decision = await engine.check({ policy, subject: freshSubject(record) });
    reference.push(decisionKey(decision));
    const label = decision.failure ? `${decision.verdict} (${decision.failure.code})` : decision.verdict;
    verdicts[label] = (verdicts[label] ?? 0) + 1;
  }

  let identical = true;
  let firstMismatch: BenchCompiledChecksResult["firstMismatch"];
  const decisions: (Decision | undefined)[] = new Array(records.length);
  const verify = () => {
    for (let i = 0; i < records.length; i++) {
      const got = decisionKey(decisions[i]!);
      if (got !== reference[i]) {
        if (identical) firstMismatch = { id: records[i]!.id, expected: reference[i]!, got };
        identical = false;
      }
    }
  };

  // Warm-up: about a fifth of the time, at least a few passes, so that the JIT has settled.
  const warmUntil = performance.now() + Math.max(200, seconds * 200);
  for (let pass = 0; pass < 5 || performance.now() < warmUntil; pass++) {
    for (let i = 0; i < records.length; i++) {
      decisions[i] = await engine.check({ policy, subject: freshSubject(records[i]!) });
    }
    verify();
  }

  // Reference verdicts and labels, for the check made as each throughput-pass decision arrives.
  const expectedVerdict = reference.map((key) => JSON.parse(key)[0] as string);
  const expectedLabel = reference.map((key) => JSON.parse(key)[1] as number);

  // Timed passes. Every LATENCY_EVERY-th pass times each check on its own (see the header); the others
  // are timed as a whole.
  const LATENCY_EVERY = 8;
  let latencies = new Float64Array(Math.max(4096, Math.ceil((seconds * 40_000) / LATENCY_EVERY)));
  let sampled = 0;
  let checks = 0;
  let busyMs = 0;
  let cpuUs = 0;
  let bestPassMs = Number.POSITIVE_INFINITY;
  const deadline = performance.now() + seconds * 1000;
  for (let pass = 0; pass < LATENCY_EVERY || performance.now() < deadline; pass++) {
    if (pass % LATENCY_EVERY === LATENCY_EVERY - 1) {
      if (sampled + records.length > latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      for (let i = 0; i < records.length; i++) {
        const subject = freshSubject(records[i]!);
        const t = performance.now();
        decisions[i] = await engine.check({ policy, subject });
        latencies[sampled++] = performance.now() - t;
      }
      verify();
      // Dropped at once: decisions kept across the next passes would be copied by every scavenge.
      decisions.fill(undefined);
      continue;
    }
    const cpuBefore = process.cpuUsage();
    const passStart = performance.now();
    for (let i = 0; i < records.length; i++) {
      const decision = await engine.check({ policy, subject: freshSubject(records[i]!) });
      if (decision.label !== expectedLabel[i] || decision.verdict !== expectedVerdict[i]) {
        if (identical) {
          firstMismatch = { id: records[i]!.id, expected: reference[i]!, got: decisionKey(decision) };
        }
        identical = false;
      }
    }
    const passMs = performance.now() - passStart;
    const cpu = process.cpuUsage(cpuBefore);
    busyMs += passMs;
    cpuUs += cpu.user + cpu.system;
    checks += records.length;
    bestPassMs = Math.min(bestPassMs, passMs);
  }
  const timed = latencies.subarray(0, sampled);
  let total = 0;
  for (const value of timed) total += value;
  const sorted = Float64Array.from(timed).sort();
  const checksPerSecond = checks / (busyMs / 1000);

  return {
    name: "compiled-checks",
    records: records.length,
    checks,
    checksPerSecond: round(checksPerSecond, 0),
    checksPerSecondPerCore: round(checksPerSecond, 0),
    meanPassUsPerCheck: round((busyMs * 1000) / checks),
    bestPassUsPerCheck: round((bestPassMs * 1000) / records.length),
    cpuUsPerCheck: round(cpuUs / checks),
    sampledChecks: sampled,
    usPerCheck: {
      p50: round(percentile(sorted, 50) * 1000),
      p95: round(percentile(sorted, 95) * 1000),
      mean: round((total / Math.max(1, sampled)) * 1000),
    },
    identicalDecisions: identical,
    ...(firstMismatch ? { firstMismatch } : {}),
    verdicts,
    ...(stages ? { stages: measureStages(records, policy, engine) } : {}),
    node: process.version,
    cpus: os.availableParallelism(),
    loadAverage: round(os.loadavg()[0] ?? 0),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      data: { type: "string" },
      seconds: { type: "string" },
      stages: { type: "boolean", default: false },
    },
  });
  try {
    const result = await benchCompiledChecks({
      ...(values.data ? { data: values.data } : {}),
      ...(values.seconds ? { seconds: Number(values.seconds) } : {}),
      stages: values.stages,
    });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } catch (error) {
    if (error instanceof WardenError && error.code === "DATASET_INVALID") {
      process.stderr.write(`compiled-checks: skipped: ${error.message}\n`);
    } else throw error;
  }
}
