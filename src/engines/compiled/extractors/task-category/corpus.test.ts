import { describe, expect, it } from "vitest";
import { MIND2WEB_SC_RULES } from "../../../../../test/support/task-category/mind2web-sc-rules.js";
import { type CorpusTask, TASK_CORPUS } from "../../../../../test/support/task-category/task-corpus.js";
import { TASK_HOLDOUT } from "../../../../../test/support/task-category/task-holdout.js";
import { createCategoryClassifier } from "./classifier.js";

const CATEGORIES = ["car", "media", "hotel", "job", "shop", "flight", "other"] as const;

interface Scores {
  exact: number;
  perCategory: Record<string, { precision: number; recall: number; tp: number; fp: number; fn: number }>;
}

/** Per-category precision/recall (a task with no category counts as "other") and the share of exact answers. */
function score(tasks: CorpusTask[]): Scores {
  const classifier = createCategoryClassifier({ rules: MIND2WEB_SC_RULES });
  const counts = Object.fromEntries(CATEGORIES.map((c) => [c, { tp: 0, fp: 0, fn: 0 }]));
  let exact = 0;
  for (const task of tasks) {
    const got = classifier.classify({ text: task.text }).categories.map((c) => c.category);
    const g = new Set<string>(got.length > 0 ? got : ["other"]);
    const e = new Set<string>(task.expect.length > 0 ? task.expect : ["other"]);
    for (const c of CATEGORIES) {
      if (g.has(c) && e.has(c)) counts[c]!.tp++;
      else if (g.has(c)) counts[c]!.fp++;
      else if (e.has(c)) counts[c]!.fn++;
    }
    if (g.size === e.size && [...g].every((c) => e.has(c))) exact++;
  }
  const perCategory = Object.fromEntries(
    Object.entries(counts).map(([c, k]) => [
      c,
      { ...k, precision: k.tp / Math.max(1, k.tp + k.fp), recall: k.tp / Math.max(1, k.tp + k.fn) },
    ]),
  );
  return { exact: exact / tasks.length, perCategory };
}

describe("lexicon classifier on our task corpus", () => {
  it("has 100+ tasks covering every category and Other", () => {
    expect(TASK_CORPUS.length).toBeGreaterThanOrEqual(100);
    for (const c of CATEGORIES) {
      const n = TASK_CORPUS.filter((t) =>
        c === "other" ? t.expect.length === 0 : t.expect.includes(c),
      ).length;
      expect(n, c).toBeGreaterThanOrEqual(10);
    }
  });

  it("keeps per-category precision and recall at or above 0.85 (measured: see the report)", () => {
    const s = score(TASK_CORPUS);
    expect(s.exact).toBeGreaterThanOrEqual(0.9);
    for (const [c, k] of Object.entries(s.perCategory)) {
      expect(k.precision, `${c} precision`).toBeGreaterThanOrEqual(0.85);
      expect(k.recall, `${c} recall`).toBeGreaterThanOrEqual(0.85);
    }
  });

  it("stays accurate on the held-out tasks", () => {
    const s = score(TASK_HOLDOUT);
    expect(s.exact).toBeGreaterThanOrEqual(0.85);
  });
});
