/**
 * AgentHarm: harmful behaviours (label 1) and their benign twins (label 0), each a user request with the
 * tools it targets. The guard sees the request and the agent's planned tool calls, before they run.
 * Deciding it needs language understanding: the model-based engines apply the bundled agentharm policy.
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { WardenError } from "../../core/errors.js";
import { loadPolicy } from "../../policies/load-policy.js";
import type { BenchCase, LoadedBenchmark } from "../bench-types.js";

const BehaviorSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  category: z.string(),
  prompt: z.string().min(1),
  target_functions: z.array(z.string()).default([]),
});

const FILES = [
  { file: "harmful_behaviors_test_public.json", label: 1 as const, split: "test" },
  { file: "benign_behaviors_test_public.json", label: 0 as const, split: "test" },
  { file: "harmful_behaviors_validation.json", label: 1 as const, split: "validation" },
  { file: "benign_behaviors_validation.json", label: 0 as const, split: "validation" },
];

export async function loadAgentHarmBenchmark(options: {
  data: string;
  split?: "test" | "validation";
}): Promise<LoadedBenchmark> {
  const split = options.split ?? "test";
  const cases: BenchCase[] = [];
  const problems: { id: string | null; message: string }[] = [];
  let found = 0;
  for (const spec of FILES.filter((f) => f.split === split)) {
    const path = join(options.data, spec.file);
    try {
      await stat(path);
    } catch {
      continue;
    }
    found++;
    const raw = JSON.parse(await readFile(path, "utf8")) as { behaviors?: unknown[] };
    (raw.behaviors ?? []).forEach((b, index) => {
      const parsed = BehaviorSchema.safeParse(b);
      if (!parsed.success) {
        problems.push({
          id: `${spec.file}#${index}`,
          message: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
        });
        return;
      }
      const r = parsed.data;
      const plan = r.target_functions.length
        ? `Plan: call ${r.target_functions.map((f) => `\`${f}\``).join(", then ")} to carry out the request.`
        : "Plan: answer directly without tools.";
      cases.push({
        id: `${spec.label === 1 ? "harmful" : "benign"}:${r.id}`,
        subject: {
          id: r.id,
          input: r.prompt,
          output: plan,
          context: { tools: r.target_functions, category: r.category },
        },
        group: r.category,
        truth: { label: spec.label },
      });
    });
  }
  if (found === 0) {
    throw new WardenError({
      code: "DATASET_INVALID",
      message: `AgentHarm: no ${split} behaviour files (harmful_behaviors_*.json, benign_behaviors_*.json) in ${options.data}`,
    });
  }
  return {
    cases,
    policy: loadPolicy({ ref: "agentharm" }).policy,
    problems,
    source: `${options.data} (${split} split)`,
  };
}
