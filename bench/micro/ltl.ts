/**
 * Micro-benchmark of the LTLf core (src/engines/shield/ltl): (1) agreement of the batch evaluator and
 * of the incremental monitor (both readings, every prefix) with an independent reference evaluator on
 * random formula/trace pairs; (2) the monitor's cost per pushed step for 50 typical policy rules over
 * 1,000-step trajectories, showing it is flat in the step index, next to the cost of re-evaluating the
 * whole prefix at every step. Run standalone: `npx tsx bench/micro/ltl.ts [pairs]` prints JSON.
 */
import { pathToFileURL } from "node:url";
import {
  createMonitor,
  evaluate,
  evaluatePositions,
  formatLtl,
  type LtlAst,
  type LtlMonitor,
  type LtlStep,
  parseLtl,
} from "../../src/engines/shield/ltl/index.js";
import { createRandom } from "../../src/util/seeded-random.js";

export interface BenchLtlOptions {
  /** Random formula/trace pairs checked against the reference (default 100,000). */
  pairs?: number;
  /** Steps per trajectory in the timing part (default 1,000). */
  steps?: number;
  /** Trajectories timed (default 5); each pushes every step into all 50 monitors. */
  runs?: number;
  seed?: number;
}

export interface BenchLtlResult {
  agreementPairs: number;
  agreementFailures: number;
  /** Positions/prefixes compared in all (batch at every position + monitor atStart and atEnd per prefix). */
  agreementChecks: number;
  firstFailure?: { formula: string; trace: LtlStep[] };
  rules: number;
  /** Per pushed step and rule, over every step of every timed trajectory, in microseconds. */
  monitorStepP50Us: number;
  monitorStepP95Us: number;
  /**
   * Per pushed step and rule over the first and the last 100 steps of the trajectories: medians
   * (robust to garbage-collection pauses) and means (which include them).
   */
  flatPerStep: {
    steps: number;
    firstHundredUs: number;
    lastHundredUs: number;
    firstHundredMeanUs: number;
    lastHundredMeanUs: number;
  };
  /** Mean cost of getting the same reading by re-running the batch evaluator on the whole prefix. */
  rescanPerStep: { firstHundredUs: number; lastHundredUs: number };
  /** Largest live decision-diagram state of any rule's monitor (nodes). */
  maxLiveNodes: number;
  agreementSeconds: number;
  node: string;
}

/** 50 rule shapes of the kind policy extraction produces: invariants, orderings, eventualities. */
export const TYPICAL_RULES: readonly string[] = [
  "G(delete_data -> O confirm)",
  "G(!(send_email & pii))",
  "G(submit -> Y review)",
  "F goal",
  "G(write_file -> (approve S login))",
  "G(logout -> !X read_file)",
  "G(error -> F retry)",
  "G(pii -> !network)",
  "H(!delete_data | confirm)",
  "G(network -> O login)",
  "G(delete_data -> Y confirm)",
  "G(!network) | F approve",
  "!delete_data U confirm",
  "G(login -> WX !login)",
  "G(send_email -> O(review & !pii))",
  "G(approve -> O submit)",
  "F(submit & X F approve)",
  "G(read_file -> !(pii & network))",
  "G(write_file -> H !error)",
  "G(retry -> Y error | Y retry)",
  "G((send_email & pii) -> O approve)",
  "G(logout -> G !network)",
  "G(delete_data -> !O logout)",
  "confirm R !delete_data",
  "G(submit -> F(approve | error))",
  "G(network -> (login S login))",
  "G(error -> X(retry | logout))",
  "F login & G(network -> O login)",
  "G(!(delete_data & write_file))",
  "G(approve -> !Y approve)",
  "G(pii -> (review S pii))",
  "G(send_email -> !F delete_data)",
  "G(O error -> F(retry & X !error))",
  "G(read_file | write_file | network | login | logout | goal | review | submit | approve | confirm | error | retry | pii | send_email | delete_data | true)",
  "G(delete_data -> (confirm & Y review))",
  "G(login -> !O logout)",
  "G(submit -> H !delete_data)",
  "F(goal & O review)",
  "G(logout -> O(login & F logout))",
  "G(network <-> O login)",
  "G(approve -> (submit S review))",
  "G(retry -> O(error & !Y retry))",
  "G(pii -> X !send_email)",
  "G(write_file -> WX(read_file | review))",
  "G(error -> (!submit U retry))",
  "G(confirm -> F delete_data) | G !confirm",
  "(login R !network) & G(logout -> G !login)",
  "G(send_email -> Y Y review)",
  "G((network & pii) -> H approve)",
  "G F review -> F goal",
];

