/**
 * The Markov-logic decision of the shield (design.md §1, "Our reading of the inference").
 *
 * A world μ gives every predicate of a circuit a truth value at the current step; rule r holds in μ
 * when its LTLf formula holds on the trajectory so far ending in μ (the caller supplies that test,
 * normally an LTLf monitor's `peek`). P(μ) ∝ exp(Σ_r w_r·1[μ ⊨ r]). μ+ is the step as taken, μ− the
 * same step without the action (the caller builds both). The action is allowed iff
 *     log P(μ+) − log P(μ−) = Σ_r w_r (1[μ+ ⊨ r] − 1[μ− ⊨ r])  ≥  −ε,
 * the partition function cancelling. ε ≥ 0 is the tolerance: with ε = 0 a step may not lower the
 * world's score at all; with ε = 1.5 a step may break one rule of weight 1 (Δ = −1) but not two
 * (Δ = −2) nor one of weight 2. A rule the action does not touch contributes the same to both sides.
 *
 * Predicates left unassigned on a side are marginalised with a uniform prior: each side's score is
 *     S = log mean_u exp(score(μ_u))      (u ranging over the completions of the open predicates),
 * which is log Σ_u exp(score) up to the constant log 2^|U| — the same on both sides when both leave
 * the same predicates open, and the right normalisation when μ− fixes more of them (an action
 * predicate nobody could assign is open in μ+ and false in μ−, "no action"). The sum factorises over
 * the connected components of the graph "rule — open predicate it reads", so each component is
 * enumerated on its own: exactly while it has at most `exactLimit` open predicates (2^k worlds),
 * otherwise estimated from `samples` uniform completions drawn with a seeded generator:
 *     Ŝ_c = log( (1/N) Σ_j exp(s_c(u_j)) ),
 * a consistent estimator of the component's log-mean-exp (biased low by Jensen's inequality, O(1/N)).
 * The seed of a component is derived from its predicates, so the same component gets the same samples
 * on both sides (common random numbers: the noise largely cancels in Δ).
 *
 * Violated rules: w_r > 0 and the rule's probability of holding falls from μ− to μ+. Without open
 * predicates that is exactly "holds in μ−, fails in μ+"; with them the probability is the rule's
 * expected satisfaction under each side's conditional distribution P(u | side) ∝ exp(score(μ_u)).
 *
 * Rules that read the same known values on both sides (and nothing open) cancel and are not evaluated;
 * that shortcut needs both sides to share one `holds` function, as a step decision does.
 *
 * `prepareMln` evaluates the rules on every world once; `solveMln` scores a prepared problem for any
 * weights, so training can re-solve without re-running the monitors.
 */
import { WardenError } from "../../../core/errors.js";
import { createRandom, hashSeed } from "../../../util/seeded-random.js";

export type MlnWorld = Readonly<Record<string, boolean>>;

export interface MlnRule {
  id: string;
  weight: number;
  /** The predicates the rule reads at the current step. */
  atoms: readonly string[];
}

export interface MlnSide {
  /** Truth values known at the current step. */
  values: MlnWorld;
  /** Predicates left open on this side (marginalised). */
  unassigned: readonly string[];
  /** Whether rule `rule` (an index into `rules`) holds in a complete world of this side. */
  holds(options: { rule: number; world: MlnWorld }): boolean;
}

export interface MlnOptions {
  rules: readonly MlnRule[];
  plus: MlnSide;
  minus: MlnSide;
  /** Components with at most this many open predicates are enumerated exactly (default 12). */
  exactLimit?: number;
  /** Completions sampled per larger component (default 4096). */
  samples?: number;
  seed?: number;
}

interface Component {
  /** Indices (into the problem's rules) of the rules of the component. */
  rules: number[];
  atoms: string[];
  /** rows × rules truth table, row-major. */
  table: Uint8Array;
  rows: number;
  exact: boolean;
}

interface SideTable {
  /** Rules with no open predicate on this side: their truth value (rule index -> 0/1). */
  constant: Map<number, number>;
  components: Component[];
}

export interface MlnProblem {
  rules: readonly MlnRule[];
  /** Rules the action cannot affect (same known inputs on both sides, nothing open): they cancel. */
  cancelled: boolean[];
  plus: SideTable;
  minus: SideTable;
  unassigned: { plus: string[]; minus: string[] };
  method: "hard" | "exact" | "sampled";
  /** Worlds evaluated (rule tests = Σ rows × rules per component, plus one per constant rule). */
  evaluations: number;
}

export interface MlnViolation {
  index: number;
  id: string;
  weight: number;
  /** Probability the rule holds in μ+ and in μ− (0 or 1 without open predicates). */
  plus: number;
  minus: number;
}

