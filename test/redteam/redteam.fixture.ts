/**
 * Shared pieces of the red-team suite: guards for bundled or inline policies (through `createGuard`, the
 * public face a library user has), the subjects an attacker controls (a tool call, an EHRAgent log), and
 * the one assertion every case makes — the call is refused (deny, ask or a fail-closed failure), never
 * allowed. Nothing here reaches the network.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect } from "vitest";
import type { Decision } from "../../src/core/decision.js";
import type { ToolRule } from "../../src/core/policy.js";
import type { SubjectInput } from "../../src/core/subject.js";
import { createGuard, type Guard } from "../../src/guard.js";

export const REPO_ROOT = resolve(import.meta.dirname, "..", "..");
const WARDEN_BIN = join(REPO_ROOT, "bin", "warden.js");

/** A policy written inline in a test: only its rules matter, the texts are placeholders. */
export interface InlinePolicy {
  name: string;
  rules: Record<string, unknown>;
  agent?: string;
}

/** A deny rule on every tool under `when`, and an allow for every other call. */
export function denyElseAllow(deny: Pick<ToolRule, "id" | "message" | "when">): ToolRule[] {
  return [
    { ...deny, tool: "*", effect: "deny" },
    { id: "allow", tool: "*", effect: "allow", message: "Other calls are allowed" },
  ];
}

/** An inline policy of one deny rule on every tool under `when` and an allow for every other call. */
export function denyElseAllowPolicy(
  options: { name: string } & Pick<ToolRule, "id" | "message" | "when">,
): InlinePolicy {
  const { name, ...deny } = options;
  return { name, rules: { toolRules: denyElseAllow(deny) } };
}

export interface GuardPool {
  /** A guard for a bundled policy name or an inline policy (opened once per pool). */
  get(policy: string | InlinePolicy): Promise<Guard>;
  /** Writes an inline policy to a file and returns its path (for the CLI). */
  file(policy: InlinePolicy): string;
  close(): Promise<void>;
}

export function policyDocument(policy: InlinePolicy): Record<string, unknown> {
  return {
    kind: "warden.policy",
    schemaVersion: 1,
    name: policy.name,
    version: "1.0.0",
    agent: policy.agent ?? "tools",
    specification: "An agent that calls tools (red-team test policy).",
    requests: "See the rules.",
    rules: policy.rules,
  };
}

/** Guards opened lazily and closed together (call `close` in afterAll). */
export function guardPool(): GuardPool {
  const dir = mkdtempSync(join(tmpdir(), "warden-redteam-"));
  const guards = new Map<string, Promise<Guard>>();
  const file = (policy: InlinePolicy) => {
    const path = join(dir, `${policy.name}.json`);
    writeFileSync(path, JSON.stringify(policyDocument(policy), null, 2));
    return path;
  };
  return {
    get(policy) {
      const key = typeof policy === "string" ? policy : policy.name;
      let guard = guards.get(key);
      if (!guard) {
        guard = createGuard({
          policy: typeof policy === "string" ? policy : file(policy),
          store: ":memory:",
        });
        guards.set(key, guard);
      }
      return guard;
    },
    file,
    async close() {
      for (const guard of guards.values()) await (await guard.catch(() => undefined))?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A guard pool for a test file, closed by an afterAll hook registered here. */
export function useGuardPool(): GuardPool {
  const pool = guardPool();
  afterAll(() => pool.close());
  return pool;
}

/** A tool rule on a web action: never go to evil.test (its URL's domain), anything else allowed. */
export const webNoEvil: InlinePolicy = {
  name: "redteam-web-no-evil",
  agent: "web",
  rules: {
    toolRules: [
      {
        id: "web.no-evil",
        tool: "goto",
        effect: "deny",
        message: "evil.test is off limits",
        when: { field: "args:url", op: "eq", part: "domain", value: "evil.test" },
      },
    ],
    toolDefault: "allow",
  },
};

/** Fetch only from example.com: an allow rule on every URL of the call, deny by default. */
export const onlyExample: InlinePolicy = {
  name: "redteam-urls-only-example",
  rules: {
    toolRules: [
      {
        id: "http.only-example",
        tool: "http.fetch",
        effect: "allow",
        message: "Fetching from example.com is allowed",
        when: { field: "args:url", op: "eq", part: "domain", value: "example.com" },
      },
    ],
    toolDefault: "deny",
  },
};

/** A tool call as the agent's output, in MCP `tools/call` form. */
export function toolCall(options: {
  name: string;
  args: Record<string, unknown>;
  context?: Record<string, unknown>;
  task?: string;
}): SubjectInput {
  return {
    input: options.task ?? "",
    output: JSON.stringify({ method: "tools/call", params: { name: options.name, arguments: options.args } }),
    ...(options.context ? { context: options.context } : {}),
  };
}

/** An EHRAgent log for EICU-AC: the user's role and question, the code the agent wrote. */
export function ehrAgentLog(options: { role: string; code: string; question?: string }): SubjectInput {
  return {
    input: `Identity: ${options.role}\nQuestion: ${options.question ?? "how many patients were admitted?"}`,
    output: `Knowledge:\n- the tables are loaded with LoadDB\nGenerated code:\n${options.code}\nAnswer:\n42`,
  };
}

/** What a case reports when it fails: the decision's verdict, rules and reasons in one line. */
export function describeDecision(decision: Decision): string {
  const rules = decision.violations.map((v) => v.ruleId).join(", ");
  return `${decision.verdict} (${decision.engine}${rules ? `; ${rules}` : ""}${
    decision.failure ? `; failure ${decision.failure.code}` : ""
  }): ${decision.explanation ?? ""}`.slice(0, 600);
}

/** The assertion of every red-team case: not allowed (deny, ask or fail-closed). */
export function expectRefused(decision: Decision, what: string): void {
  expect(decision.allowed, `${what} was allowed: ${describeDecision(decision)}`).toBe(false);
}

/** The positive control beside a group of cases: the policy still allows the ordinary call. */
export function expectAllowed(decision: Decision, what: string): void {
  expect(decision.allowed, `${what} was refused: ${describeDecision(decision)}`).toBe(true);
}

/** Runs the `warden` CLI as a user would (bounded; store in memory), with its exit code and output. */
export function warden(
  args: string[],
  options: { timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [WARDEN_BIN, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, NO_COLOR: "1", WARDEN_STORE: ":memory:" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}
