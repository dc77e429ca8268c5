import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../core/caller.js";
import type { Decision } from "../core/decision.js";
import { loadPolicy } from "../policies/load-policy.js";
import { createEnginePool } from "../runtime/engine-pool.js";
import { createGuardService, type GuardService } from "../runtime/guard-service.js";
import { keyAuthenticator, openAuthenticator } from "./authenticator.js";
import { createWardenApp } from "./create-warden-app.js";
import type { ErrorBody } from "./http-status.js";

const call = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ method: "tools/call", params: { name, arguments: args } });

const post = (app: ReturnType<typeof createWardenApp>, body: unknown, raw?: string) =>
  app.request("/v1/check", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: raw ?? JSON.stringify(body),
  });

describe("createWardenApp", () => {
  let service: GuardService;
  let app: ReturnType<typeof createWardenApp>;
  const lines: Record<string, unknown>[] = [];

  beforeAll(() => {
    service = createGuardService({
      policies: [loadPolicy({ ref: "mcp-tools" }).policy, loadPolicy({ ref: "eicu-ac" }).policy],
      engines: createEnginePool({ setup: {}, defaultEngine: "compiled" }),
    });
    const logger = pino({ base: undefined }, { write: (line: string) => lines.push(JSON.parse(line)) });
    app = createWardenApp({ service, logger, maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await service.close();
  });

  it("answers an allowed tool call with 200 and the Decision", async () => {
    const res = await post(app, {
      policy: "mcp-tools",
      subject: { input: "Open an issue", output: call("github.create_issue", { title: "bug" }) },
    });
    expect(res.status).toBe(200);
    const d = (await res.json()) as Decision;
    expect(d).toMatchObject({ allowed: true, verdict: "allow", label: 0 });
    expect(d.policy).toEqual({ name: "mcp-tools", version: "1.0.0" });
  });

  it("answers a deny with 200 and allowed:false, naming the violated rule", async () => {
    const res = await post(app, {
      policy: "mcp-tools",
      subject: { input: "", output: call("github.delete_repository", { repo: "acme/api" }) },
    });
    expect(res.status).toBe(200);
    const d = (await res.json()) as Decision;
    expect(d).toMatchObject({ allowed: false, verdict: "deny", label: 1 });
    expect(d.violations.map((v) => v.ruleId)).toEqual(["tool.no-repo-deletion"]);
  });

  it("answers an ask with 200, allowed:false and verdict ask", async () => {
    const res = await post(app, {
      policy: "mcp-tools",
      subject: {
        input: "",
        // In the output: context facts are not trusted from an unauthenticated caller.
        output: call("github.merge_pull_request", { number: 7 }),
      },
    });
    expect(res.status).toBe(200);
    const d = (await res.json()) as Decision;
    expect(d).toMatchObject({ allowed: false, verdict: "ask" });
    expect(d.violations[0]?.ruleId).toBe("tool.confirm-merge");
  });

  it("rejects a bad body with 400 naming the field", async () => {
    const res = await post(app, { policy: "mcp-tools", subject: { input: 42 } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("INVALID_INPUT");
    expect(body.error.message).toContain("subject.input");
    expect(body.error.details?.fields).toEqual(["subject.input"]);
  });

  it("rejects unknown fields, a missing policy and a wrong engine by name", async () => {
    const unknown = await post(app, { policy: "mcp-tools", subject: { input: "" }, egnine: "compiled" });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as ErrorBody).error.message).toContain("egnine");
    const missing = await post(app, { subject: { input: "" } });
    expect(((await missing.json()) as ErrorBody).error.details?.fields).toEqual(["policy"]);
    const engine = await post(app, { policy: "mcp-tools", subject: { input: "" }, engine: "magic" });
    expect(engine.status).toBe(400);
    expect(((await engine.json()) as ErrorBody).error.details?.fields).toEqual(["engine"]);
  });

  it("rejects a body that is not JSON with 400", async () => {
    const res = await post(app, undefined, "{not json");
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.code).toBe("INVALID_INPUT");
  });

  it("answers an unknown policy with 404 POLICY_NOT_FOUND", async () => {
    const res = await post(app, { policy: "no-such-policy", subject: { input: "x" } });
    expect(res.status).toBe(404);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("POLICY_NOT_FOUND");
    expect(body.error.message).toContain("mcp-tools");
  });

  it("answers an engine that needs a model, on a server without one, with 400 MODEL_CONFIG", async () => {
    for (const engine of ["guardagent", "baseline"]) {
      const res = await post(app, { policy: "mcp-tools", subject: { input: "x" }, engine });
      expect(res.status).toBe(400);
      const body = (await res.json()) as ErrorBody;
      expect(body.error.code).toBe("MODEL_CONFIG");
      expect(body.error.message).toContain("needs a model");
    }
  });

  it("rejects a body over the size limit with 413", async () => {
    const big = "x".repeat(70 * 1024);
    const res = await post(app, { policy: "mcp-tools", subject: { input: big } });
    expect(res.status).toBe(413);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.code).toBe("INVALID_INPUT");
    expect(body.error.details).toMatchObject({ reason: "body-too-large", limitBytes: 64 * 1024 });
  });

  it("lists policies with versions, compiled flags and rule counts, and serves whole ones only when exposed", async () => {
    const list = (await (await app.request("/v1/policies")).json()) as {
      policies: {
        name: string;
        version: string;
        compiled: boolean;
        rules: { tool: number; total: number };
      }[];
    };
    const mcp = list.policies.find((p) => p.name === "mcp-tools");
    expect(mcp).toMatchObject({ version: "1.0.0", compiled: true, rules: { tool: 12, total: 12 } });
    expect(list.policies.map((p) => p.name).sort()).toEqual(["eicu-ac", "mcp-tools"]);
    const hidden = await app.request("/v1/policies/mcp-tools");
    expect(hidden.status).toBe(403);
    expect(((await hidden.json()) as ErrorBody).error.details).toMatchObject({
      reason: "forbidden",
      scope: "policies:read",
    });
    const exposed = createWardenApp({
      service,
      logger: false,
      authenticator: openAuthenticator({ exposePolicies: true }),
    });
    const one = await exposed.request("/v1/policies/mcp-tools");
    expect(one.status).toBe(200);
    const policy = (await one.json()) as { name: string; rules: { toolRules: unknown[] }; requests: string };
    expect(policy.name).toBe("mcp-tools");
    expect(policy.rules.toolRules).toHaveLength(12);
    expect(policy.requests.length).toBeGreaterThan(0);
    const none = await exposed.request("/v1/policies/nope");
    expect(none.status).toBe(404);
  });

  it("counts checks by verdict and errors by code in /v1/stats", async () => {
    const stats = (await (await app.request("/v1/stats")).json()) as {
      checks: { total: number; allow: number; deny: number; ask: number };
      errors: { byCode: Record<string, number> };
      llm: { calls: number };
      model: unknown;
    };
    expect(stats.checks).toMatchObject({ total: 3, allow: 1, deny: 1, ask: 1 });
    expect(stats.errors.byCode).toMatchObject({ POLICY_NOT_FOUND: 1, MODEL_CONFIG: 2 });
    expect(stats.llm.calls).toBe(0);
    expect(stats.model).toBeNull();
  });

  it("checks one tool call at /v1/check/tool-call, the provider's name mapped to the policy's", async () => {
    const toolCall = (body: unknown) =>
      app.request("/v1/check/tool-call", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const deny = await toolCall({
      policy: "mcp-tools",
      call: { name: "github_delete_repository", arguments: { repo: "acme/api" } },
    });
    expect(deny.status).toBe(200);
    const denied = (await deny.json()) as Decision;
    expect(denied).toMatchObject({ allowed: false, verdict: "deny" });
    expect(denied.violations.map((v) => v.ruleId)).toEqual(["tool.no-repo-deletion"]);
    const allow = await toolCall({
      policy: "mcp-tools",
      call: { name: "github.create_issue", arguments: { repo: "acme/web", title: "bug" } },
    });
    expect(((await allow.json()) as Decision).verdict).toBe("allow");
    const bad = await toolCall({
      policy: "mcp-tools",
      call: { name: "github.create_issue", arguments: [1] },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error.message).toContain("call.arguments");
  });

  it("answers health and unknown routes", async () => {
    const health = await app.request("/healthz");
    expect(await health.json()).toMatchObject({ status: "ok", policies: 2, engine: "compiled" });
    const missing = await app.request("/v2/whatever");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as ErrorBody).error.code).toBe("INVALID_INPUT");
    const wrongMethod = await app.request("/v1/check");
    expect(wrongMethod.status).toBe(404);
  });

  it("logs one line per request with method, path, status, ms and verdict", () => {
    const checks = lines.filter((l) => l.path === "/v1/check" && l.msg === "request");
    const deny = checks.find((l) => l.verdict === "deny");
    expect(deny).toMatchObject({ method: "POST", status: 200, policy: "mcp-tools" });
    expect(typeof deny?.ms).toBe("number");
    expect(checks.find((l) => l.status === 404)).toMatchObject({ code: "POLICY_NOT_FOUND" });
  });
});

