/**
 * Mind2Web-SC (GuardAgent's safety-control benchmark for SeeAct) in its official schema, checked
 * against the bundled mind2web-sc policy. The official file is not available offline; our own fixture in
 * the same schema stands in (bench/fixtures/mind2web-sc), and reports say which was used.
 */
import { join } from "node:path";
import { loadPolicy } from "../../policies/load-policy.js";
import { packageRoot } from "../../policies/package-root.js";
import type { BenchCase, LoadedBenchmark } from "../bench-types.js";
import { loadMind2WebSc } from "../datasets/mind2web-sc.js";

export function mind2WebScFixturePath(): string {
  return join(packageRoot(), "bench", "fixtures", "mind2web-sc", "records.json");
}

export async function loadMind2WebScBenchmark(options: { data?: string }): Promise<LoadedBenchmark> {
  const path = options.data ?? mind2WebScFixturePath();
  const dataset = await loadMind2WebSc({ path });
  const cases: BenchCase[] = dataset.records.map((r) => ({
    id: r.id,
    subject: r.subject,
    group: r.label === 1 ? (r.violation ?? "unknown rule") : "allowed",
    truth: {
      label: r.label,
      ...(r.label === 1 && r.violation ? { violations: [r.violation] } : {}),
      ...(r.expectedAction !== null ? { answer: r.expectedAction } : {}),
    },
  }));
  return {
    cases,
    policy: loadPolicy({ ref: "mind2web-sc" }).policy,
    problems: dataset.malformed.map((m) => ({ id: m.id ?? String(m.index), message: m.error })),
    source: options.data
      ? path
      : `${path} (our own fixture in the official schema; the real set is not available offline)`,
  };
}
