import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../core/caller.js";
import { loadPolicy } from "../policies/load-policy.js";
import { createApprovalDesk } from "../runtime/approvals.js";
import { createEnginePool } from "../runtime/engine-pool.js";
import { createGuardService, type GuardService } from "../runtime/guard-service.js";
import { createSqliteStore } from "../store/sqlite-store.js";
import type { Store } from "../store/store.js";
import type { Authenticator } from "./authenticator.js";
import { createWardenApp } from "./create-warden-app.js";
import { createWardenMetrics } from "./metrics.js";
import { createRateLimiter } from "./rate-limit.js";
import { ROUTE_CATALOG } from "./route-catalog.js";

const call = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ method: "tools/call", params: { name, arguments: args } });

const callers: Record<string, Caller> = {
  fast: { name: "fast", scopes: ["check"], keyId: "k-fast" },
  slow: { name: "slow", scopes: ["check"], keyId: "k-slow", ratePerSecond: 2 },
};
const authenticator: Authenticator = {
  authenticate: async ({ authorization }) =>
    callers[authorization?.replace(/^Bearer /, "") ?? ""] ?? "unauthorized",
};

describe("metrics, OpenAPI and the rate limit over HTTP", () => {
  let service: GuardService;
  let app: ReturnType<typeof createWardenApp>;
  let store: Store;
  const check = (who: string, tool: string) =>
    app.request("/v1/check", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${who}` },
      body: JSON.stringify({
        policy: "mcp-tools",
        subject: { input: "", output: call(tool, { repo: "a/b" }) },
      }),
    });

  beforeAll(async () => {
    service = createGuardService({
      policies: [loadPolicy({ ref: "mcp-tools" }).policy],
      engines: createEnginePool({ setup: {}, defaultEngine: "compiled" }),
    });
    // Every optional face is on, so every route in the catalog is registered.
    store = await createSqliteStore({ path: ":memory:" });
    app = createWardenApp({
      service,
      logger: false,
      authenticator,
      approvals: createApprovalDesk({ store }),
      reviewPage: true,
      audit: { store },
      metrics: await createWardenMetrics({ approvalsPending: () => 4 }),
      rateLimiter: createRateLimiter({}),
    });
  });
  afterAll(async () => {
    await service.close();
    await store.close();
  });

  it("counts checks in warden_checks_total by verdict, policy and engine, with latency and the approvals gauge", async () => {
    expect((await check("fast", "github.create_issue")).status).toBe(200);
    expect((await check("fast", "github.delete_repository")).status).toBe(200);
    expect((await check("fast", "github.delete_repository")).status).toBe(200);
    const res = await app.request("/metrics", { headers: { authorization: "Bearer fast" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toContain('warden_checks_total{verdict="allow",policy="mcp-tools",engine="compiled"} 1');
    expect(text).toContain('warden_checks_total{verdict="deny",policy="mcp-tools",engine="compiled"} 2');
    expect(text).toMatch(/warden_check_duration_seconds_count\{policy="mcp-tools",engine="compiled"\} 3/);
    expect(text).toContain("warden_approvals_pending 4");
    expect(text).toContain("# TYPE warden_model_calls_total counter");
    // Behind the key like every route but /healthz.
    expect((await app.request("/metrics")).status).toBe(401);
  });

  it("answers 429 with Retry-After once a key's rate is spent; other keys are unaffected", async () => {
    expect((await check("slow", "github.create_issue")).status).toBe(200);
    expect((await check("slow", "github.create_issue")).status).toBe(200);
    const refused = await check("slow", "github.create_issue");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const body = (await refused.json()) as { error: { code: string; details: { reason: string } } };
    expect(body.error).toMatchObject({ code: "INVALID_INPUT", details: { reason: "rate-limited" } });
    expect((await check("fast", "github.create_issue")).status).toBe(200);
  });

  it("documents every route the app registers in /openapi.json, with /v1/check's body and Decision", async () => {
    const res = await app.request("/openapi.json", { headers: { authorization: "Bearer fast" } });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe("3.1.0");
    const registered = new Set(
      app.routes
        .filter((r) => r.method !== "ALL")
        .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`),
    );
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)),
    );
    expect([...registered].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((d) => !registered.has(d))).toEqual([]);
    expect(ROUTE_CATALOG.length).toBe(documented.size);
    const checkOp = doc.paths["/v1/check"]?.post;
    expect(JSON.stringify(checkOp?.requestBody)).toContain("#/components/schemas/CheckRequest");
    expect(JSON.stringify(checkOp?.responses["200"])).toContain("#/components/schemas/Decision");
    expect(JSON.stringify(doc.components.schemas.CheckRequest)).toContain('"subject"');
    // Every reference resolves inside the document.
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of refs) {
      const pointer = ref.slice('"$ref":"#/'.length, -1).split("/");
      let at: unknown = doc;
      for (const part of pointer) at = (at as Record<string, unknown>)?.[part];
      expect(at, ref).toBeDefined();
    }
  });
});
