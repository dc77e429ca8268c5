/**
 * The Q&A extension (GuardAgent App. N) end to end: `runBenchmark` on our 200 pseudo-rule records with
 * the guardagent engine, its model a script behind a loopback OpenAI-compatible server — the real client,
 * prompts, the QuickJS sandbox running the scripted guardrail program, the deterministic floor, the risk
 * level added to each Decision, scoring and report.md. The figures show the pipeline, not a model.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type PseudoRule,
  pseudoRulesReply,
  pseudoRuleViolations,
} from "../../../bench/suites/qa-pseudo-rules.js";
import { buildPseudoRuleRecords } from "../../../bench/suites/write-qa-pseudo-rules.js";
import { RISK_LEVELS, riskLevel } from "../../core/risk.js";
import { createModelClient } from "../../llm/create-model-client.js";
import { packageRoot } from "../../policies/package-root.js";
import { type ModelServer, startOpenAIServer } from "../../testing/openai-server.js";
import { runBenchmark } from "../run-benchmark.js";
import { loadQaBenchmark } from "./qa.js";

const fixtures = join(packageRoot(), "bench", "fixtures", "qa");
const data = join(fixtures, "pseudo-rules.jsonl");
const policy = join(fixtures, "pseudo-rules");
/** 200 checks, each two model calls and a sandbox run: a few seconds alone, more on a shared machine. */
const RUN_TIMEOUT_MS = 180_000;

describe("Q&A pseudo-rules with risk levels (GuardAgent App. N), end to end", () => {
  let server: ModelServer;
  let skip: PseudoRule | undefined;
  const out = mkdtempSync(join(tmpdir(), "warden-qa-"));

  beforeAll(async () => {
    server = await startOpenAIServer({
      respond: (args) =>
        pseudoRulesReply({ system: args.messages[0]?.content ?? "", ...(skip ? { skip } : {}) }),
    });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(out, { recursive: true, force: true });
  });

  const run = async (name: string, file = data) =>
    runBenchmark({
      dataset: "qa",
      data: file,
      policy,
      engine: "guardagent",
      model: createModelClient({
        spec: "openai-compatible:scripted",
        baseUrl: server.url,
        maxRetries: 0,
        timeoutMs: 10_000,
      }),
      shots: 0,
      concurrency: 4,
      out: join(out, name),
      fresh: true,
      note: "scripted model: the figures show the pipeline, not a model",
    });

  it("the fixture is what the documented script writes, and each record's risk is its count of broken rules", async () => {
    const lines = readFileSync(data, "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l))).toEqual(buildPseudoRuleRecords());
    const loaded = await loadQaBenchmark({ data, policy });
    expect(loaded.problems).toEqual([]);
    expect(loaded.policy.risk).toBe("violated-rules");
    const levels = loaded.cases.map((c) => c.truth.risk);
    for (const level of RISK_LEVELS) expect(levels).toContain(level);
    for (const c of loaded.cases)
      expect(c.truth.risk).toBe(riskLevel({ violatedRules: c.truth.violations?.length ?? 0 }));
  });

  it(
    "a program that checks every rule gets every level right: risk in each Decision, per-level recall in the report",
    async () => {
      skip = undefined;
      const result = await run("all-rules");
      expect(result.summary.n).toBe(200);
      expect(result.summary.failures).toEqual([]);
      expect(result.summary.metrics.LPA).toBe(100);
      expect(result.summary.metrics.CCA).toBe(100);
      expect(result.summary.riskRecall).toEqual({
        none: { n: 74, correct: 74, recall: 100 },
        low: { n: 77, correct: 77, recall: 100 },
        medium: { n: 36, correct: 36, recall: 100 },
        high: { n: 9, correct: 9, recall: 100 },
        "very high": { n: 4, correct: 4, recall: 100 },
      });
      const veryHigh = result.rows.find((r) => r.risk?.truth === "very high")!;
      expect(veryHigh).toMatchObject({ predicted: 1, risk: { predicted: "very high" } });
      expect(veryHigh.violations.map((v) => v.ruleId).sort()).toEqual([
        "rule 1",
        "rule 2",
        "rule 3",
        "rule 4",
      ]);
      const report = readFileSync(join(out, "all-rules", "report.md"), "utf8");
      expect(report).toContain("## Recall by risk level (GuardAgent App. N, Table 10)");
      expect(report).toContain(
        "| recall | 74/74 (100.0) | 77/77 (100.0) | 36/36 (100.0) | 9/9 (100.0) | 4/4 (100.0) |",
      );
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "a program that overlooks rule 4 loses exactly the levels of the records rule 4 breaks",
    async () => {
      skip = "rule 4";
      // The questions rule 4 can apply to (every answer of each), to keep the run short.
      const all = buildPseudoRuleRecords();
      const broken = (r: (typeof all)[number]) =>
        pseudoRuleViolations({ question: r.question, choices: r.choices!, answer: r.answer.slice(0, 1) });
      const questions = new Set(all.filter((r) => broken(r).includes("rule 4")).map((r) => r.question));
      const subset = all.filter((r) => questions.has(r.question));
      const file = join(out, "numbers.jsonl");
      writeFileSync(file, `${subset.map((r) => JSON.stringify(r)).join("\n")}\n`);
      const expected: Record<string, { n: number; correct: number }> = {};
      for (const r of subset) {
        const e = expected[r.risk!] ?? { n: 0, correct: 0 };
        expected[r.risk!] = e;
        e.n += 1;
        if (!broken(r).includes("rule 4")) e.correct += 1;
      }
      const result = await run("no-rule-4", file);
      expect(result.summary.n).toBe(subset.length);
      const recall = result.summary.riskRecall!;
      for (const [level, e] of Object.entries(expected)) {
        expect(recall[level as keyof typeof recall]).toMatchObject(e);
      }
      expect(recall["very high"]).toMatchObject({ n: 4, correct: 0, recall: 0 });
      expect(recall.none!.correct).toBe(recall.none!.n);
      const report = readFileSync(join(out, "no-rule-4", "report.md"), "utf8");
      expect(report).toMatch(/\| pr-\d+-[A-E] \| very high \| high \| rule 1, rule 2, rule 3 \|/);
    },
    RUN_TIMEOUT_MS,
  );
});
