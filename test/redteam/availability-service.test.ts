/**
 * Red team, availability of the HTTP service (issue 10): one large adversarial request must not stall
 * the guard. The real server (port 0, 127.0.0.1) with a check time limit gets a ~1 MB subject built to
 * make the compiled extractors work hard (an output of a million `{`); while it is being judged,
 * GET /healthz must answer, and the check must come back as a decision that allows nothing — the
 * CHECK_TIMEOUT deny when the limit fires first. Compiled checks of large subjects run in worker threads
 * (src/runtime/offload/check-pool.ts), so the event loop — and with it the limit's timer — stays free.
 *
 * The server runs in this test's own thread, so if the check held the event loop, /healthz could not be
 * answered before the check's own answer. No timing is asserted; /healthz latencies are logged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Decision } from "../../src/core/decision.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";

const LIMIT_MS = 2000;

/** About 1 MB of JSON: an output of a million opening braces, under the 1 MiB body limit. */
function adversarialSubject(): { input: string; output: string } {
  return { input: "run the build", output: "{".repeat(1_000_000) };
}

async function post(url: string, body: unknown): Promise<{ status: number; decision: Decision }> {
  const response = await fetch(`${url}/v1/check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, decision: (await response.json()) as Decision };
}

describe("red team: availability of the HTTP service under a large adversarial check", () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({
      port: 0,
      host: "127.0.0.1",
      policyRefs: ["mcp-tools"],
      engine: "auto",
      checkTimeoutMs: LIMIT_MS,
      logger: false,
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it("answers /healthz while a 1 MB adversarial check is judged, and denies that check", async () => {
    // Know when the service has the check in hand: /healthz is asked only from then on.
    const service = server.service;
    const check = service.check.bind(service);
    let begun!: () => void;
    const checking = new Promise<void>((resolve) => {
      begun = resolve;
    });
    service.check = (options) => {
      begun();
      return check(options);
    };
    let settled = false;
    const answer = post(server.url, { policy: "mcp-tools", subject: adversarialSubject() }).finally(() => {
      settled = true;
    });
    await checking;
    const latencies: number[] = [];
    let answeredWhileChecking = false;
    // Bounded: at most 200 probes, until the check is answered.
    for (let i = 0; i < 200 && !settled; i++) {
      const sent = performance.now();
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      await health.json();
      if (!settled) {
        answeredWhileChecking = true;
        latencies.push(performance.now() - sent);
      }
    }
    const { status, decision } = await answer;
    expect(status).toBe(200);
    expect(decision.allowed).toBe(false);
    expect(decision.verdict).not.toBe("allow");
    if (decision.failure?.code === "CHECK_TIMEOUT") {
      // The check ran for its whole limit: the service had to answer /healthz meanwhile.
      expect(answeredWhileChecking).toBe(true);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    console.info(
      `/healthz during a 1 MB adversarial check (${decision.failure?.code ?? decision.verdict}, ${Math.round(decision.cost.ms)} ms): ${latencies.length} probes answered, median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms`,
    );
    // The service is still whole: a small check is decided as usual afterwards.
    const after = await post(server.url, {
      policy: "mcp-tools",
      subject: { input: "", output: JSON.stringify({ name: "shell.run", arguments: { command: "ls" } }) },
    });
    expect(after.decision.failure).toBeUndefined();
  }, 120_000);
});