const RULE_ATOMS = [
  "delete_data",
  "confirm",
  "send_email",
  "pii",
  "submit",
  "review",
  "goal",
  "write_file",
  "approve",
  "login",
  "logout",
  "read_file",
  "error",
  "retry",
  "network",
];

function random(seed: number): () => number {
  return createRandom({ seed });
}

const UNARY = ["!", "X", "WX", "G", "F", "Y", "O", "H"] as const;
const BINARY = ["&", "|", "->", "<->", "U", "R", "S"] as const;
const ATOMS = ["a", "b", "c"];

function randomFormula(rand: () => number, depth: number): LtlAst {
  const roll = rand();
  if (depth === 0 || roll < 0.25) {
    if (rand() < 0.1) return { op: rand() < 0.5 ? "true" : "false" };
    return { op: "atom", name: ATOMS[Math.floor(rand() * ATOMS.length)] as string };
  }
  if (roll < 0.6) {
    return {
      op: UNARY[Math.floor(rand() * UNARY.length)] as (typeof UNARY)[number],
      arg: randomFormula(rand, depth - 1),
    };
  }
  return {
    op: BINARY[Math.floor(rand() * BINARY.length)] as (typeof BINARY)[number],
    left: randomFormula(rand, depth - 1),
    right: randomFormula(rand, depth - 1),
  };
}

function randomTrace(rand: () => number, atoms: readonly string[], length: number, p: number): LtlStep[] {
  return Array.from({ length }, () => {
    const step: Record<string, boolean> = {};
    for (const name of atoms) if (rand() < p) step[name] = true;
    return step;
  });
}

/**
 * Reference semantics straight from the definitions, position by position (independent of the
 * implementation, and of the test suite's own reference). Memoised per (node, position).
 */
function referenceAt(formula: LtlAst, trace: readonly LtlStep[], at: number): boolean {
  const n = trace.length;
  const memo = new Map<LtlAst, boolean[]>();
  const sat = (f: LtlAst, i: number): boolean => {
    if (i < 0 || i >= n) return false;
    let row = memo.get(f);
    if (row === undefined) {
      row = [];
      memo.set(f, row);
    }
    const known = row[i];
    if (known !== undefined) return known;
    let v = false;
    switch (f.op) {
      case "true":
        v = true;
        break;
      case "false":
        v = false;
        break;
      case "atom":
        v = (trace[i] as LtlStep)[f.name] === true;
        break;
      case "!":
        v = !sat(f.arg, i);
        break;
      case "&":
        v = sat(f.left, i) && sat(f.right, i);
        break;
      case "|":
        v = sat(f.left, i) || sat(f.right, i);
        break;
      case "->":
        v = !sat(f.left, i) || sat(f.right, i);
        break;
      case "<->":
        v = sat(f.left, i) === sat(f.right, i);
        break;
      case "X":
        v = i + 1 < n && sat(f.arg, i + 1);
        break;
      case "WX":
        v = i + 1 >= n || sat(f.arg, i + 1);
        break;
      case "Y":
        v = i >= 1 && sat(f.arg, i - 1);
        break;
      case "F":
        for (let j = i; j < n && !v; j++) v = sat(f.arg, j);
        break;
      case "G":
        v = true;
        for (let j = i; j < n && v; j++) v = sat(f.arg, j);
        break;
      case "O":
        for (let j = 0; j <= i && !v; j++) v = sat(f.arg, j);
        break;
      case "H":
        v = true;
        for (let j = 0; j <= i && v; j++) v = sat(f.arg, j);
        break;
      case "U":
        for (let j = i; j < n && !v; j++) {
          let before = true;
          for (let k = i; k < j && before; k++) before = sat(f.left, k);
          v = before && sat(f.right, j);
        }
        break;
      case "R":
        // Not (not-left Until not-right), spelled out.
        v = true;
        for (let j = i; j < n && v; j++) {
          let before = true;
          for (let k = i; k < j && before; k++) before = !sat(f.left, k);
          if (before && !sat(f.right, j)) v = false;
        }
        break;
      case "S":
        for (let j = i; j >= 0 && !v; j--) {
          let after = true;
          for (let k = j + 1; k <= i && after; k++) after = sat(f.left, k);
          v = after && sat(f.right, j);
        }
        break;
    }
    row[i] = v;
    return v;
  };
  return sat(formula, at);
}

