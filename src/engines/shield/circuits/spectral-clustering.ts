/**
 * Spectral clustering (normalised Laplacian, Ng–Jordan–Weiss): L = I − D^{-1/2} W D^{-1/2} is
 * decomposed with ml-matrix, the rows of its k leading eigenvectors (smallest eigenvalues) are
 * normalised and grouped with k-means (ml-kmeans, seeded k-means++), so the result is a function of
 * the affinity and the seed alone. Unless k is given it is chosen by the eigengap: the k in [1, maxK]
 * with the largest λ_{k+1} − λ_k, i.e. the number of nearly disconnected groups the graph shows.
 */
import { kmeans } from "ml-kmeans";
import { EigenvalueDecomposition, Matrix } from "ml-matrix";
import { WardenError } from "../../../core/errors.js";

export interface SpectralClusteringResult {
  /** Cluster of each node, numbered 0.. in order of first appearance. */
  labels: number[];
  k: number;
  /** Eigenvalues of the normalised Laplacian, ascending (for diagnostics). */
  eigenvalues: number[];
}

function checkAffinity(affinity: readonly (readonly number[])[]): number {
  const n = affinity.length;
  for (const [i, row] of affinity.entries()) {
    if (row.length !== n) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `affinity: row ${i} has ${row.length} entries, expected ${n} (a square matrix)`,
        details: { field: "affinity" },
      });
    }
    for (const v of row) {
      if (!Number.isFinite(v) || v < 0) {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: `affinity: row ${i} holds ${v}; affinities are finite and >= 0`,
          details: { field: "affinity" },
        });
      }
    }
  }
  return n;
}

/** Renumbers labels 0.. by first appearance, so equal partitions print equally. */
function canonicalLabels(labels: readonly number[]): number[] {
  const map = new Map<number, number>();
  return labels.map((l) => {
    let c = map.get(l);
    if (c === undefined) {
      c = map.size;
      map.set(l, c);
    }
    return c;
  });
}

export function spectralClustering(options: {
  /** Symmetric, non-negative n×n affinity (the diagonal is ignored). */
  affinity: readonly (readonly number[])[];
  /** Number of clusters; chosen by the eigengap when absent. */
  k?: number;
  /** Largest k the eigengap may choose (default 12). */
  maxK?: number;
  seed?: number;
}): SpectralClusteringResult {
  const n = checkAffinity(options.affinity);
  if (n === 0) return { labels: [], k: 0, eigenvalues: [] };
  if (n === 1) return { labels: [0], k: 1, eigenvalues: [0] };
  const w = options.affinity.map((row, i) => row.map((v, j) => (i === j ? 0 : v)));
  // Symmetrise defensively: an asymmetric input would give complex eigenvalues.
  for (let i = 0; i < n; i += 1)
    for (let j = i + 1; j < n; j += 1) {
      const v = ((w[i]![j] as number) + (w[j]![i] as number)) / 2;
      w[i]![j] = v;
      w[j]![i] = v;
    }
  let degrees = w.map((row) => row.reduce((s, v) => s + v, 0));
  if (degrees.some((d) => d === 0)) {
    // An isolated node has no normalised row; a faint uniform affinity keeps it in the graph as its
    // own group (it is far from everything) without changing the groups of the others.
    const positive = w.flat().filter((v) => v > 0);
    const delta = 1e-6 * (positive.length > 0 ? positive.reduce((s, v) => s + v, 0) / positive.length : 1);
    for (let i = 0; i < n; i += 1)
      for (let j = 0; j < n; j += 1) if (i !== j) w[i]![j] = (w[i]![j] as number) + delta;
    degrees = w.map((row) => row.reduce((s, v) => s + v, 0));
  }
  const inv = degrees.map((d) => 1 / Math.sqrt(d));
  const lap = new Matrix(n, n);
  for (let i = 0; i < n; i += 1)
    for (let j = 0; j < n; j += 1) {
      const m = (w[i]![j] as number) * (inv[i] as number) * (inv[j] as number);
      lap.set(i, j, (i === j ? 1 : 0) - m);
    }
  const evd = new EigenvalueDecomposition(lap, { assumeSymmetric: true });
  const values = evd.realEigenvalues;
  const order = values
    .map((_, i) => i)
    .sort((a, b) => (values[a] as number) - (values[b] as number) || a - b);
  const eigenvalues = order.map((i) => values[i] as number);
  let k = options.k;
  if (k === undefined) {
    const maxK = Math.max(1, Math.min(options.maxK ?? 12, n - 1));
    k = 1;
    let best = -Infinity;
    for (let c = 1; c <= maxK; c += 1) {
      const gap = (eigenvalues[c] as number) - (eigenvalues[c - 1] as number);
      if (gap > best + 1e-12) {
        best = gap;
        k = c;
      }
    }
  }
  if (!Number.isInteger(k) || k < 1) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `k: expected a positive integer, got ${k}`,
      details: { field: "k" },
    });
  }
  k = Math.min(k, n);
  if (k === 1) return { labels: new Array<number>(n).fill(0), k: 1, eigenvalues };
  const vectors = evd.eigenvectorMatrix;
  const rows: number[][] = [];
  for (let i = 0; i < n; i += 1) {
    const row = order.slice(0, k).map((c) => vectors.get(i, c));
    const norm = Math.sqrt(row.reduce((s, v) => s + v * v, 0)) || 1;
    rows.push(row.map((v) => v / norm));
  }
  const result = kmeans(rows, k, { seed: options.seed ?? 1, initialization: "kmeans++", maxIterations: 200 });
  const labels = canonicalLabels(result.clusters);
  return { labels, k: new Set(labels).size, eigenvalues };
}