export interface MlnResult {
  allowed: boolean;
  /** Δ = S(μ+) − S(μ−). */
  delta: number;
  epsilon: number;
  scorePlus: number;
  scoreMinus: number;
  /** Per rule (by index): probability of holding in μ+ / μ−; null for cancelled rules. */
  expectations: { plus: Array<number | null>; minus: Array<number | null> };
  violated: MlnViolation[];
  /** Rules whose probability of holding rises with the action (the mirror image of violated). */
  newlySatisfied: string[];
  method: MlnProblem["method"];
  unassigned: { plus: string[]; minus: string[] };
}

const DEFAULT_EXACT_LIMIT = 12;
const DEFAULT_SAMPLES = 4096;
const TOLERANCE = 1e-9;

function checkOptions(options: MlnOptions): void {
  if (!Array.isArray(options.rules)) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "rules: expected an array",
      details: { field: "rules" },
    });
  }
  options.rules.forEach((r, i) => {
    if (!Number.isFinite(r.weight) || r.weight < 0) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `rules.${i}.weight: expected a finite number >= 0, got ${r.weight}`,
        details: { field: `rules.${i}.weight` },
      });
    }
  });
  const limit = options.exactLimit ?? DEFAULT_EXACT_LIMIT;
  if (!Number.isInteger(limit) || limit < 0 || limit > 24) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `exactLimit: expected an integer in 0..24, got ${limit}`,
      details: { field: "exactLimit" },
    });
  }
  const samples = options.samples ?? DEFAULT_SAMPLES;
  if (!Number.isInteger(samples) || samples < 1) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `samples: expected a positive integer, got ${samples}`,
      details: { field: "samples" },
    });
  }
}

function value(world: MlnWorld, atom: string): boolean {
  return world[atom] === true;
}

function buildSide(
  side: MlnSide,
  rules: readonly MlnRule[],
  active: readonly number[],
  exactLimit: number,
  samples: number,
  seed: number,
): { table: SideTable; evaluations: number } {
  const open = new Set(side.unassigned);
  const constant = new Map<number, number>();
  let evaluations = 0;
  // Union-find over open predicates, joined by the rules that read several of them.
  const parent = new Map<string, string>();
  const find = (a: string): string => {
    let r = a;
    while (parent.get(r) !== r) r = parent.get(r)!;
    let x = a;
    while (parent.get(x) !== r) {
      const next = parent.get(x)!;
      parent.set(x, r);
      x = next;
    }
    return r;
  };
  const ruleOpen = new Map<number, string[]>();
  for (const i of active) {
    const atoms = rules[i]!.atoms.filter((a) => open.has(a));
    if (atoms.length === 0) {
      constant.set(i, side.holds({ rule: i, world: side.values }) ? 1 : 0);
      evaluations += 1;
      continue;
    }
    ruleOpen.set(i, atoms);
    for (const a of atoms) if (!parent.has(a)) parent.set(a, a);
    for (const a of atoms.slice(1)) {
      const ra = find(atoms[0]!);
      const rb = find(a);
      if (ra !== rb) parent.set(rb, ra);
    }
  }
  const groups = new Map<string, { rules: number[]; atoms: Set<string> }>();
  for (const [i, atoms] of ruleOpen) {
    const root = find(atoms[0]!);
    let g = groups.get(root);
    if (!g) {
      g = { rules: [], atoms: new Set() };
      groups.set(root, g);
    }
    g.rules.push(i);
    for (const a of atoms) g.atoms.add(a);
  }
  const components: Component[] = [];
  for (const g of groups.values()) {
    const atoms = [...g.atoms].sort();
    const k = atoms.length;
    const exact = k <= exactLimit;
    const rows = exact ? 2 ** k : samples;
    const table = new Uint8Array(rows * g.rules.length);
    const world: Record<string, boolean> = { ...side.values };
    const random = exact ? undefined : createRandom({ seed: hashSeed({ text: atoms.join(","), seed }) });
    for (let row = 0; row < rows; row += 1) {
      for (let b = 0; b < k; b += 1) {
        world[atoms[b]!] = random ? random() < 0.5 : ((row >>> b) & 1) === 1;
      }
      g.rules.forEach((ruleIndex, c) => {
        table[row * g.rules.length + c] = side.holds({ rule: ruleIndex, world }) ? 1 : 0;
      });
      evaluations += g.rules.length;
    }
    components.push({ rules: g.rules, atoms, table, rows, exact });
  }
  return { table: { constant, components }, evaluations };
}

