/**
 * `warden hook` as Claude Code runs it: a real process, one PreToolUse event as JSON on stdin, the
 * answer on stdout, exit 0. The mapping's own cases (hook-event.ts) are tested without a process below.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Decision } from "../../core/decision.js";
import { ToolCallSchema, toolCallSubject } from "../../core/tool-call.js";
import { HookEventSchema, historySteps, hookAnswer, hookFailureAnswer, hookToolCall } from "../hook-event.js";

const root = resolve(import.meta.dirname, "..", "..", "..");
const bin = join(root, "bin", "warden.js");
const dir = mkdtempSync(join(tmpdir(), "warden-hook-"));
const workspace = join(dir, "proj");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One hook call: the event on stdin, bounded in time. */
function hook(options: { args: string[]; stdin: string; sessions?: string }) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [bin, "hook", ...options.args], {
      cwd: root,
      env: {
        ...process.env,
        NO_COLOR: "1",
        WARDEN_STORE: ":memory:",
        WARDEN_HOOK_SESSIONS: options.sessions ?? join(dir, "sessions"),
      },
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
    child.stdin.end(options.stdin);
  });
}

const event = (tool_name: string, tool_input: Record<string, unknown>, session_id = "session-1") =>
  JSON.stringify({
    session_id,
    transcript_path: join(dir, "transcript.jsonl"),
    cwd: workspace,
    hook_event_name: "PreToolUse",
    tool_name,
    tool_input,
  });

describe("warden hook (a real process, as Claude Code runs it)", () => {
  it("answers Claude Code's contract: denies rm -rf / and reading .env, allows reading a source file", async () => {
    const cases = [
      ["Bash", { command: "rm -rf /", description: "clean up" }, "deny", "shell.no-destruction"],
      ["Read", { file_path: join(workspace, ".env") }, "deny", "code.no-secret-files"],
      ["Read", { file_path: join(workspace, "src", "index.ts") }, "allow", "code.allow-read"],
    ] as const;
    // By default an allow answers no decision, so Claude Code's own permission settings still apply.
    const deferred = await hook({
      args: ["--policy", "coding-agent"],
      stdin: event("Read", { file_path: join(workspace, "src", "index.ts") }),
    });
    expect(deferred.code, deferred.stderr).toBe(0);
    expect(JSON.parse(deferred.stdout)).toEqual({});
    for (const [tool, input, verdict, rule] of cases) {
      const r = await hook({
        args: ["--policy", "coding-agent", "--on-allow", "grant"],
        stdin: event(tool, input),
      });
      expect(r.code, r.stderr).toBe(0);
      const answer = JSON.parse(r.stdout);
      expect(answer).toEqual({
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: verdict,
          permissionDecisionReason: expect.stringContaining(rule),
        },
      });
    }
  }, 240_000);

  // The hook reads descriptor 0 with blocking reads; one a parent made non-blocking is read as a stream.
  // Node cannot hand a child such a descriptor, so python3 does (skipped where there is none).
  it.skipIf(spawnSync("python3", ["--version"]).status !== 0)(
    "reads an event that arrives late on a non-blocking stdin",
    () => {
      const script = [
        "import os, fcntl, subprocess, sys, time",
        "r, w = os.pipe()",
        "fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_NONBLOCK)",
        "child = subprocess.Popen(sys.argv[1:], stdin=r, stdout=subprocess.PIPE)",
        "os.close(r)",
        "data = sys.stdin.buffer.read()",
        "time.sleep(0.3)",
        "os.write(w, data[:40])",
        "time.sleep(0.2)",
        "os.write(w, data[40:])",
        "os.close(w)",
        "sys.stdout.buffer.write(child.communicate(timeout=60)[0])",
      ].join("\n");
      const r = spawnSync(
        "python3",
        ["-c", script, process.execPath, bin, "hook", "--policy", "coding-agent", "--format", "generic"],
        {
          input: event("Bash", { command: "rm -rf /" }, "session-late"),
          encoding: "utf8",
          timeout: 90_000,
          env: { ...process.env, WARDEN_STORE: ":memory:", WARDEN_HOOK_SESSIONS: join(dir, "sessions") },
        },
      );
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ decision: "deny", rules: ["shell.no-destruction"] });
    },
    120_000,
  );

  it("answers the generic contract, and refuses (exit 0) what it cannot read", async () => {
    const generic = await hook({
      args: ["--policy", "coding-agent", "--format", "generic", "--sessions", "off"],
      stdin: event("Bash", { command: "git push --force" }),
    });
    expect(generic.code, generic.stderr).toBe(0);
    expect(JSON.parse(generic.stdout)).toEqual({
      decision: "ask",
      reason: expect.stringContaining("shell.irreversible"),
      rules: ["shell.irreversible"],
    });
    const broken = await hook({ args: ["--policy", "coding-agent"], stdin: '{"session_id": "s", "tool_na' });
    expect(broken.code).toBe(0);
    expect(JSON.parse(broken.stdout).hookSpecificOutput).toMatchObject({
      permissionDecision: "deny",
      permissionDecisionReason: expect.stringContaining("could not check"),
    });
  }, 240_000);

  it("keeps the session's calls, so a temporal rule holds across invocations", async () => {
    // After fetching a web page (untrusted text in the context), no git push in that session.
    const policy = join(dir, "no-push-after-fetch.json");
    writeFileSync(
      policy,
      JSON.stringify({
        kind: "warden.policy",
        schemaVersion: 1,
        name: "no-push-after-fetch",
        version: "1.0.0",
        agent: "tools",
        specification: "A coding agent.",
        requests: "No git push after fetching a web page.",
        rules: {
          toolRules: [
            { id: "allow.web", tool: "WebFetch", effect: "allow", message: "web is fine" },
            { id: "allow.bash", tool: "Bash", effect: "allow", message: "shell is fine" },
          ],
          toolDefault: "deny",
          predicates: [
            {
              name: "fetches_web",
              kind: "action",
              description: "fetches a web page",
              binding: { kind: "condition", when: { field: "action", op: "eq", value: "WebFetch" } },
            },
            {
              name: "pushes",
              kind: "action",
              description: "pushes to a remote",
              binding: {
                kind: "condition",
                when: {
                  all: [
                    { field: "action", op: "eq", value: "Bash" },
                    { field: "argsText", op: "contains", value: "git push" },
                  ],
                },
              },
            },
          ],
          temporalRules: [
            {
              id: "t.no-push-after-fetch",
              formula: "G(pushes -> !O(fetches_web))",
              description: "No push after fetching a web page",
              message: "No git push after a web page was read in this session",
            },
          ],
        },
      }),
    );
    const sessions = join(dir, "temporal-sessions");
    const call = async (tool: string, input: Record<string, unknown>, session: string) =>
      JSON.parse(
        (
          await hook({
            args: ["--policy", policy, "--on-allow", "grant"],
            stdin: event(tool, input, session),
            sessions,
          })
        ).stdout,
      ).hookSpecificOutput.permissionDecision;
    expect(await call("Bash", { command: "git push" }, "clean")).toBe("allow");
    expect(await call("WebFetch", { url: "https://example.com", prompt: "read" }, "tainted")).toBe("allow");
    expect(await call("Bash", { command: "git push" }, "tainted")).toBe("deny");
    expect(readdirSync(sessions).length).toBe(2);
  }, 240_000);
});

