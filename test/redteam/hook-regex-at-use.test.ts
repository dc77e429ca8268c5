/**
 * Red team, `warden hook`'s regexes parsed at first use: the hook skips the RE2 parse of a policy's
 * `matches` regexes at load (a one-shot check; see core/safe-regex.ts, withRegexesParsedAtUse), so a
 * pattern RE2 refuses is met while the rule runs. That must never loosen the policy: a deny or ask rule
 * whose regex cannot run holds (under `not` too, where reading the error as false would flip it), an
 * allow rule whose regex cannot run does not apply, and the answer is given on exit 0 as the contract
 * says. Each case runs the real hook process, as Claude Code does.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..", "..");
const bin = join(root, "bin", "warden.js");
const dir = mkdtempSync(join(tmpdir(), "warden-hook-regex-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Lookahead: JavaScript accepts it, RE2 refuses it. */
const INVALID = "(?=x)rm";

function writePolicy(name: string, rules: unknown): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  writeFileSync(
    join(path, "policy.json"),
    JSON.stringify({ name, specification: "a coding agent", requests: "guard it", rules }),
  );
  return path;
}

function hook(options: { policy: string; tool: string; input: Record<string, unknown> }) {
  const stdin = JSON.stringify({
    session_id: "regex-at-use",
    hook_event_name: "PreToolUse",
    cwd: join(dir, "proj"),
    tool_name: options.tool,
    tool_input: options.input,
  });
  return new Promise<{ code: number | null; decision: string; reason: string }>((done) => {
    const child = spawn(
      process.execPath,
      [bin, "hook", "--format", "generic", "--policy", options.policy, "--sessions", "off"],
      { cwd: root, env: { ...process.env, NO_COLOR: "1", WARDEN_STORE: ":memory:" } },
    );
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      const answer = JSON.parse(stdout || "{}") as { decision?: string; reason?: string };
      done({ code, decision: answer.decision ?? "none", reason: answer.reason ?? "" });
    });
    child.stdin.end(stdin);
  });
}

const matches = (value: string) => ({ field: "args.command", op: "matches", value });

describe("warden hook: a regex RE2 refuses, met at first use, never turns a deny into an allow", () => {
  it("a deny rule whose regex cannot run holds, plainly and under not, whatever the command", async () => {
    const policy = writePolicy("deny-invalid", {
      toolRules: [
        { id: "deny-plain", tool: "Bash", when: matches(INVALID), effect: "deny", message: "no" },
        { id: "deny-not", tool: "Bash", when: { not: matches(INVALID) }, effect: "deny", message: "no" },
        { id: "allow-bash", tool: "Bash", effect: "allow", message: "ok" },
      ],
      toolDefault: "allow",
    });
    for (const command of ["rm -rf /", "ls", "xrm"]) {
      const r = await hook({ policy, tool: "Bash", input: { command } });
      expect(r.code).toBe(0);
      expect(r.decision, `${command}: ${r.reason}`).toBe("deny");
    }
  }, 240_000);

  it("an ask rule whose regex cannot run still asks; an allow rule whose regex cannot run does not apply", async () => {
    const policy = writePolicy("ask-allow-invalid", {
      toolRules: [
        { id: "ask-plain", tool: "Bash", when: matches(INVALID), effect: "ask", message: "confirm" },
        {
          id: "allow-read",
          tool: "Read",
          when: { not: { ...matches(INVALID), field: "args.file_path" } },
          effect: "allow",
          message: "ok",
        },
      ],
      toolDefault: "deny",
    });
    const asked = await hook({ policy, tool: "Bash", input: { command: "ls" } });
    expect(asked.decision, asked.reason).toBe("ask");
    const read = await hook({ policy, tool: "Read", input: { file_path: "src/index.ts" } });
    expect(read.code).toBe(0);
    expect(read.decision, read.reason).toBe("deny");
  }, 240_000);
});
