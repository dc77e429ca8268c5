/**
 * Red team, availability of the HTTP service (issue 10): one large adversarial request must not stall
 * the guard. The real server (port 0, 127.0.0.1) with a check time limit gets a ~1 MB subject built to
 * make the compiled extractors work hard (an output of a million `{`); while it is being judged,
 * GET /healthz must answer, and the check must come back as a decision that allows nothing — the
 * CHECK_TIMEOUT deny when the limit fires first. Compiled checks of large subjects run in worker threads
 * (src/runtime/offload/check-pool.ts), so the event loop — and with it the limit's timer — stays free.
 *
 * The MCP guard proxy runs the same engines under its own check limit: a tool call with a large adversarial
 * argument is refused (never forwarded) while the proxy still answers pings.
 *
 * The servers run in this test's own thread, so if the check held the event loop, /healthz could not be
 * answered before the check's own answer. No timing is asserted; /healthz latencies are logged.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Decision } from "../../src/core/decision.js";
import { DECISION_META_KEY } from "../../src/mcp/blocked-call-result.js";
import { createGuardedMcpProxy } from "../../src/mcp/guarded-mcp-proxy.js";
import { loadPolicy } from "../../src/policies/load-policy.js";
import { createEngine } from "../../src/runtime/create-engine.js";
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

describe("red team: availability of the MCP guard proxy under a large adversarial call", () => {
  it("answers pings while a large adversarial call is judged, and forwards nothing", async () => {
    const forwarded: unknown[] = [];
    const upstream = new Server({ name: "upstream", version: "1.0.0" }, { capabilities: { tools: {} } });
    upstream.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: "shell.run", inputSchema: { type: "object" } }],
    }));
    upstream.setRequestHandler(CallToolRequestSchema, async (request) => {
      forwarded.push(request.params);
      return { content: [{ type: "text", text: "ran" }] };
    });
    const [toUpstream, upstreamSide] = InMemoryTransport.createLinkedPair();
    await upstream.connect(upstreamSide);
    const handle = await createEngine({ engine: "auto" });
    let begun!: () => void;
    const checking = new Promise<void>((resolve) => {
      begun = resolve;
    });
    const engine = {
      name: handle.engine.name,
      check: (options: Parameters<typeof handle.engine.check>[0]) => {
        begun();
        return handle.engine.check(options);
      },
    };
    const proxy = await createGuardedMcpProxy({
      upstream: toUpstream,
      policy: loadPolicy({ ref: "mcp-tools" }).policy,
      engine,
      checkTimeoutMs: 500,
    });
    const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
    await proxy.connect({ transport: proxySide });
    const agent = new Client({ name: "agent", version: "1.0.0" });
    await agent.connect(agentSide);
    try {
      let settled = false;
      // A command the shell extractor once took seconds over (quadratic in its length).
      const call = agent
        .callTool({ name: "shell.run", arguments: { command: "curl ".repeat(10_000) } })
        .finally(() => {
          settled = true;
        });
      await checking;
      let answeredWhileChecking = false;
      for (let i = 0; i < 200 && !settled; i++) {
        await agent.ping();
        if (!settled) answeredWhileChecking = true;
      }
      const result = await call;
      expect(result.isError).toBe(true);
      expect(forwarded).toEqual([]);
      const decision = (result._meta as Record<string, Decision>)[DECISION_META_KEY]!;
      expect(decision.allowed).toBe(false);
      if (decision.failure?.code === "CHECK_TIMEOUT") expect(answeredWhileChecking).toBe(true);
      console.info(
        `proxy: ${decision.failure?.code ?? decision.verdict}, pings answered meanwhile: ${answeredWhileChecking}`,
      );
    } finally {
      await agent.close();
      await proxy.close();
      await handle.close();
    }
  }, 120_000);
});
