/**
 * Action-based rule circuits (ShieldAgent §3.2.4). The state predicates are clustered spectrally —
 * affinity = co-occurrence in rules (each rule with m state predicates adds 1/(m−1) to every pair it
 * joins, so a long rule does not outweigh many short ones) plus λ × the lexical similarity of
 * "name + description" where that similarity reaches a threshold (character trigrams; near-synonyms
 * the extraction wrote twice end up together). Connected groups of that graph are split further by
 * spectral clustering with k chosen by the eigengap (bounded by maxClusters per group); a forced
 * number of clusters clusters the whole graph at once instead.
 *
 * Then every action predicate gets one circuit: every rule that mentions it, plus the clusters of the
 * state predicates those rules read. Physical rules (no action predicate) join the circuit of every
 * action whose clusters they touch: a physical rule constrains the state predicates the action's rules
 * depend on (e.g. `G(on_admin_page -> is_sensitive)` informs `G(delete -> !is_sensitive)` when
 * is_sensitive cannot be observed), and in the Markov logic network it only matters through those
 * shared predicates, so a circuit that lacks it would answer differently from the whole model. A
 * physical rule that shares no cluster with any action rule can never change a step's verdict and is
 * in no circuit.
 *
 * Predicates a formula uses without declaring them count as state predicates. Everything is ordered
 * as the policy lists it, and k-means is seeded, so the same policy and seed give the same circuits.
 */
import { WardenError } from "../../../core/errors.js";
import type { Circuit, Policy, Predicate, TemporalRule } from "../../../core/policy.js";
import { ruleAtoms } from "./rule-atoms.js";
import { spectralClustering } from "./spectral-clustering.js";
import { trigramCosine, trigramVector } from "./trigram-similarity.js";

export interface ClusterOptions {
  /** A number of clusters for the whole state-predicate graph, or the clusters themselves. */
  clusters?: number | string[][];
  /** Seed of k-means (default 1). */
  seed?: number;
  /** Largest number of clusters the eigengap may choose per connected group (default 8). */
  maxClusters?: number;
  /** λ: weight of lexical similarity next to co-occurrence (default 0.5). */
  lexicalWeight?: number;
  /** Lexical similarities below this are ignored (default 0.5). */
  lexicalThreshold?: number;
}

export interface StatePredicateClusters {
  /** The state predicates, in policy order (declared first, then undeclared atoms). */
  predicates: string[];
  /** Clusters of predicate names, in order of their first member. */
  clusters: string[][];
}

interface RuleView {
  rule: TemporalRule;
  actions: string[];
  states: string[];
}

function views(policy: Policy): { rules: RuleView[]; predicates: Predicate[]; states: string[] } {
  const predicates = policy.rules?.predicates ?? [];
  const kind = new Map(predicates.map((p) => [p.name, p.kind] as const));
  const rules = (policy.rules?.temporalRules ?? []).map((rule) => {
    const atoms = ruleAtoms({ rule });
    return {
      rule,
      actions: atoms.filter((a) => kind.get(a) === "action"),
      states: atoms.filter((a) => kind.get(a) !== "action"),
    };
  });
  const states: string[] = predicates.filter((p) => p.kind === "state").map((p) => p.name);
  const seen = new Set(states);
  for (const r of rules)
    for (const s of r.states)
      if (!seen.has(s)) {
        seen.add(s);
        states.push(s);
      }
  return { rules, predicates, states };
}

function affinityMatrix(
  states: readonly string[],
  rules: readonly RuleView[],
  predicates: readonly Predicate[],
  options: ClusterOptions,
): number[][] {
  const n = states.length;
  const index = new Map(states.map((s, i) => [s, i] as const));
  const w = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  let maxCooc = 0;
  for (const r of rules) {
    const ids = [...new Set(r.states)].map((s) => index.get(s)!);
    if (ids.length < 2) continue;
    const share = 1 / (ids.length - 1);
    for (let a = 0; a < ids.length; a += 1)
      for (let b = a + 1; b < ids.length; b += 1) {
        const i = ids[a]!;
        const j = ids[b]!;
        const v = (w[i]![j] as number) + share;
        w[i]![j] = v;
        w[j]![i] = v;
        if (v > maxCooc) maxCooc = v;
      }
  }
  if (maxCooc > 0) for (const row of w) for (let j = 0; j < n; j += 1) row[j] = (row[j] as number) / maxCooc;
  const lambda = options.lexicalWeight ?? 0.5;
  const threshold = options.lexicalThreshold ?? 0.5;
  if (lambda > 0) {
    const description = new Map(predicates.map((p) => [p.name, p.description] as const));
    const vectors = states.map((s) => trigramVector({ text: `${s} ${description.get(s) ?? ""}` }));
    for (let i = 0; i < n; i += 1)
      for (let j = i + 1; j < n; j += 1) {
        const c = trigramCosine({ a: vectors[i]!, b: vectors[j]! });
        if (c >= threshold) {
          w[i]![j] = (w[i]![j] as number) + lambda * c;
          w[j]![i] = w[i]![j] as number;
        }
      }
  }
  return w;
}

