/**
 * The approval queue through the real HTTP service (startServer on 127.0.0.1, a SQLite store, API
 * keys): an ask carries an approval id; an approver lists and approves it; the agent's waiting GET
 * completes; a re-check of exactly the same question is then allowed once, naming the approval, and
 * nothing else reuses it. Denials and expiry end in deny; scopes and callers are kept apart.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Decision } from "../../core/decision.js";
import { openStore } from "../../runtime/default-store.js";
import { createKeyDirectory, issueApiKey } from "../../store/key-directory.js";
import type { Approval, Store } from "../../store/store.js";
import { type RunningServer, startServer } from "../start-server.js";

const dir = mkdtempSync(join(tmpdir(), "warden-approvals-http-"));
let store: Store;
let server: RunningServer;
const tokens: Record<string, string> = {};
const decided: string[] = [];

beforeAll(async () => {
  store = await openStore({ path: join(dir, "warden.db") });
  tokens.agent = (await issueApiKey({ store, name: "agent", scopes: ["check"] })).token;
  tokens.other = (await issueApiKey({ store, name: "other-agent", scopes: ["check"] })).token;
  tokens.approver = (
    await issueApiKey({ store, name: "approver", scopes: ["approvals:read", "approvals:write"] })
  ).token;
  tokens.reader = (await issueApiKey({ store, name: "reader", scopes: ["approvals:read"] })).token;
  server = await startServer({
    port: 0,
    policyRefs: ["mcp-tools"],
    engine: "compiled",
    logger: false,
    keys: createKeyDirectory({ store }),
    approvals: {
      store,
      onDecided: ({ approval, decision }) => {
        decided.push(`${decision}:${approval.id}`);
      },
    },
  });
});

afterAll(async () => {
  await server?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(options: {
  as: keyof typeof tokens | "nobody";
  method?: "GET" | "POST";
  path: string;
  body?: unknown;
}): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  if (options.as !== "nobody") headers.authorization = `Bearer ${tokens[options.as]}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${server.url}${options.path}`, {
    method: options.method ?? (options.body !== undefined ? "POST" : "GET"),
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: response.status, body: await response.json() };
}

const merge = (number = 12) => ({
  policy: "mcp-tools",
  call: { name: "github.merge_pull_request", arguments: { repo: "acme/api", number } },
});
const check = async (as: keyof typeof tokens, body = merge()) =>
  (await call({ as, path: "/v1/check/tool-call", body })).body as Decision;

describe("approvals over HTTP", () => {
  it("ask → approval id → approve via POST → the waiting GET completes → the same question is allowed once", async () => {
    const asked = await check("agent");
    expect(asked).toMatchObject({ verdict: "ask", allowed: false, approval: { status: "pending" } });
    const id = asked.approval!.id;
    expect(Date.parse(asked.approval!.expiresAt!)).toBeGreaterThan(Date.now());
    // Asking again while pending queues nothing new.
    expect((await check("agent")).approval?.id).toBe(id);

    // The agent waits on its own approval while the approver finds and approves it.
    const waiting = call({ as: "agent", path: `/v1/approvals/${id}?wait=10000` });
    const listed = await call({ as: "approver", path: "/v1/approvals" });
    expect(listed.status).toBe(200);
    const approvals = (listed.body as { approvals: Approval[] }).approvals;
    expect(approvals.map((a) => a.id)).toContain(id);
    expect(approvals.find((a) => a.id === id)).toMatchObject({
      policy: "mcp-tools",
      caller: "agent",
      rules: ["tool.confirm-merge"],
      status: "pending",
    });
    const started = Date.now();
    const approved = await call({
      as: "approver",
      path: `/v1/approvals/${id}`,
      body: { decision: "approve", by: "alice@example.com" },
    });
    expect(approved).toMatchObject({
      status: 200,
      body: { id, status: "approved", decidedBy: "alice@example.com (key approver)" },
    });
    const waited = await waiting;
    expect(waited).toMatchObject({ status: 200, body: { id, status: "approved" } });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(decided).toContain(`approve:${id}`);

    // Another caller, or another question, never reuses it.
    expect((await check("other")).verdict).toBe("ask");
    expect((await check("agent", merge(13))).verdict).toBe("ask");
    // The same question from the same caller: allowed, naming the approval, once.
    const again = await check("agent");
    expect(again).toMatchObject({ verdict: "allow", allowed: true, approval: { id, status: "approved" } });
    expect(again.violations).toEqual([]);
    expect(again.explanation).toContain("alice@example.com");
    const third = await check("agent");
    expect(third.verdict).toBe("ask");
    expect(third.approval?.id).not.toBe(id);
  });

  it("a denied approval ends in deny: the re-check is a new ask, never an allow", async () => {
    const asked = await check("agent", merge(21));
    const id = asked.approval!.id;
    const denied = await call({ as: "approver", path: `/v1/approvals/${id}`, body: { decision: "deny" } });
    expect(denied.body).toMatchObject({ status: "denied", decidedBy: "approver" });
    const again = await check("agent", merge(21));
    expect(again.verdict).toBe("ask");
    expect(again.approval?.id).not.toBe(id);
    // Deciding twice is a conflict naming the status.
    const twice = await call({ as: "approver", path: `/v1/approvals/${id}`, body: { decision: "approve" } });
    expect(twice.status).toBe(409);
    expect(JSON.stringify(twice.body)).toContain("denied");
  });

  it("keeps callers apart: scopes for deciding, each agent sees only its own, unknown ids are 404", async () => {
    const asked = await check("agent", merge(31));
    const id = asked.approval!.id;
    const byAgent = await call({ as: "agent", path: `/v1/approvals/${id}`, body: { decision: "approve" } });
    expect(byAgent.status).toBe(403);
    const byReader = await call({ as: "reader", path: `/v1/approvals/${id}`, body: { decision: "approve" } });
    expect(byReader.status).toBe(403);
    expect((await call({ as: "other", path: `/v1/approvals/${id}` })).status).toBe(404);
    const otherList = (await call({ as: "other", path: "/v1/approvals" })).body as { approvals: Approval[] };
    expect(otherList.approvals.map((a) => a.id)).not.toContain(id);
    expect((await call({ as: "agent", path: `/v1/approvals/${id}` })).body).toMatchObject({ id });
    expect((await call({ as: "nobody", path: "/v1/approvals" })).status).toBe(401);
    expect((await call({ as: "approver", path: "/v1/approvals/no-such-id" })).status).toBe(404);
    const bad = await call({ as: "approver", path: `/v1/approvals/${id}`, body: { decision: "maybe" } });
    expect(bad.status).toBe(400);
    expect((await call({ as: "agent", path: `/v1/approvals/${id}?wait=999999` })).status).toBe(400);
    // Still pending after all that.
    expect((await store.getApproval({ id }))?.status).toBe("pending");
  });

  it("a bounded wait on an undecided approval answers it still pending", async () => {
    const asked = await check("agent", merge(41));
    const started = Date.now();
    const waited = await call({ as: "agent", path: `/v1/approvals/${asked.approval!.id}?wait=300` });
    expect(waited.body).toMatchObject({ status: "pending" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it("never turns a deny into anything else", async () => {
    const decision = await check("agent", {
      policy: "mcp-tools",
      call: { name: "github.delete_repository", arguments: { repo: "acme/api" } },
    } as ReturnType<typeof merge>);
    expect(decision.verdict).toBe("deny");
    expect(decision.approval).toBeUndefined();
  });
});
