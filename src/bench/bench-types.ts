/**
 * Shapes shared by every benchmark: a case to check, the row written to results.jsonl, and the summary
 * printed with --json; the options and result of a run (here, not beside the runner, so the report
 * reads them without importing the runner that writes it).
 */
import type { Cost } from "../core/decision.js";
import type { Policy } from "../core/policy.js";
import type { RiskLevel } from "../core/risk.js";
import type { Subject } from "../core/subject.js";
import type { ModelClient } from "../llm/model.js";
import type { EngineName } from "../runtime/create-engine.js";

export interface GuardTruth {
  label: 0 | 1;
  /** EICU-AC: the exact inaccessible set. */
  inaccessible?: Record<string, string[]>;
  /** Mind2Web-SC and rule benchmarks: the violated rules' texts. */
  violations?: string[];
  /** Gold answer(s) for FRA. */
  answer?: string | string[];
  /** Q&A (GuardAgent App. N): the true risk level, the count of violated rules. */
  risk?: RiskLevel;
}

export interface BenchCase {
  id: string;
  subject: Subject;
  truth: GuardTruth;
  /** Breakdown group: role (EICU-AC), violated rule (Mind2Web-SC), category... */
  group?: string;
  /** Benchmark-specific facts for the report (ground-truth access set, gold SQL...). */
  extra?: Record<string, unknown>;
}

export interface BenchRow {
  id: string;
  group?: string;
  label: 0 | 1;
  predicted: 0 | 1;
  verdict: "allow" | "deny" | "ask";
  reasonsCorrect?: boolean;
  answerCorrect?: boolean;
  violations: { ruleId: string; message: string }[];
  inaccessible?: Record<string, string[]>;
  output?: unknown;
  cost: Cost;
  failure?: { code: string; message: string };
  /** GuardAgent: the first program ran / some program ran (Table 4). */
  executableFirst?: boolean;
  executableAfterDebug?: boolean;
  /** Words in every prompt sent for this check (Table 9). */
  promptWords?: number;
  /** Q&A (App. N): the true risk level and the Decision's (null when it has none). */
  risk?: { truth: RiskLevel; predicted: RiskLevel | null };
  /** Benchmark-specific analysis (e.g. EICU-AC disagreement causes). */
  notes?: Record<string, unknown>;
  error?: string;
}

export interface LoadedBenchmark {
  cases: BenchCase[];
  policy: Policy;
  /** Records that could not be used, with why. */
  problems: { id: string | null; message: string }[];
  /** Where the data came from, for the report. */
  source: string;
}

export interface BenchSummary {
  dataset: string;
  engine: string;
  model: string | null;
  n: number;
  metrics: Record<string, number>;
  cost: {
    llmCalls: number;
    llmCallsPerCheck: number;
    inputTokens: number;
    outputTokens: number;
    msPerCheck: { p50: number; p95: number };
  };
  failures: { id: string; code: string; message: string }[];
  /** Q&A (App. N, Table 10): per true risk level, the cases and those whose Decision has that level. */
  riskRecall?: Partial<Record<RiskLevel, { n: number; correct: number; recall: number }>>;
}

export const DATASETS = ["eicu-ac", "mind2web-sc", "agentharm", "qa", "st-webagentbench"] as const;
export type DatasetName = (typeof DATASETS)[number];

export interface BenchmarkOptions {
  dataset: DatasetName;
  /** Dataset location (file or directory); mind2web-sc falls back to our fixture. */
  data?: string;
  /** st-webagentbench: the labelled-trajectory JSONL file to replay. */
  trajectories?: string;
  engine: EngineName;
  model?: ModelClient;
  /** For the qa format: the policy its records are judged against. */
  policy?: string;
  shots?: number;
  retrieval?: "most" | "least";
  toolbox?: boolean;
  memory?: boolean;
  learn?: "off" | "successful" | "correct-only";
  limit?: number;
  concurrency?: number;
  seed?: number;
  out?: string;
  fresh?: boolean;
  progress?: boolean;
  signal?: AbortSignal;
  /** A sentence printed on the report and charts (e.g. "scripted model: figures not meaningful"). */
  note?: string;
}

export interface BenchmarkResult {
  summary: BenchSummary;
  rows: BenchRow[];
  resumed: number;
  interrupted: boolean;
  loaded: LoadedBenchmark;
  learning?: string;
}