/** Connected groups of the affinity graph (nodes in index order). */
function components(w: readonly (readonly number[])[]): number[][] {
  const n = w.length;
  const seen = new Uint8Array(n);
  const out: number[][] = [];
  for (let s = 0; s < n; s += 1) {
    if (seen[s]) continue;
    const group: number[] = [];
    const stack = [s];
    seen[s] = 1;
    while (stack.length > 0) {
      const i = stack.pop()!;
      group.push(i);
      const row = w[i]!;
      for (let j = 0; j < n; j += 1)
        if (!seen[j] && (row[j] as number) > 0) {
          seen[j] = 1;
          stack.push(j);
        }
    }
    out.push(group.sort((a, b) => a - b));
  }
  return out;
}

function explicitClusters(states: readonly string[], given: readonly string[][]): string[][] {
  const known = new Set(states);
  const placed = new Set<string>();
  const out: string[][] = [];
  given.forEach((cluster, i) => {
    if (!Array.isArray(cluster)) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `clusters.${i}: expected a list of state predicate names`,
        details: { field: `clusters.${i}` },
      });
    }
    const members: string[] = [];
    for (const name of cluster) {
      if (!known.has(name)) {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: `clusters.${i}: "${name}" is not a state predicate of the policy`,
          details: { field: `clusters.${i}` },
        });
      }
      if (placed.has(name)) {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: `clusters.${i}: "${name}" is already in an earlier cluster`,
          details: { field: `clusters.${i}` },
        });
      }
      placed.add(name);
      members.push(name);
    }
    if (members.length > 0) out.push(members);
  });
  for (const s of states) if (!placed.has(s)) out.push([s]);
  return out;
}

/** Clusters the policy's state predicates (see the module comment). */
export function clusterStatePredicates(options: { policy: Policy } & ClusterOptions): StatePredicateClusters {
  const { rules, predicates, states } = views(options.policy);
  return { predicates: states, clusters: clustersOf(states, rules, predicates, options) };
}

function clustersOf(
  states: string[],
  rules: RuleView[],
  predicates: Predicate[],
  options: ClusterOptions,
): string[][] {
  if (Array.isArray(options.clusters)) return explicitClusters(states, options.clusters);
  if (states.length === 0) return [];
  const w = affinityMatrix(states, rules, predicates, options);
  const seed = options.seed ?? 1;
  const groups: number[][] = [];
  if (typeof options.clusters === "number") {
    if (!Number.isInteger(options.clusters) || options.clusters < 1) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `clusters: expected a positive integer or a list of clusters, got ${options.clusters}`,
        details: { field: "clusters" },
      });
    }
    const { labels } = spectralClustering({ affinity: w, k: options.clusters, seed });
    const byLabel = new Map<number, number[]>();
    labels.forEach((l, i) => {
      byLabel.set(l, [...(byLabel.get(l) ?? []), i]);
    });
    groups.push(...byLabel.values());
  } else {
    const maxK = options.maxClusters ?? 8;
    for (const group of components(w)) {
      if (group.length <= 2) {
        groups.push(group);
        continue;
      }
      const sub = group.map((i) => group.map((j) => w[i]![j] as number));
      const { labels } = spectralClustering({ affinity: sub, maxK, seed });
      const byLabel = new Map<number, number[]>();
      labels.forEach((l, pos) => {
        byLabel.set(l, [...(byLabel.get(l) ?? []), group[pos]!]);
      });
      groups.push(...byLabel.values());
    }
  }
  return groups
    .map((g) => [...g].sort((a, b) => a - b))
    .sort((a, b) => a[0]! - b[0]!)
    .map((g) => g.map((i) => states[i]!));
}

/** One circuit per action predicate that some rule mentions (see the module comment). */
export function buildCircuits(options: { policy: Policy } & ClusterOptions): Circuit[] {
  const { rules, predicates, states } = views(options.policy);
  const clusters = clustersOf(states, rules, predicates, options);
  const clusterOf = new Map<string, number>();
  clusters.forEach((c, i) => {
    for (const s of c) clusterOf.set(s, i);
  });
  // Physical rules by the clusters they touch.
  const physicalByCluster = new Map<number, number[]>();
  rules.forEach((r, i) => {
    if (r.actions.length > 0) return;
    for (const c of new Set(r.states.map((s) => clusterOf.get(s)!)))
      physicalByCluster.set(c, [...(physicalByCluster.get(c) ?? []), i]);
  });
  const rulesByAction = new Map<string, number[]>();
  rules.forEach((r, i) => {
    for (const a of new Set(r.actions)) rulesByAction.set(a, [...(rulesByAction.get(a) ?? []), i]);
  });
  const circuits: Circuit[] = [];
  for (const p of predicates) {
    if (p.kind !== "action") continue;
    const own = rulesByAction.get(p.name);
    if (!own) continue;
    const touched = new Set<number>();
    for (const i of own) for (const s of rules[i]!.states) touched.add(clusterOf.get(s)!);
    const members = new Set(own);
    for (const c of touched) for (const i of physicalByCluster.get(c) ?? []) members.add(i);
    circuits.push({
      action: p.name,
      rules: [...members].sort((a, b) => a - b).map((i) => rules[i]!.rule.id),
      clusters: [...touched].sort((a, b) => a - b).map((c) => [...clusters[c]!]),
    });
  }
  return circuits;
}
