/**
 * Micro-benchmark of the shield runtime (src/engines/shield/runtime): the cost of deciding one step —
 * assignment, LTLf monitors read in μ+ and μ−, the Markov-logic decision — for action circuits of
 * 10, 25 and 50 rules (p50/p95 per step, no model), and how that cost evolves along 1,000-step
 * trajectories (median of the first 100 steps against the last 100: it should be flat, because the
 * shield keeps per-trajectory state and never re-reads earlier steps), through a session and through
 * `check` with a trajectory id. Also times building circuits for 500 predicates and 3,000 rules.
 * Goals: p50 < 2 ms per step for 50-rule circuits; flat per-step cost.
 * Run standalone: `npx tsx bench/micro/shield.ts [steps] [runs]` prints JSON.
 */
import { pathToFileURL } from "node:url";
import { type Policy, PolicySchema } from "../../src/core/policy.js";
import type { Step } from "../../src/core/subject.js";
import { buildCircuits } from "../../src/engines/shield/circuits/build-circuits.js";
import { createShieldEngine } from "../../src/engines/shield/runtime/shield-engine.js";
import { createRandom } from "../../src/util/seeded-random.js";

export interface BenchShieldOptions {
  /** Steps per trajectory (default 1,000). */
  steps?: number;
  /** Trajectories per configuration (default 3). */
  runs?: number;
  seed?: number;
  /** Circuit sizes measured (default [10, 25, 50]). */
  sizes?: number[];
  /** Predicates and rules of the circuit-building measurement (default 500 and 3,000). */
  circuitBuild?: { predicates: number; rules: number };
}

export interface StepTiming {
  rules: number;
  stepP50Ms: number;
  stepP95Ms: number;
  /** Medians of the first and last 100 steps (session). */
  firstHundredMs: number;
  lastHundredMs: number;
  /** Last/first ratio (1 = flat). */
  flatRatio: number;
  /** Same through `check` with a trajectory id (state found by id, validated by fingerprint). */
  check: { stepP50Ms: number; firstHundredMs: number; lastHundredMs: number };
  /** Share of steps denied or asked (so the decisions are not trivial). */
  deniedShare: number;
}

export interface BenchShieldResult {
  steps: number;
  runs: number;
  circuits: StepTiming[];
  circuitBuild: { predicates: number; rules: number; circuits: number; ms: number };
  goals: { p50Under2msAt50Rules: boolean; flat: boolean };
  node: string;
}

const STATES = 20;

const TEMPLATES: ReadonlyArray<(a: string, b: string) => string> = [
  (a, b) => `G(act -> !(${a} & ${b}))`,
  (a) => `G(act -> O ${a})`,
  (a, b) => `G(act & ${a} -> Y ${b})`,
  (a, b) => `G(act -> (${a} S ${b}) | !${a})`,
  (a, b) => `G((act & ${a}) -> !Y(act & ${b}))`,
  (a, b) => `G(act -> H(${a} -> !${b}) | O ${b})`,
];

/** A policy whose action `act` has a circuit of `size` step rules over 20 state predicates. */
export function circuitPolicy(options: { size: number }): Policy {
  const predicates = [
    {
      name: "act",
      kind: "action",
      description: "performs the guarded operation",
      binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "act" } },
    },
    ...Array.from({ length: STATES }, (_, i) => ({
      name: `s${i}`,
      kind: "state",
      description: `condition number ${i}`,
      binding: { kind: "condition", when: { field: `args.s${i}`, op: "eq", value: true } },
    })),
  ];
  const temporalRules = Array.from({ length: options.size }, (_, k) => ({
    id: `r${k}`,
    formula: TEMPLATES[k % TEMPLATES.length]!(`s${k % STATES}`, `s${(k * 7 + 3) % STATES}`),
    description: `rule ${k}`,
  }));
  return PolicySchema.parse({
    name: `bench-${options.size}`,
    specification: "",
    requests: "",
    rules: { predicates, temporalRules },
  });
}

