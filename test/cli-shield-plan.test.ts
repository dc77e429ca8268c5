/**
 * `warden check --engine shield --shield-planning plan` as a user runs it: a real process, a policy and a
 * trajectory on disk, a loopback OpenAI-compatible server whose scripted replies are the plans.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelServer, startOpenAIServer } from "../src/testing/openai-server.js";

const root = resolve(import.meta.dirname, "..");
const bin = join(root, "bin", "warden.js");

function warden(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", WARDEN_STORE: ":memory:" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "warden-shield-plan-"));
const policy = join(dir, "policy.json");
writeFileSync(
  policy,
  JSON.stringify({
    name: "files",
    specification: "An assistant that manages files in a drive.",
    requests: "Never share confidential files.",
    rules: {
      predicates: [
        {
          name: "shares_file",
          kind: "action",
          description: "shares a file",
          binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "share" } },
        },
        { name: "is_confidential", kind: "state", description: "the shared file is confidential" },
      ],
      temporalRules: [
        {
          id: "no-confidential-shares",
          formula: "G(shares_file -> !is_confidential)",
          description: "Do not share confidential files",
        },
      ],
    },
  }),
);
const trajectory = (file: string) => {
  const path = join(dir, `${file}.trajectory.json`);
  writeFileSync(
    path,
    JSON.stringify({ input: "share the file", steps: [{ action: "share", args: { file } }] }),
  );
  return path;
};
const plan = JSON.stringify({
  steps: [
    {
      predicate: "is_confidential",
      operation: "formal-verify",
      code: "finish({ label: /salar/i.test(String(data.step.args.file)) ? 1 : 0 });",
    },
  ],
});

describe("warden check --shield-planning plan", () => {
  let server: ModelServer;
  let reply = plan;
  beforeAll(async () => {
    server = await startOpenAIServer({ respond: () => reply });
  });
  afterAll(async () => server.close());

  const check = (file: string) =>
    warden([
      "check",
      "--policy",
      policy,
      "--trajectory",
      trajectory(file),
      "--engine",
      "shield",
      "--shield-planning",
      "plan",
      "--model",
      "openai-compatible:planner",
      "--base-url",
      server.url,
      "--json",
    ]);

  it("plans, verifies in the sandbox, and denies the confidential share", { timeout: 180_000 }, async () => {
    const denied = await check("salaries.xlsx");
    expect(denied.code, denied.stderr).toBe(1);
    expect(JSON.parse(denied.stdout)).toMatchObject({
      unsafe: true,
      violatedRules: ["no-confidential-shares"],
    });
    const allowed = await check("menu.pdf");
    expect(allowed.code, allowed.stderr).toBe(0);
  });

  it("fails closed on an unparseable plan", { timeout: 120_000 }, async () => {
    reply = "no plan today";
    const r = await check("menu.pdf");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("MODEL_OUTPUT_INVALID");
  });
});