function agreement(options: {
  pairs: number;
  seed: number;
}): Pick<BenchLtlResult, "agreementPairs" | "agreementFailures" | "agreementChecks" | "firstFailure"> {
  const rand = random(options.seed);
  let failures = 0;
  let checks = 0;
  let firstFailure: BenchLtlResult["firstFailure"];
  for (let pair = 0; pair < options.pairs; pair++) {
    const ast = randomFormula(rand, 1 + Math.floor(rand() * 4));
    const trace = randomTrace(rand, ATOMS, 1 + Math.floor(rand() * 10), 0.5);
    let ok = true;
    const batch = evaluatePositions({ ast, trace });
    for (let i = 0; i < trace.length; i++) {
      checks++;
      if (batch[i] !== referenceAt(ast, trace, i)) ok = false;
    }
    const monitor = createMonitor({ ast });
    for (let m = 1; m <= trace.length; m++) {
      const prefix = trace.slice(0, m);
      const atStart = monitor.push({ step: trace[m - 1] as LtlStep });
      checks += 2;
      if (atStart !== referenceAt(ast, prefix, 0)) ok = false;
      if (monitor.reading().atEnd !== referenceAt(ast, prefix, m - 1)) ok = false;
    }
    if (!ok) {
      failures++;
      firstFailure ??= { formula: formatLtl({ ast }), trace };
    }
  }
  return {
    agreementPairs: options.pairs,
    agreementFailures: failures,
    agreementChecks: checks,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

const mean = (values: readonly number[]): number =>
  values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);
const round = (value: number): number => Math.round(value * 1000) / 1000;

function timing(options: { steps: number; runs: number; seed: number }) {
  const asts = TYPICAL_RULES.map((formula) => parseLtl({ formula }));
  const rand = random(options.seed ^ 0x9e3779b9);
  const perStep: number[] = [];
  const byIndex: number[][] = Array.from({ length: options.steps }, () => []);
  let maxLiveNodes = 0;
  // One untimed warm-up trajectory so that the JIT has settled before measuring.
  for (let run = -1; run < options.runs; run++) {
    const trace = randomTrace(rand, RULE_ATOMS, options.steps, 0.2);
    const monitors: LtlMonitor[] = asts.map((ast) => createMonitor({ ast }));
    for (let i = 0; i < trace.length; i++) {
      const step = trace[i] as LtlStep;
      const start = process.hrtime.bigint();
      for (const monitor of monitors) monitor.push({ step });
      const us = Number(process.hrtime.bigint() - start) / 1000 / monitors.length;
      if (run >= 0) {
        perStep.push(us);
        byIndex[i]?.push(us);
      }
    }
    for (const monitor of monitors) maxLiveNodes = Math.max(maxLiveNodes, monitor.stats().liveNodes);
  }
  const sorted = [...perStep].sort((x, y) => x - y);
  const window = Math.min(100, options.steps);
  const first = byIndex.slice(0, window).flat();
  const last = byIndex.slice(options.steps - window).flat();
  const median = (values: number[]): number =>
    percentile(
      [...values].sort((x, y) => x - y),
      50,
    );

  // Baseline: re-evaluate the whole prefix at every step (what a monitor avoids), for the same windows.
  const trace = randomTrace(rand, RULE_ATOMS, options.steps, 0.2);
  const rescan = (from: number, to: number): number => {
    const start = process.hrtime.bigint();
    for (let i = from; i < to; i++) {
      const prefix = trace.slice(0, i + 1);
      for (const ast of asts) evaluate({ ast, trace: prefix });
    }
    return Number(process.hrtime.bigint() - start) / 1000 / ((to - from) * asts.length);
  };
  rescan(0, window);
  return {
    rules: asts.length,
    monitorStepP50Us: round(percentile(sorted, 50)),
    monitorStepP95Us: round(percentile(sorted, 95)),
    flatPerStep: {
      steps: options.steps,
      firstHundredUs: round(median(first)),
      lastHundredUs: round(median(last)),
      firstHundredMeanUs: round(mean(first)),
      lastHundredMeanUs: round(mean(last)),
    },
    rescanPerStep: {
      firstHundredUs: round(rescan(0, window)),
      lastHundredUs: round(rescan(options.steps - window, options.steps)),
    },
    maxLiveNodes,
  };
}

export async function benchLtl(options: BenchLtlOptions = {}): Promise<BenchLtlResult> {
  const seed = options.seed ?? 1;
  const started = process.hrtime.bigint();
  const agreed = agreement({ pairs: options.pairs ?? 100_000, seed });
  const agreementSeconds = round(Number(process.hrtime.bigint() - started) / 1e9);
  const timed = timing({ steps: options.steps ?? 1000, runs: options.runs ?? 5, seed });
  return { ...agreed, ...timed, agreementSeconds, node: process.version };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pairs = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
  const result = await benchLtl(pairs === undefined ? {} : { pairs });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
