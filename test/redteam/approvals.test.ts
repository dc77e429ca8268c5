/**
 * Red team, approvals (issue 14): ways an agent might turn an `ask` into an allow without a person.
 * Against the real HTTP service (port 0, 127.0.0.1, SQLite store, API keys):
 * - approving its own ask with its own key (no approvals:write) → 403;
 * - stretching one approval: other arguments, another tool, the same call through /v1/check, the same
 *   question from another key, or a second re-check → each is an ask again;
 * - a web page approving on the reviewer's behalf: a foreign Origin, a rebound Host, Origin "null" →
 *   refused before the route runs (the service's own origin is admitted only with a Host the allow-list
 *   takes);
 * - the MCP proxy: an `accept` whose `approve` is the string "true" or 1 is not an approval;
 * - the service's index of pending approvals: a deny or approve made through another connection (the
 *   CLI) is seen on the next ask.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Decision } from "../../src/core/decision.js";
import { canonicalSubject, subjectDigest } from "../../src/core/subject-digest.js";
import { readApprovalAnswer } from "../../src/mcp/elicit-approval.js";
import { openStore } from "../../src/runtime/default-store.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { createKeyDirectory, issueApiKey } from "../../src/store/key-directory.js";
import type { Store } from "../../src/store/store.js";

const dir = mkdtempSync(join(tmpdir(), "warden-redteam-approvals-"));
let store: Store;
let server: RunningServer;
let agent = "";
let reviewer = "";
let other = "";

beforeAll(async () => {
  store = await openStore({ path: join(dir, "warden.db") });
  agent = (await issueApiKey({ store, name: "agent", scopes: ["check", "facts"] })).token;
  other = (await issueApiKey({ store, name: "agent-2", scopes: ["check"] })).token;
  reviewer = (await issueApiKey({ store, name: "reviewer", scopes: ["approvals:read", "approvals:write"] }))
    .token;
  server = await startServer({
    port: 0,
    policyRefs: ["mcp-tools"],
    engine: "compiled",
    logger: false,
    keys: createKeyDirectory({ store }),
    approvals: { store },
    reviewPage: true,
  });
});

afterAll(async () => {
  await server?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function post(options: {
  path: string;
  token: string;
  body: unknown;
  headers?: Record<string, string>;
}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.url}${options.path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${options.token}`,
      "content-type": "application/json",
      ...options.headers,
    },
    body: JSON.stringify(options.body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const call = (args: Record<string, unknown>, name = "github.merge_pull_request") => ({
  policy: "mcp-tools",
  call: { name, arguments: args },
});
const check = async (token: string, body: unknown, path = "/v1/check/tool-call") =>
  (await post({ path, token, body })).body as unknown as Decision;

describe("red team: approvals", () => {
  it("an agent cannot approve its own ask", async () => {
    const asked = await check(agent, call({ repo: "acme/api", number: 1 }));
    const self = await post({
      path: `/v1/approvals/${asked.approval!.id}`,
      token: agent,
      body: { decision: "approve" },
    });
    expect(self.status).toBe(403);
    expect((await check(agent, call({ repo: "acme/api", number: 1 }))).verdict).toBe("ask");
  });

  it("one approval allows exactly one re-check of exactly the question, by the key that asked", async () => {
    const question = call({ repo: "acme/api", number: 2 });
    const asked = await check(agent, question);
    const id = asked.approval!.id;
    expect(
      (await post({ path: `/v1/approvals/${id}`, token: reviewer, body: { decision: "approve" } })).status,
    ).toBe(200);
    // Stretching it: other arguments, an extra argument, another tool, the same call as a plain check,
    // another key. Each is an ask (or the policy's own answer), never this approval's allow.
    for (const attempt of [
      call({ repo: "acme/api", number: 3 }),
      call({ repo: "acme/api", number: 2, squash: true }),
      call({ repo: "acme/api", number: 2 }, "github.merge_pull_request_v2"),
      { ...question, call: { ...question.call, history: [{ action: "github.read_file", args: {} }] } },
    ]) {
      const d = await check(agent, attempt);
      expect(d.approval?.status === "approved", JSON.stringify(attempt)).toBe(false);
      expect(d.allowed && d.approval?.id === id).toBe(false);
    }
    const asPlainCheck = await check(
      agent,
      {
        policy: "mcp-tools",
        subject: {
          input: "",
          output: JSON.stringify({ method: "tools/call", params: question.call }),
          context: { toolCalls: [question.call] },
        },
      },
      "/v1/check",
    );
    expect(asPlainCheck.approval?.id).not.toBe(id);
    expect((await check(other, question)).verdict).toBe("ask");
    // The real re-check: allowed once, then never again.
    expect(await check(agent, question)).toMatchObject({ verdict: "allow", approval: { id } });
    expect((await check(agent, question)).verdict).toBe("ask");
  });

  it("a repeated ask's remembered approval never outlives a decision made in another process", async () => {
    // The service answers a repeated ask from its index of pending approvals; `warden approvals` decides
    // through a connection of its own. Denied there: the next ask is a new approval, never an allow.
    // Approved there: the re-check is allowed once.
    const elsewhere = await openStore({ path: join(dir, "warden.db") });
    try {
      const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
      const question = call({ repo: "acme/api", number: 7 });
      const first = await check(agent, question);
      expect((await check(agent, question)).approval?.id).toBe(first.approval!.id);
      await elsewhere.decideApproval({ id: first.approval!.id, decision: "deny", by: "cli" });
      await nextTurn();
      const afterDeny = await check(agent, question);
      expect(afterDeny).toMatchObject({ verdict: "ask", allowed: false });
      expect(afterDeny.approval?.id).not.toBe(first.approval!.id);
      expect((await check(agent, question)).approval?.id).toBe(afterDeny.approval!.id);
      await elsewhere.decideApproval({ id: afterDeny.approval!.id, decision: "approve", by: "cli" });
      await nextTurn();
      expect(await check(agent, question)).toMatchObject({
        verdict: "allow",
        approval: { id: afterDeny.approval!.id },
      });
      expect((await check(agent, question)).verdict).toBe("ask");
    } finally {
      await elsewhere.close();
    }
  });

  it("a web page cannot approve on the reviewer's behalf", async () => {
    const asked = await check(agent, call({ repo: "acme/api", number: 4 }));
    const path = `/v1/approvals/${asked.approval!.id}`;
    const port = new URL(server.url).port;
    const foreign: Record<string, string>[] = [
      { origin: "http://evil.example" },
      { origin: `http://localhost.evil.example:${port}` },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { origin: `http://127.0.0.1:${Number(port) + 1}` },
    ];
    for (const headers of foreign) {
      const refused = await post({ path, token: reviewer, body: { decision: "approve" }, headers });
      expect(refused.status, JSON.stringify(headers)).toBe(403);
    }
    // A rebound name arrives with its own Host: refused by the allow-list before the origin is compared.
    const rebound = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: {
        host: `evil.example:${port}`,
        origin: `http://evil.example:${port}`,
        authorization: `Bearer ${reviewer}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ decision: "approve" }),
    });
    expect(rebound.status).toBe(403);
    expect((await store.getApproval({ id: asked.approval!.id }))?.status).toBe("pending");
  });

  it("an approval's question names every own key: an extra own __proto__ argument is another question", () => {
    // JSON from the wire makes "__proto__" an own key. Canonical JSON once dropped it when it sorted an
    // object (assignment set the copy's prototype instead), so a call carrying it had the digest of the
    // approved call without it, and the audit row did not show it.
    const approved = {
      input: "",
      output: "",
      context: { toolCalls: [{ name: "run", arguments: { b: 1, a: 1 } }] },
    };
    const laundered = JSON.parse(
      '{"input":"","output":"","context":{"toolCalls":[{"name":"run","arguments":{"b":1,"a":1,"__proto__":{"isAdmin":true}}}]}}',
    );
    expect(subjectDigest({ subject: laundered })).not.toBe(subjectDigest({ subject: approved }));
    expect(canonicalSubject({ subject: laundered })).toContain('"__proto__":{"isAdmin":true}');
  });

  it("MCP elicitation: only approve === true approves", () => {
    for (const content of [{ approve: "true" }, { approve: 1 }, { approve: [true] }, {}, { Approve: true }]) {
      const answer = readApprovalAnswer({ outcome: { result: { action: "accept", content } }, timeoutMs: 1 });
      expect(answer.approved, JSON.stringify(content)).toBe(false);
    }
    expect(
      readApprovalAnswer({
        outcome: { result: { action: "ACCEPT", content: { approve: true } } },
        timeoutMs: 1,
      }).approved,
    ).toBe(false);
  });
});