describe("hook event mapping", () => {
  const decision = (fields: Partial<Decision>): Decision =>
    ({
      allowed: false,
      label: 1,
      verdict: "deny",
      violations: [],
      explanation: "",
      engine: "compiled",
      policy: "p",
      ...fields,
    }) as Decision;

  it("never answers allow for a decision that is not allowed", () => {
    for (const verdict of ["deny", "ask", "allow"] as const) {
      const answer = hookAnswer({
        decision: decision({ allowed: false, verdict }),
        tool: "Bash",
        format: "generic",
      });
      expect((answer as { decision: string }).decision).not.toBe("allow");
    }
    const failure = hookFailureAnswer({ error: new Error("boom"), format: "claude-code" });
    expect(failure).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
  });

  it("carries the call, cwd and session; refused calls are not history", () => {
    const event = HookEventSchema.parse({
      session_id: "s",
      cwd: "/w",
      tool_name: "Read",
      tool_input: { file_path: "a" },
    });
    const history = historySteps({
      events: [
        { at: "t", tool: "WebFetch", args: { url: "u" }, verdict: "allow" },
        { at: "t", tool: "Bash", args: { command: "rm -rf /" }, verdict: "deny" },
        { at: "t", tool: "Bash", args: { command: "git push -f" }, verdict: "ask" },
      ],
    });
    const call = ToolCallSchema.parse(hookToolCall({ event, history }));
    expect(call).toMatchObject({ name: "Read", arguments: { file_path: "a" } });
    const subject = toolCallSubject({
      tool: call.name,
      args: call.arguments,
      ...(call.context ? { context: call.context } : {}),
      ...(call.history ? { history: call.history } : {}),
    });
    expect(subject.context).toMatchObject({
      cwd: "/w",
      sessionId: "s",
      toolCalls: [{ name: "Read", arguments: { file_path: "a" } }],
    });
    expect(subject.trajectory?.map((s) => s.action)).toEqual(["WebFetch", "Bash", "Read"]);
  });

  it("answers only PreToolUse events, and names the field that is wrong", () => {
    expect(() =>
      HookEventSchema.parse({ session_id: "s", tool_name: "Read", hook_event_name: "PostToolUse" }),
    ).toThrow();
    expect(HookEventSchema.safeParse({ session_id: "s" }).error?.issues[0]?.path).toEqual(["tool_name"]);
  });
});
