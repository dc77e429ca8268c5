/**
 * Red team, CLI bad input: every command given a bad file, a hostile policy or a hostile environment
 * (a directory or /dev/zero as input, a port in use, a missing program, a policy pointing at
 * /etc/passwd, a condition nested 2 000 deep) exits 2 with a WardenError naming the option or field —
 * never a stack trace, never an out-of-memory. Real processes; nothing leaves 127.0.0.1.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..", "..");
const bin = join(root, "bin", "warden.js");
const SPAWN_LIMIT_MS = 90_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function warden(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  return new Promise<Run>((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", WARDEN_STORE: ":memory:", ...options.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.stdin.on("error", () => undefined);
    if (options.stdin !== undefined) child.stdin.end(options.stdin);
    else child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), SPAWN_LIMIT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** Exit 2, one WardenError line naming what was wrong, no stack trace, no "internal error". */
function expectUsageError(run: Run, code: string, ...names: string[]) {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toContain(`warden: ${code}: `);
  for (const name of names) expect(run.stderr).toContain(name);
  expect(run.stderr).not.toMatch(/^ {4}at /m);
  expect(run.stderr).not.toContain("internal error");
}

const dir = mkdtempSync(join(tmpdir(), "warden-redteam-cli-"));
const input = join(dir, "input.txt");
writeFileSync(input, "Identity: nursing\nQuestion: how many patients?");
const bundled = JSON.parse(readFileSync(join(root, "policies", "mcp-tools", "policy.json"), "utf8"));

// biome-ignore lint/suspicious/noExplicitAny: a raw policy document, edited freely by the cases
type PolicyDoc = Record<string, any>;

/** A copy of the bundled mcp-tools policy, changed by `edit`, in its own folder. */
function policyDir(name: string, edit: (policy: PolicyDoc) => void): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  const policy = structuredClone(bundled);
  policy.specification = "An agent with tools.";
  policy.requests = "Guard it.";
  edit(policy);
  writeFileSync(join(folder, "policy.json"), JSON.stringify(policy));
  return folder;
}

function nested(depth: number): string {
  return `${"[".repeat(depth)}1${"]".repeat(depth)}`;
}

