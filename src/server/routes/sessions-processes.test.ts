/**
 * Two `warden serve` processes sharing one PostgreSQL database agree on one session: steps sent to either
 * are decided against the same trajectory, and concurrent steps through both serialise (every index once).
 * The key is made with `warden keys create` on the same database. Runs when WARDEN_TEST_PG_URL is set
 * (`bash scripts/start-test-postgres.sh` prints one).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRETS_POLICY_NAME, writeSecretsPolicy } from "../../../test/support/secrets-policy.js";
import type { Decision } from "../../core/decision.js";

const pgUrl = process.env.WARDEN_TEST_PG_URL;
if (!pgUrl) console.warn("[sessions-processes.test] skipped: WARDEN_TEST_PG_URL is not set");

const root = resolve(import.meta.dirname, "..", "..", "..");
const bin = join(root, "bin", "warden.js");
const schema = `warden_sessions_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
const store = pgUrl ? `${pgUrl}${pgUrl.includes("?") ? "&" : "?"}schema=${schema}` : "";

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** Starts `warden serve` and resolves with its URL once it says where it listens. */
function serve(policy: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        bin,
        "serve",
        "--store",
        store,
        "--policy",
        policy,
        "--engine",
        "auto",
        "--port",
        "0",
        "--log-level",
        "silent",
      ],
      { cwd: root, env: { ...process.env, NO_COLOR: "1" } },
    );
    let stderr = "";
    const timer = setTimeout(() => fail(new Error(`serve did not start: ${stderr}`)), 120_000);
    child.stderr.on("data", (d) => {
      stderr += d;
      const match = /serving (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        done({ child, url: match[1] });
      }
    });
    child.on("exit", (code) => fail(new Error(`serve exited ${code}: ${stderr}`)));
  });
}

describe.skipIf(!pgUrl)("sessions across two warden serve processes on PostgreSQL", () => {
  const servers: { child: ChildProcess; url: string }[] = [];
  let token = "";

  beforeAll(async () => {
    const created = await run(["keys", "create", "--name", "two", "--store", store]);
    expect(created.code, created.stderr).toBe(0);
    token = created.stdout.trim();
    const policy = writeSecretsPolicy();
    servers.push(...(await Promise.all([serve(policy), serve(policy)])));
  }, 240_000);

  afterAll(async () => {
    for (const { child } of servers) child.kill("SIGTERM");
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  });

  const post = async (server: number, path: string, body: unknown) => {
    const res = await fetch(`${servers[server]?.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const step = async (server: number, id: string, action: string, args: Record<string, unknown> = {}) => {
    const res = await post(server, `/v1/sessions/${id}/steps`, { step: { action, args } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as unknown as Decision;
  };

  it("decides a step on one process against the steps taken through the other", async () => {
    const anonymous = await fetch(`${servers[0]?.url}/v1/sessions`, { method: "POST" });
    expect(anonymous.status).toBe(401);
    const opened = await post(0, "/v1/sessions", { policy: SECRETS_POLICY_NAME, input: "tidy up" });
    expect(opened.status).toBe(201);
    const id = opened.body.id as string;
    expect((await step(1, id, "email.send")).verdict).toBe("allow");
    expect((await step(0, id, "secrets.read", { name: "dev" })).verdict).toBe("allow");
    const a = await step(1, id, "email.send");
    const b = await step(0, id, "email.send");
    expect([a.verdict, b.verdict]).toEqual(["deny", "deny"]);
    expect(a.violations.map((v) => v.ruleId)).toEqual(b.violations.map((v) => v.ruleId));
    const read = await fetch(`${servers[1]?.url}/v1/sessions/${id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const session = (await read.json()) as { steps: { index: number; verdict: string }[] };
    expect(session.steps.map((s) => s.verdict)).toEqual(["allow", "allow", "deny", "deny"]);
  }, 120_000);

  it("serialises concurrent steps sent to both processes: every step recorded once, in one order", async () => {
    const opened = await post(1, "/v1/sessions", { policy: SECRETS_POLICY_NAME, input: "" });
    const id = opened.body.id as string;
    const sends = Array.from({ length: 8 }, (_, i) =>
      step(i % 2, id, i === 3 ? "secrets.read" : "email.send", i === 3 ? { name: "dev" } : {}),
    );
    await Promise.all(sends);
    const read = await fetch(`${servers[0]?.url}/v1/sessions/${id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const session = (await read.json()) as {
      stepCount: number;
      steps: { index: number; step: { action: string }; verdict: string }[];
    };
    expect(session.stepCount).toBe(8);
    expect(session.steps.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // Whatever the order, each send after the read (in the recorded order) was denied, each before allowed.
    const readAt = session.steps.findIndex((s) => s.step.action === "secrets.read");
    for (const s of session.steps) {
      if (s.step.action === "email.send")
        expect(s.verdict, `step ${s.index}`).toBe(s.index > readAt ? "deny" : "allow");
    }
  }, 120_000);
});