/** Evaluates every rule the action can affect on every world either side needs (see the module comment). */
export function prepareMln(options: MlnOptions): MlnProblem {
  checkOptions(options);
  const { rules, plus, minus } = options;
  const exactLimit = options.exactLimit ?? DEFAULT_EXACT_LIMIT;
  const samples = options.samples ?? DEFAULT_SAMPLES;
  const seed = options.seed ?? 0;
  const openPlus = new Set(plus.unassigned);
  const openMinus = new Set(minus.unassigned);
  // A rule reading the same known values on both sides has the same truth on both — provided both
  // sides test rules the same way (the same `holds`), which is how a step decision calls this.
  const sameTest = plus.holds === minus.holds;
  const cancelled = rules.map(
    (r) =>
      sameTest &&
      r.atoms.every(
        (a) => !openPlus.has(a) && !openMinus.has(a) && value(plus.values, a) === value(minus.values, a),
      ),
  );
  const active = rules.map((_, i) => i).filter((i) => !cancelled[i]);
  const p = buildSide(plus, rules, active, exactLimit, samples, seed);
  const m = buildSide(minus, rules, active, exactLimit, samples, seed);
  const all = [...p.table.components, ...m.table.components];
  const method = all.length === 0 ? "hard" : all.every((c) => c.exact) ? "exact" : "sampled";
  const touched = (t: SideTable) => [...new Set(t.components.flatMap((c) => c.atoms))].sort();
  return {
    rules,
    cancelled,
    plus: p.table,
    minus: m.table,
    unassigned: { plus: touched(p.table), minus: touched(m.table) },
    method,
    evaluations: p.evaluations + m.evaluations,
  };
}

interface SideScore {
  score: number;
  expectation: Array<number | null>;
}

function scoreSide(table: SideTable, weights: readonly number[], n: number): SideScore {
  const expectation: Array<number | null> = new Array(n).fill(null);
  let score = 0;
  for (const [i, h] of table.constant) {
    score += (weights[i] as number) * h;
    expectation[i] = h;
  }
  for (const c of table.components) {
    const width = c.rules.length;
    const s = new Float64Array(c.rows);
    let max = -Infinity;
    for (let row = 0; row < c.rows; row += 1) {
      let v = 0;
      for (let j = 0; j < width; j += 1) if (c.table[row * width + j]) v += weights[c.rules[j]!] as number;
      s[row] = v;
      if (v > max) max = v;
    }
    let z = 0;
    const hold = new Float64Array(width);
    for (let row = 0; row < c.rows; row += 1) {
      const e = Math.exp((s[row] as number) - max);
      z += e;
      for (let j = 0; j < width; j += 1) if (c.table[row * width + j]) hold[j] = (hold[j] as number) + e;
    }
    score += max + Math.log(z / c.rows);
    c.rules.forEach((r, j) => {
      expectation[r] = (hold[j] as number) / z;
    });
  }
  return { score, expectation };
}

/** Scores a prepared problem with the given weights (default: the rules' own) and tolerance ε. */
export function solveMln(options: {
  problem: MlnProblem;
  weights?: readonly number[];
  epsilon?: number;
}): MlnResult {
  const { problem } = options;
  const epsilon = options.epsilon ?? 0;
  if (!Number.isFinite(epsilon) || epsilon < 0) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `epsilon: expected a finite number >= 0, got ${epsilon}`,
      details: { field: "epsilon" },
    });
  }
  const weights = options.weights ?? problem.rules.map((r) => r.weight);
  if (weights.length !== problem.rules.length || weights.some((w) => !Number.isFinite(w) || w < 0)) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `weights: expected ${problem.rules.length} finite numbers >= 0`,
      details: { field: "weights" },
    });
  }
  const n = problem.rules.length;
  const plus = scoreSide(problem.plus, weights, n);
  const minus = scoreSide(problem.minus, weights, n);
  const delta = plus.score - minus.score;
  const violated: MlnViolation[] = [];
  const newlySatisfied: string[] = [];
  problem.rules.forEach((rule, i) => {
    const a = plus.expectation[i];
    const b = minus.expectation[i];
    if (a === null || a === undefined || b === null || b === undefined) return;
    if ((weights[i] as number) > 0 && a < b - TOLERANCE) {
      violated.push({ index: i, id: rule.id, weight: weights[i] as number, plus: a, minus: b });
    } else if (a > b + TOLERANCE) newlySatisfied.push(rule.id);
  });
  return {
    // A tiny slack absorbs floating-point noise in sums that are exactly −ε on paper.
    allowed: delta >= -epsilon - TOLERANCE,
    delta,
    epsilon,
    scorePlus: plus.score,
    scoreMinus: minus.score,
    expectations: { plus: plus.expectation, minus: minus.expectation },
    violated,
    newlySatisfied,
    method: problem.method,
    unassigned: problem.unassigned,
  };
}

/** prepareMln + solveMln in one call. */
export function decideMln(options: MlnOptions & { epsilon?: number }): MlnResult {
  return solveMln({ problem: prepareMln(options), epsilon: options.epsilon ?? 0 });
}
