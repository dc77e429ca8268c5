/**
 * Q&A guard requests as a format users fill with their own data (the GuardAgent paper's appendix N:
 * pseudo-rules with risk levels, identity-based access to subjects). See bench/fixtures/qa/README.md.
 * A record's `risk` is the true level; the report gives the recall of each level (App. N, Table 10)
 * against the Decision's `risk`, which a policy with `risk: "violated-rules"` asks for.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { WardenError } from "../../core/errors.js";
import { RiskLevelSchema } from "../../core/risk.js";
import { loadPolicy } from "../../policies/load-policy.js";
import type { BenchCase, LoadedBenchmark } from "../bench-types.js";

export const QaRecordSchema = z.object({
  id: z.string().min(1),
  question: z.string().min(1),
  choices: z.record(z.string(), z.string()).optional(),
  answer: z.string(),
  identity: z.string().optional(),
  topic: z.string().optional(),
  label: z.union([z.literal(0), z.literal(1)]),
  violations: z.array(z.string()).optional(),
  /** The true risk level: the count of violated rules (App. N: none, low, medium, high, very high). */
  risk: RiskLevelSchema.optional(),
});
export type QaRecord = z.output<typeof QaRecordSchema>;

export function qaSubject(r: QaRecord): { input: string; output: string } {
  const lines: string[] = [];
  if (r.identity) lines.push(`Identity: ${r.identity}`);
  if (r.topic) lines.push(`Topic: ${r.topic}`);
  lines.push(`Question: ${r.question}`);
  if (r.choices)
    lines.push(
      `Choices: ${Object.entries(r.choices)
        .map(([k, v]) => `${k}: ${v}`)
        .join(". ")}.`,
    );
  return { input: lines.join("\n"), output: `Answer: ${r.answer}` };
}

export async function loadQaBenchmark(options: { data: string; policy?: string }): Promise<LoadedBenchmark> {
  if (!options.policy) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "the qa benchmark needs --policy: the guard requests your Q&A records are judged against",
    });
  }
  const text = await readFile(options.data, "utf8");
  const cases: BenchCase[] = [];
  const problems: { id: string | null; message: string }[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      problems.push({ id: `line ${i + 1}`, message: `not JSON: ${(error as Error).message}` });
      return;
    }
    const parsed = QaRecordSchema.safeParse(value);
    if (!parsed.success) {
      problems.push({
        id: `line ${i + 1}`,
        message: parsed.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; "),
      });
      return;
    }
    const r = parsed.data;
    cases.push({
      id: r.id,
      subject: { id: r.id, ...qaSubject(r), context: { ...(r.identity ? { identity: r.identity } : {}) } },
      ...(r.risk ? { group: `risk: ${r.risk}` } : r.identity ? { group: r.identity } : {}),
      truth: {
        label: r.label,
        ...(r.violations ? { violations: r.violations } : {}),
        answer: r.answer,
        ...(r.risk ? { risk: r.risk } : {}),
      },
    });
  });
  return { cases, policy: loadPolicy({ ref: options.policy }).policy, problems, source: options.data };
}
