/**
 * The main job on a fresh machine: guard the bundled example agent records (healthcare questions with
 * EHRAgent code for three roles, web tasks against six rules, MCP tool calls against a tool policy) with
 * the default engine and no model, print a table, and write a Markdown report.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import type { Decision } from "../core/decision.js";
import { SubjectSchema } from "../core/subject.js";
import { parseWith } from "../core/validate.js";
import { createAutoEngine } from "../engines/auto-engine.js";
import { createCompiledEngine } from "../engines/compiled/compiled-engine.js";
import { loadPolicy } from "../policies/load-policy.js";
import { packageRoot } from "../policies/package-root.js";

const DemoRecordSchema = z.object({
  id: z.string(),
  policy: z.string(),
  title: z.string(),
  subject: SubjectSchema,
  expected: z.object({ verdict: z.enum(["allow", "deny", "ask"]) }).passthrough(),
});
export type DemoRecord = z.output<typeof DemoRecordSchema>;

export interface DemoRow {
  record: DemoRecord;
  decision: Decision;
  /** Microseconds for the check, measured around the engine call. */
  us: number;
  matchesExpected: boolean;
}

const WARM_UP_PASSES = 30;

export function demoRecordsPath(): string {
  return join(packageRoot(), "examples", "demo", "records.jsonl");
}

export function loadDemoRecords(options: { path?: string } = {}): DemoRecord[] {
  const path = options.path ?? demoRecordsPath();
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((line, i) =>
      parseWith({ schema: DemoRecordSchema, value: JSON.parse(line), what: `demo record ${path}:${i + 1}` }),
    );
}

export async function runDemo(options: { path?: string } = {}): Promise<DemoRow[]> {
  const engine = createAutoEngine({ compiled: createCompiledEngine() });
  const policies = new Map<string, ReturnType<typeof loadPolicy>["policy"]>();
  const records = loadDemoRecords(options);
  const policyFor = (name: string) => {
    let policy = policies.get(name);
    if (!policy) {
      policy = loadPolicy({ ref: name }).policy;
      policies.set(name, policy);
    }
    return policy;
  };
  // Untimed passes first: the times shown are a running service's, not the JIT's first encounter.
  for (let pass = 0; pass < WARM_UP_PASSES; pass++) {
    for (const record of records)
      await engine.check({ policy: policyFor(record.policy), subject: record.subject });
  }
  const rows: DemoRow[] = [];
  for (const record of records) {
    const policy = policyFor(record.policy);
    const started = performance.now();
    const decision = await engine.check({ policy, subject: record.subject });
    const us = (performance.now() - started) * 1000;
    rows.push({ record, decision, us, matchesExpected: decision.verdict === record.expected.verdict });
  }
  return rows;
}

function why(d: Decision): string {
  if (d.failure) return `${d.failure.code}: ${d.failure.message}`;
  if (d.violations.length === 0) return "–";
  return d.violations
    .map((v) => {
      const inaccessible = v.details?.inaccessible as Record<string, string[]> | undefined;
      return inaccessible
        ? `${v.ruleId}: ${Object.entries(inaccessible)
            .map(([t, cs]) => `${t}(${cs.join(", ")})`)
            .join(" ")}`
        : `${v.ruleId}: ${v.message}`;
    })
    .join("; ");
}

export function formatDemoTable(options: { rows: readonly DemoRow[]; width?: number }): string {
  const width = options.width ?? 150;
  const header = ["case", "policy", "decision", "violated rule / inaccessible columns", "µs"];
  const body = options.rows.map((r) => [
    r.record.id,
    r.record.policy,
    `${r.decision.verdict.toUpperCase()}${r.matchesExpected ? "" : " (!)"}`,
    why(r.decision),
    r.us.toFixed(0),
  ]);
  const fixed = [28, 12, 9, 0, 7];
  fixed[3] = Math.max(30, width - fixed.reduce((a, b) => a + b, 0) - 8);
  const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s.padEnd(n));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 4 ? c.padStart(fixed[i]!) : clip(c, fixed[i]!))).join("  ");
  return [line(header), line(fixed.map((n) => "-".repeat(n))), ...body.map(line)].join("\n");
}

export function demoReport(options: { rows: readonly DemoRow[] }): string {
  const { rows } = options;
  const agree = rows.filter((r) => r.matchesExpected).length;
  const us = rows.map((r) => r.us).sort((a, b) => a - b);
  const median = us[Math.floor(us.length / 2)] ?? 0;
  const lines = rows.map(
    (r) =>
      `| ${r.record.id} | ${r.record.policy} | ${r.record.title} | **${r.decision.verdict}** | ${r.record.expected.verdict} | ${why(r.decision).replace(/\|/g, "\\|")} | ${r.decision.cost.llmCalls} | ${r.us.toFixed(0)} |`,
  );
  return `# Warden demo

The bundled example agent records (written for Warden), guarded by the default engine with no model and
no network: policy logic compiled once, facts extracted from each record, the decision computed by code.

- ${rows.length} records; ${agree} decided as the example expects.
- LLM calls: ${rows.reduce((n, r) => n + r.decision.cost.llmCalls, 0)}; median time per check ${median.toFixed(0)} µs (after ${WARM_UP_PASSES} warm-up passes over the records).

| case | policy | what it shows | decision | expected | violated rule / inaccessible columns | LLM calls | µs |
| --- | --- | --- | --- | --- | --- | --- | --- |
${lines.join("\n")}

Each decision also carries an explanation, the rule's source sentence and the guard-railed output; run
\`warden check --policy <name> --subject <file> --json\` to see one in full.
`;
}

export function writeDemoReport(options: { rows: readonly DemoRow[]; path: string }): void {
  mkdirSync(dirname(options.path), { recursive: true });
  writeFileSync(options.path, demoReport({ rows: options.rows }));
}
