import { distance } from "fastest-levenshtein";
import { describe, expect, it } from "vitest";
import {
  createSeededRandom,
  generateSyntheticDemonstrations,
  perturbDemonstration,
} from "./synthetic-demonstrations.js";

describe("synthetic EHRAgent-like demonstrations", () => {
  it("are deterministic per seed and differ across seeds", () => {
    const a = generateSyntheticDemonstrations({ count: 20, seed: 9 });
    expect(generateSyntheticDemonstrations({ count: 20, seed: 9 })).toEqual(a);
    expect(generateSyntheticDemonstrations({ count: 20, seed: 10 })).not.toEqual(a);
    expect(a.map((d) => d.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(a.map((d) => d.id)).size).toBe(20);
  });

  it("look like EICU-AC cases of about 2,000 characters", () => {
    const corpus = generateSyntheticDemonstrations({ count: 400, seed: 1 });
    const lengths = corpus.map((d) => d.input.length + d.output.length);
    const mean = lengths.reduce((s, n) => s + n, 0) / lengths.length;
    expect(mean).toBeGreaterThan(1500);
    expect(mean).toBeLessThan(2500);
    for (const d of corpus) {
      expect(d.input).toMatch(/^Identity: (physician|nursing|general administration)\nQuestion: /);
      expect(d.output).toMatch(/^Knowledge:\n- [\s\S]*\nGenerated code:\n[\s\S]*LoadDB|SQLInterpreter/);
      expect(d.output).toMatch(/\nAnswer:\n.+$/);
      expect(d.plan.split("\n")).toHaveLength(4);
    }
    expect(new Set(corpus.map((d) => d.label))).toEqual(new Set([0, 1]));
  });

  it("contain near-duplicates: many items are far closer to some other item than to a random one", () => {
    const corpus = generateSyntheticDemonstrations({ count: 120, seed: 4 });
    const probe = corpus.slice(0, 10);
    let near = 0;
    for (const d of probe) {
      const distances = corpus.filter((o) => o !== d).map((o) => distance(d.output, o.output));
      const sorted = [...distances].sort((x, y) => x - y);
      const median = sorted[Math.floor(sorted.length / 2)] as number;
      if ((sorted[0] as number) < median / 3) near++;
    }
    expect(near).toBeGreaterThanOrEqual(7);
  });

  it("perturbs a case into a nearby query", () => {
    const [d] = generateSyntheticDemonstrations({ count: 1, seed: 2 });
    const random = createSeededRandom({ seed: 3 });
    const q = perturbDemonstration({ demonstration: d as NonNullable<typeof d>, random });
    const dist = distance(q.output, d?.output ?? "");
    expect(dist).toBeGreaterThan(0);
    expect(dist).toBeLessThan((d?.output.length ?? 0) / 5);
  });
});