describe("createWardenApp with a failing engine", () => {
  it("answers 500 with a generic message and no stack or inner message", async () => {
    const service = createGuardService({
      policies: [loadPolicy({ ref: "mcp-tools" }).policy],
      engines: {
        defaultEngine: "compiled",
        get: async () => ({
          name: "broken",
          check: async () => {
            throw new Error("secret detail at /srv/app.js:12");
          },
        }),
      },
    });
    const app = createWardenApp({ service, logger: false });
    const res = await post(app, { policy: "mcp-tools", subject: { input: "x" } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: "INTERNAL", message: "internal error" } });
    expect(text).not.toContain("secret");
    await service.close();
  });
});

describe("createWardenApp with an engine that never answers", () => {
  it("answers the time limit's fail-closed deny as a Decision with 200, and counts it in /v1/stats", async () => {
    const service = createGuardService({
      policies: [loadPolicy({ ref: "mcp-tools" }).policy],
      engines: {
        defaultEngine: "compiled",
        get: async () => ({ name: "hung", check: () => new Promise<Decision>(() => undefined) }),
      },
      checkTimeoutMs: 50,
    });
    const app = createWardenApp({ service, logger: false });
    const res = await post(app, { policy: "mcp-tools", subject: { input: "x" } });
    expect(res.status).toBe(200);
    const d = (await res.json()) as Decision;
    expect(d).toMatchObject({
      allowed: false,
      verdict: "deny",
      engine: "hung",
      failure: { code: "CHECK_TIMEOUT", mode: "closed" },
    });
    expect(d.failure?.message).toContain("50 ms");
    const stats = (await (await app.request("/v1/stats")).json()) as {
      checks: Record<string, number>;
      errors: { total: number };
    };
    expect(stats.checks).toMatchObject({ total: 1, deny: 1, failures: 1, timeouts: 1 });
    expect(stats.errors.total).toBe(0);
    await service.close();
  }, 2000);
});

