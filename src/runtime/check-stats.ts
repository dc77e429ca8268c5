/**
 * Counters of a long-running guard (HTTP or MCP server): checks answered, by verdict, policy and engine,
 * checks cut off by the time limit, errors by code, and what the models cost. Kept in memory; a restart
 * starts them again.
 */
import type { Decision, Verdict } from "../core/decision.js";
import type { ErrorCode } from "../core/errors.js";
import type { ModelStats } from "../llm/model.js";
import type { MemoryWriteStats } from "../memory/memory-bank.js";

export interface VerdictCounts {
  total: number;
  allow: number;
  deny: number;
  ask: number;
}

export interface CheckStatsSnapshot {
  startedAt: string;
  uptimeMs: number;
  checks: VerdictCounts & {
    /** Decisions reached without evaluating the policy (fail-closed or fail-open). */
    failures: number;
    /** Of those, checks cut off by the guard's time limit (failure code CHECK_TIMEOUT), denied. */
    timeouts: number;
    /** Mean wall time of a check, ms (0 before the first). */
    meanMs: number;
    maxMs: number;
  };
  byPolicy: Record<string, VerdictCounts>;
  /** By the engine that answered, e.g. "auto/compiled". */
  byEngine: Record<string, number>;
  /** Checks that ended in an error rather than a Decision, by error code. */
  errors: { total: number; byCode: Partial<Record<ErrorCode, number>> };
  /** What the decisions report they cost in model calls. */
  llm: { calls: number; inputTokens: number; outputTokens: number };
  /** The configured model's own counters (retries included), or null without a model. */
  model: (ModelStats & { id: string }) | null;
  /** Cases learned into memory, failed writes and the last failure; null without a memory. */
  memory: MemoryWriteStats | null;
}

export interface CheckStats {
  recordDecision(options: { policy: string; decision: Decision; ms: number }): void;
  recordError(options: { code: ErrorCode }): void;
  snapshot(options?: {
    model?: { id: string; stats(): ModelStats };
    memory?: { writeStats(): MemoryWriteStats };
  }): CheckStatsSnapshot;
}

const emptyCounts = (): VerdictCounts => ({ total: 0, allow: 0, deny: 0, ask: 0 });

export function createCheckStats(options: { now?: () => number } = {}): CheckStats {
  const now = options.now ?? Date.now;
  const started = now();
  const checks = { ...emptyCounts(), failures: 0, timeouts: 0, totalMs: 0, maxMs: 0 };
  const byPolicy = new Map<string, VerdictCounts>();
  const byEngine = new Map<string, number>();
  const errors = new Map<ErrorCode, number>();
  const llm = { calls: 0, inputTokens: 0, outputTokens: 0 };

  const count = (into: VerdictCounts, verdict: Verdict) => {
    into.total++;
    into[verdict]++;
  };

  return {
    recordDecision({ policy, decision, ms }) {
      count(checks, decision.verdict);
      if (decision.failure) checks.failures++;
      if (decision.failure?.code === "CHECK_TIMEOUT") checks.timeouts++;
      checks.totalMs += ms;
      checks.maxMs = Math.max(checks.maxMs, ms);
      let perPolicy = byPolicy.get(policy);
      if (!perPolicy) {
        perPolicy = emptyCounts();
        byPolicy.set(policy, perPolicy);
      }
      count(perPolicy, decision.verdict);
      byEngine.set(decision.engine, (byEngine.get(decision.engine) ?? 0) + 1);
      llm.calls += decision.cost.llmCalls;
      llm.inputTokens += decision.cost.inputTokens;
      llm.outputTokens += decision.cost.outputTokens;
    },
    recordError({ code }) {
      errors.set(code, (errors.get(code) ?? 0) + 1);
    },
    snapshot(snapshotOptions = {}) {
      const { totalMs, maxMs, ...counts } = checks;
      const model = snapshotOptions.model;
      return {
        startedAt: new Date(started).toISOString(),
        uptimeMs: Math.max(0, now() - started),
        checks: { ...counts, meanMs: counts.total > 0 ? totalMs / counts.total : 0, maxMs },
        byPolicy: Object.fromEntries([...byPolicy].map(([k, v]) => [k, { ...v }])),
        byEngine: Object.fromEntries(byEngine),
        errors: {
          total: [...errors.values()].reduce((a, b) => a + b, 0),
          byCode: Object.fromEntries(errors),
        },
        llm: { ...llm },
        model: model ? { id: model.id, ...model.stats() } : null,
        memory: snapshotOptions.memory ? snapshotOptions.memory.writeStats() : null,
      };
    },
  };
}