function trajectory(seed: number, steps: number): Step[] {
  const random = createRandom({ seed });
  return Array.from({ length: steps }, () => {
    const args: Record<string, unknown> = {};
    for (let i = 0; i < STATES; i += 1) if (random() < 0.3) args[`s${i}`] = true;
    return { action: random() < 0.7 ? "act" : "idle", args };
  });
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

function median(values: readonly number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

async function timeCircuit(size: number, steps: number, runs: number, seed: number): Promise<StepTiming> {
  const policy = circuitPolicy({ size });
  const all: number[] = [];
  const first: number[] = [];
  const last: number[] = [];
  const checkAll: number[] = [];
  const checkFirst: number[] = [];
  const checkLast: number[] = [];
  let denied = 0;
  let decided = 0;
  for (let run = 0; run < runs; run += 1) {
    const steps_ = trajectory(seed + run, steps);
    const session = createShieldEngine().openSession({ policy, input: "bench" });
    for (const [i, step] of steps_.entries()) {
      const t = performance.now();
      const d = await session.step({ step });
      const ms = performance.now() - t;
      all.push(ms);
      if (i < 100) first.push(ms);
      if (i >= steps - 100) last.push(ms);
      decided += 1;
      if (!d.allowed) denied += 1;
    }
    const engine = createShieldEngine();
    for (let n = 1; n <= steps; n += 1) {
      const t = performance.now();
      await engine.check({
        policy,
        subject: { input: "bench", output: "", trajectory: steps_.slice(0, n), id: `run-${run}` },
      });
      const ms = performance.now() - t;
      checkAll.push(ms);
      if (n <= 100) checkFirst.push(ms);
      if (n > steps - 100) checkLast.push(ms);
    }
  }
  const sorted = [...all].sort((a, b) => a - b);
  const f = median(first);
  const l = median(last);
  return {
    rules: size,
    stepP50Ms: round(quantile(sorted, 0.5)),
    stepP95Ms: round(quantile(sorted, 0.95)),
    firstHundredMs: round(f),
    lastHundredMs: round(l),
    flatRatio: round(f > 0 ? l / f : 1),
    check: {
      stepP50Ms: round(median(checkAll)),
      firstHundredMs: round(median(checkFirst)),
      lastHundredMs: round(median(checkLast)),
    },
    deniedShare: round(denied / Math.max(1, decided)),
  };
}

function circuitBuildTiming(predicates: number, rules: number): BenchShieldResult["circuitBuild"] {
  const actions = Math.max(1, Math.floor(predicates / 5));
  const states = predicates - actions;
  const groups = Math.max(1, Math.floor(states / 40));
  const preds = [
    ...Array.from({ length: actions }, (_, i) => ({
      name: `act_${i}`,
      kind: "action",
      description: `performs operation number ${i}`,
    })),
    ...Array.from({ length: states }, (_, i) => ({
      name: `state_${i}`,
      kind: "state",
      description: `condition ${i % 40} of group ${Math.floor(i / 40)}`,
    })),
  ];
  const temporalRules = Array.from({ length: rules }, (_, i) => {
    const g = (i * 7) % groups;
    const s1 = `state_${(g * 40 + (i % 40)) % states}`;
    const s2 = `state_${(g * 40 + ((i * 13) % 40)) % states}`;
    return i % 10 === 9
      ? { id: `r${i}`, formula: `G(${s1} -> ${s2})`, description: "physical", type: "physical" }
      : { id: `r${i}`, formula: `G(act_${i % actions} & ${s1} -> !${s2})`, description: "action" };
  });
  const policy = PolicySchema.parse({
    name: "build",
    specification: "",
    requests: "",
    rules: { predicates: preds, temporalRules },
  });
  const t = performance.now();
  const circuits = buildCircuits({ policy, seed: 1 });
  return { predicates, rules, circuits: circuits.length, ms: Math.round(performance.now() - t) };
}

export async function benchShield(options: BenchShieldOptions = {}): Promise<BenchShieldResult> {
  const steps = options.steps ?? 1000;
  const runs = options.runs ?? 3;
  const seed = options.seed ?? 1;
  const circuits: StepTiming[] = [];
  // Warm-up so the first configuration is not charged for JIT compilation.
  await timeCircuit(10, Math.min(200, steps), 1, seed + 1000);
  for (const size of options.sizes ?? [10, 25, 50]) circuits.push(await timeCircuit(size, steps, runs, seed));
  const build = options.circuitBuild ?? { predicates: 500, rules: 3000 };
  const at50 = circuits.find((c) => c.rules === 50) ?? circuits.at(-1)!;
  return {
    steps,
    runs,
    circuits,
    circuitBuild: circuitBuildTiming(build.predicates, build.rules),
    goals: {
      p50Under2msAt50Rules: at50.stepP50Ms < 2,
      flat: circuits.every((c) => c.flatRatio < 1.5),
    },
    node: process.version,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const steps = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
  const runs = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
  const result = await benchShield({ ...(steps ? { steps } : {}), ...(runs ? { runs } : {}) });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