describe("red team: CLI bad input ends in a WardenError and exit 2", { timeout: 2 * SPAWN_LIMIT_MS }, () => {
  it("--input that is a directory", async () => {
    expectUsageError(
      await warden(["check", "--policy", "eicu-ac", "--input", dir]),
      "INVALID_INPUT",
      "--input",
      "directory",
    );
  });

  it("--input /dev/zero is refused, not read until memory runs out", async () => {
    const run = await warden(["check", "--policy", "eicu-ac", "--input", "/dev/zero"]);
    expectUsageError(run, "INVALID_INPUT", "--input", "not a regular file");
  });

  it("stdin past --max-input-bytes", async () => {
    const run = await warden(["check", "--policy", "eicu-ac", "--input", "-", "--max-input-bytes", "64"], {
      stdin: "x".repeat(10_000),
    });
    expectUsageError(run, "INVALID_INPUT", "--input", "stdin is larger than 64 bytes");
  });

  it("a file past --max-input-bytes, and a --max-input-bytes that is not a number", async () => {
    const small = await warden(["check", "--policy", "eicu-ac", "--input", input, "--max-input-bytes", "8"]);
    expectUsageError(small, "INVALID_INPUT", "--input", "larger than 8 bytes");
    const bad = await warden(["check", "--policy", "eicu-ac", "--input", input, "--max-input-bytes", "lots"]);
    expectUsageError(bad, "INVALID_INPUT", "--max-input-bytes");
  });

  it("--context that is not a JSON object", async () => {
    const run = await warden(["check", "--policy", "eicu-ac", "--input", input, "--context", "[1,2]"]);
    expectUsageError(run, "INVALID_INPUT", "--context", "expects a JSON object");
  });

  it("--subject nested 100 000 deep", async () => {
    const file = join(dir, "deep-subject.json");
    writeFileSync(file, `{"input":"x","context":{"a":${nested(100_000)}}}`);
    expectUsageError(
      await warden(["check", "--policy", "mcp-tools", "--subject", file]),
      "INVALID_INPUT",
      "--subject",
      "nested",
    );
  });

  it("--trajectory whose tool arguments nest past the subject limit", async () => {
    const file = join(dir, "deep-args.json");
    writeFileSync(file, `[{"action":"shell.run","args":{"command":${nested(100)}}}]`);
    const run = await warden(["check", "--policy", "mcp-tools", "--trajectory", file]);
    expectUsageError(run, "INVALID_INPUT", "trajectory.0.args", "nested more than 64 levels");
  });

  it("mcp proxy of a program that does not exist", async () => {
    const run = await warden(["mcp", "proxy", "--policy", "mcp-tools", "--", "/no/such/mcp-server"]);
    expectUsageError(run, "INVALID_INPUT", "/no/such/mcp-server", "not found");
  });

  it("a --store whose parent is a regular file", async () => {
    const run = await warden(
      [
        "check",
        "--policy",
        "eicu-ac",
        "--input",
        input,
        "--engine",
        "guardagent",
        "--model",
        "openai-compatible:m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--store",
        join(input, "memory.db"),
      ],
      { env: { OPENAI_API_KEY: "unused" } },
    );
    expectUsageError(run, "STORE_ERROR", "--store", "not a directory");
  });

  it("a policy whose `when` is nested 2 000 deep: INVALID_POLICY naming the rule", async () => {
    const folder = policyDir("deep-when", (p) => {
      let when: unknown = { field: "tool", op: "eq", value: "x" };
      for (let i = 0; i < 2000; i++) when = { not: when };
      p.rules.toolRules[0].when = when;
    });
    const ruleId = bundled.rules.toolRules[0].id as string;
    for (const args of [
      ["check", "--policy", folder, "--input", input],
      ["compile", "--check", folder],
    ]) {
      expectUsageError(await warden(args), "INVALID_POLICY", "rules.toolRules.0.when", ruleId);
    }
  });

  it("duplicate rule ids are refused by check and compile --check", async () => {
    const folder = policyDir("duplicate-ids", (p) => {
      p.rules.toolRules[1].id = p.rules.toolRules[0].id;
    });
    for (const args of [
      ["check", "--policy", folder, "--input", input],
      ["compile", "--check", folder],
    ]) {
      expectUsageError(
        await warden(args),
        "INVALID_POLICY",
        "duplicate rule id",
        bundled.rules.toolRules[0].id,
      );
    }
  });

  it("policy texts outside the policy's folder: absolute, '..' and a symbolic link", async () => {
    const outside = join(dir, "secret.txt");
    writeFileSync(outside, "SECRET");
    const absolute = policyDir("spec-absolute", (p) => {
      p.specification = { file: "/etc/passwd" };
    });
    const dotdot = policyDir("spec-dotdot", (p) => {
      p.requests = { file: "../secret.txt" };
    });
    const linked = policyDir("spec-link", (p) => {
      p.specification = { file: "spec.md" };
    });
    symlinkSync(outside, join(linked, "spec.md"));
    const cases: [string, string][] = [
      [absolute, "specification"],
      [dotdot, "requests"],
      [linked, "specification"],
    ];
    for (const [folder, field] of cases) {
      const check = await warden(["compile", "--check", folder]);
      expectUsageError(check, "INVALID_POLICY", `Policy field ${field}`);
      expect(check.stdout).not.toContain("SECRET");
      expect(check.stdout).not.toContain("root:");
    }
    expectUsageError(
      await warden(["check", "--policy", absolute, "--input", input]),
      "INVALID_POLICY",
      "specification",
    );
  });

  it("a policy that is not a regular file", async () => {
    expectUsageError(
      await warden(["compile", "--check", "/dev/zero"]),
      "INVALID_POLICY",
      "/dev/zero",
      "not a regular file",
    );
  });

  it("ltl --trace /dev/zero and policy train --data that is a directory", async () => {
    const trace = await warden(["ltl", "--formula", "G p", "--trace", "/dev/zero"]);
    expectUsageError(trace, "INVALID_INPUT", "--trace", "not a regular file");
    const train = await warden([
      "policy",
      "train",
      "--aspm",
      "mcp-tools",
      "--data",
      dir,
      "-o",
      join(dir, "o.json"),
    ]);
    expectUsageError(train, "INVALID_INPUT", "--data", "directory");
  });
});

describe("red team: serve on a port in use", { timeout: 2 * SPAWN_LIMIT_MS }, () => {
  let blocker: Server;
  let port: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((ready) => blocker.listen(0, "127.0.0.1", ready));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((closed) => blocker.close(closed));
  });

  it("exits 2 naming --port", async () => {
    const run = await warden([
      "serve",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--policy",
      "mcp-tools",
    ]);
    expectUsageError(run, "INVALID_INPUT", "--port", "already in use");
  });
});
