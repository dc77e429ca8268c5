import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRETS_POLICY_NAME, writeSecretsPolicy } from "../../../test/support/secrets-policy.js";
import type { Caller } from "../../core/caller.js";
import type { Decision } from "../../core/decision.js";
import { loadPolicy } from "../../policies/load-policy.js";
import { createEnginePool } from "../../runtime/engine-pool.js";
import { createGuardService, type GuardService } from "../../runtime/guard-service.js";
import { createGuardSessions } from "../../runtime/guard-sessions.js";
import { createSqliteStore } from "../../store/sqlite-store.js";
import type { Store } from "../../store/store.js";
import type { Authenticator } from "../authenticator.js";
import { createWardenApp } from "../create-warden-app.js";
import type { ErrorBody } from "../http-status.js";

/** Two keys, told apart by the bearer token (the key store's own tests cover real keys). */
const callers: Record<string, Caller> = {
  alice: { name: "alice", scopes: ["check"], keyId: "k-alice" },
  bob: { name: "bob", scopes: ["check"], keyId: "k-bob" },
  narrow: { name: "narrow", scopes: ["check"], keyId: "k-narrow", policies: ["mcp-tools"] },
};
const authenticator: Authenticator = {
  authenticate: async ({ authorization }) =>
    callers[authorization?.replace(/^Bearer /, "") ?? ""] ?? "unauthorized",
};

describe("server-side sessions over HTTP", () => {
  let service: GuardService;
  let store: Store;
  let app: ReturnType<typeof createWardenApp>;
  const send = (path: string, body: unknown, who = "alice") =>
    app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${who}` },
      body: JSON.stringify(body),
    });
  const open = async (who = "alice") => {
    const res = await send("/v1/sessions", { policy: SECRETS_POLICY_NAME, input: "tidy the inbox" }, who);
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  const step = async (id: string, step: unknown, who = "alice") =>
    send(`/v1/sessions/${id}/steps`, { step }, who);
  const decided = async (res: Response) => {
    expect(res.status).toBe(200);
    return (await res.json()) as Decision;
  };

  beforeAll(async () => {
    service = createGuardService({
      policies: [loadPolicy({ ref: writeSecretsPolicy() }).policy, loadPolicy({ ref: "mcp-tools" }).policy],
      engines: createEnginePool({ setup: {}, defaultEngine: "auto" }),
    });
    store = await createSqliteStore({ path: ":memory:" });
    app = createWardenApp({
      service,
      logger: false,
      authenticator,
      sessions: createGuardSessions({ service, store }),
    });
  });
  afterAll(async () => {
    await service.close();
    await store.close();
  });

  it("decides each step against the steps before it: a send after a secret read is denied", async () => {
    const id = await open();
    expect(await decided(await step(id, { action: "email.send", args: { to: "a@b.c" } }))).toMatchObject({
      verdict: "allow",
    });
    expect(await decided(await step(id, { action: "secrets.read", args: { name: "dev" } }))).toMatchObject({
      verdict: "allow",
    });
    const denied = await decided(await step(id, { action: "email.send", args: { to: "a@b.c" } }));
    expect(denied).toMatchObject({ allowed: false, verdict: "deny" });
    expect(denied.violations.map((v) => v.ruleId)).toContain("no-send-after-secret");
    // The same as checkToolCall with that history: one semantics.
    const direct = await service.checkToolCall({
      policy: SECRETS_POLICY_NAME,
      call: {
        name: "email.send",
        arguments: { to: "a@b.c" },
        input: "tidy the inbox",
        history: [
          { action: "email.send", args: { to: "a@b.c" } },
          { action: "secrets.read", args: { name: "dev" } },
        ],
      },
    });
    expect(denied.verdict).toBe(direct.verdict);
    expect(denied.violations.map((v) => v.ruleId)).toEqual(direct.violations.map((v) => v.ruleId));

    const res = await app.request(`/v1/sessions/${id}`, { headers: { authorization: "Bearer alice" } });
    const session = (await res.json()) as { stepCount: number; steps: { verdict: string }[]; owner?: string };
    expect(session.stepCount).toBe(3);
    expect(session.steps.map((s) => s.verdict)).toEqual(["allow", "allow", "deny"]);
    expect(session.owner).toBeUndefined();
  });

  it("leaves denied steps out of the trajectory: a read that was refused did not happen", async () => {
    const id = await open();
    expect((await decided(await step(id, { action: "secrets.read", args: { name: "prod" } }))).verdict).toBe(
      "deny",
    );
    expect((await decided(await step(id, { action: "email.send", args: {} }))).verdict).toBe("allow");
  });

  it("uses the provider's spelling of a tool name as checkToolCall does", async () => {
    const id = await open();
    await decided(await step(id, { action: "secrets_read", args: { name: "dev" } }));
    expect((await decided(await step(id, { action: "email_send", args: {} }))).verdict).toBe("deny");
  });

  it("serialises concurrent steps: each is decided against the ones appended before it", async () => {
    const id = await open();
    const answers = await Promise.all(
      [
        { action: "secrets.read", args: { name: "dev" } },
        { action: "email.send", args: {} },
        { action: "email.send", args: {} },
      ].map(async (s) => (await decided(await step(id, s))).verdict),
    );
    // Steps are queued in arrival order: the read first, then both sends are after it.
    expect(answers).toEqual(["allow", "deny", "deny"]);
    const res = await app.request(`/v1/sessions/${id}`, { headers: { authorization: "Bearer alice" } });
    expect(((await res.json()) as { steps: unknown[] }).steps).toHaveLength(3);
  });

  it("belongs to the key that opened it: another key hears 404", async () => {
    const id = await open("alice");
    const res = await step(id, { action: "web.fetch", args: {} }, "bob");
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).error.details?.reason).toBe("session-not-found");
    expect((await send(`/v1/sessions/${id}/finish`, {}, "bob")).status).toBe(404);
    expect(
      (await app.request(`/v1/sessions/${id}`, { headers: { authorization: "Bearer bob" } })).status,
    ).toBe(404);
  });

  it("refuses a policy the key may not use, an unknown policy, bad steps, and steps after finish", async () => {
    expect((await send("/v1/sessions", { policy: SECRETS_POLICY_NAME }, "narrow")).status).toBe(403);
    expect((await send("/v1/sessions", { policy: "nope" })).status).toBe(404);
    const id = await open();
    const bad = await step(id, { args: {} });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("step.action");
    expect((await send(`/v1/sessions/${id}/steps`, { step: { action: "x" }, extra: 1 })).status).toBe(400);
    const finished = await send(`/v1/sessions/${id}/finish`, {});
    expect(finished.status).toBe(200);
    expect(((await finished.json()) as { finishedAt?: string }).finishedAt).toBeDefined();
    const late = await step(id, { action: "web.fetch", args: {} });
    expect(late.status).toBe(409);
    expect(((await late.json()) as ErrorBody).error.details?.reason).toBe("session-finished");
    expect((await step("no-such-session", { action: "web.fetch", args: {} })).status).toBe(404);
  });

  it("answers 501 when the app keeps no sessions", async () => {
    const bare = createWardenApp({ service, logger: false });
    const res = await bare.request("/v1/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ policy: SECRETS_POLICY_NAME }),
    });
    expect(res.status).toBe(501);
  });
});