describe("createWardenApp with API keys", () => {
  it("passes the key's caller, and what it is trusted with, to the guard service", async () => {
    const seen: { caller?: unknown; trust?: unknown }[] = [];
    const inner = createGuardService({
      policies: [loadPolicy({ ref: "mcp-tools" }).policy],
      engines: createEnginePool({ setup: {}, defaultEngine: "compiled" }),
    });
    const service: GuardService = {
      ...inner,
      check: (options) => {
        seen.push({ caller: options.caller, trust: options.trust });
        return inner.check(options);
      },
    };
    const callers: Record<string, Caller> = {
      "k-facts": { name: "proxy", scopes: ["check", "facts"] },
      "k-plain": { name: "agent", scopes: ["check"] },
    };
    const app = createWardenApp({
      service,
      logger: false,
      authenticator: keyAuthenticator({
        directory: {
          authenticate: async ({ token }) => callers[token],
          hasKeys: async () => true,
        },
      }),
    });
    for (const key of ["k-facts", "k-plain"]) {
      const res = await app.request("/v1/check", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ policy: "mcp-tools", subject: { input: "x" } }),
      });
      expect(res.status).toBe(200);
    }
    expect(seen).toEqual([
      { caller: callers["k-facts"], trust: { contextFacts: true } },
      { caller: callers["k-plain"], trust: { contextFacts: false } },
    ]);
    await inner.close();
  });

  it("takes labelled feedback only from keys with memory:write, and never stores it with learning off", async () => {
    const service = createGuardService({
      policies: [loadPolicy({ ref: "mcp-tools" }).policy],
      engines: createEnginePool({ setup: {}, defaultEngine: "compiled" }),
    });
    const callers: Record<string, Caller> = {
      "k-teach": { name: "reviewer", scopes: ["check", "memory:write"] },
      "k-plain": { name: "agent", scopes: ["check"] },
    };
    const app = createWardenApp({
      service,
      logger: false,
      authenticator: keyAuthenticator({
        directory: { authenticate: async ({ token }) => callers[token], hasKeys: async () => true },
      }),
    });
    const subject = { input: "", output: call("github.create_issue", { title: "bug" }) };
    const send = (path: string, key: string, body: unknown) =>
      app.request(path, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
    expect((await send("/v1/check", "k-teach", { policy: "mcp-tools", subject })).status).toBe(200);
    const refused = await send("/v1/feedback", "k-plain", { policy: "mcp-tools", subject, label: "allow" });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as ErrorBody).error.details).toMatchObject({ scope: "memory:write" });
    const taken = await send("/v1/feedback", "k-teach", { policy: "mcp-tools", subject, label: "allow" });
    expect(taken.status).toBe(200);
    expect(await taken.json()).toMatchObject({ stored: false });
    const bad = await send("/v1/feedback", "k-teach", { policy: "mcp-tools", subject, label: "maybe" });
    expect(bad.status).toBe(400);
    await service.close();
  });
});
