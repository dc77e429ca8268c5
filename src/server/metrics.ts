/**
 * Prometheus metrics of the HTTP service (`GET /metrics`): checks by verdict, policy and engine, their
 * latency, the model calls decisions report, errors by code, and a gauge of pending approvals read from a
 * hook (the approval queue's count). prom-client is imported only by createWardenMetrics, which `warden
 * serve` awaits at start: `warden check` and every other face never load it. Counting is a GuardService
 * wrapper (withMetrics), so each decision is counted once whichever route asked for it.
 */
import type { Counter, Histogram, Registry } from "prom-client";
import type { Decision } from "../core/decision.js";
import { toWardenError } from "../core/errors.js";
import type { GuardService } from "../runtime/guard-service.js";

/** Latency buckets in seconds: compiled checks take microseconds, model engines seconds. */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

export interface WardenMetrics {
  recordDecision(options: { policy: string; decision: Decision; seconds: number }): void;
  recordError(options: { code: string }): void;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
  readonly registry: Registry;
}

export async function createWardenMetrics(
  options: {
    /** Pending approvals right now (the approval queue's count), read at each scrape. */
    approvalsPending?: () => number | Promise<number>;
  } = {},
): Promise<WardenMetrics> {
  const prom = await import("prom-client");
  const registry = new prom.Registry();
  const checks = new prom.Counter({
    name: "warden_checks_total",
    help: "Checks answered, by verdict (allow, deny, ask), policy and engine.",
    labelNames: ["verdict", "policy", "engine"] as const,
    registers: [registry],
  });
  const latency = new prom.Histogram({
    name: "warden_check_duration_seconds",
    help: "Time to decide one check, by policy and engine.",
    labelNames: ["policy", "engine"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const modelCalls = new prom.Counter({
    name: "warden_model_calls_total",
    help: "Model calls the decisions report, by policy and engine.",
    labelNames: ["policy", "engine"] as const,
    registers: [registry],
  });
  const errors = new prom.Counter({
    name: "warden_check_errors_total",
    help: "Checks that ended in an error instead of a decision, by error code.",
    labelNames: ["code"] as const,
    registers: [registry],
  });
  // prom-client hashes the label values on every inc/observe; a check's labels repeat, so each series'
  // child is looked up once by a plain key and kept (bounded: policies and engines are the server's own).
  const children = new Map<string, { check: Counter.Internal; latency: Histogram.Internal<string> }>();
  const seriesOf = (o: { verdict: string; policy: string; engine: string }) => {
    const key = `${o.verdict}\u0000${o.policy}\u0000${o.engine}`;
    let series = children.get(key);
    if (!series) {
      series = {
        check: checks.labels({ verdict: o.verdict, policy: o.policy, engine: o.engine }),
        latency: latency.labels({ policy: o.policy, engine: o.engine }),
      };
      children.set(key, series);
    }
    return series;
  };
  const { approvalsPending } = options;
  new prom.Gauge({
    name: "warden_approvals_pending",
    help: "Approval requests waiting for a person (absent when the service keeps no approval queue).",
    registers: approvalsPending ? [registry] : [],
    async collect() {
      if (approvalsPending) this.set(await approvalsPending());
    },
  });
  return {
    registry,
    recordDecision({ policy, decision, seconds }) {
      const series = seriesOf({ verdict: decision.verdict, policy, engine: decision.engine });
      series.check.inc();
      series.latency.observe(seconds);
      if (decision.cost.llmCalls > 0)
        modelCalls.inc({ policy, engine: decision.engine }, decision.cost.llmCalls);
    },
    recordError({ code }) {
      errors.inc({ code });
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** The service with every check and tool-call check counted in `metrics`. */
export function withMetrics(options: { service: GuardService; metrics: WardenMetrics }): GuardService {
  const { service, metrics } = options;
  const counted = async (policy: string, run: () => Promise<Decision>): Promise<Decision> => {
    const started = performance.now();
    try {
      const decision = await run();
      metrics.recordDecision({ policy, decision, seconds: (performance.now() - started) / 1000 });
      return decision;
    } catch (error) {
      metrics.recordError({ code: toWardenError({ error }).code });
      throw error;
    }
  };
  return {
    ...service,
    defaultEngine: service.defaultEngine,
    check: (options) => counted(options.policy, () => service.check(options)),
    checkToolCall: (options) => counted(options.policy, () => service.checkToolCall(options)),
  };
}
