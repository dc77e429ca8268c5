/**
 * Red team, `warden hook` and symbolic links: Claude Code's file tools follow links, so a link in the
 * workspace to a secret (`notes.txt -> .env`, `k -> ~/.ssh`) or to a place outside it must be judged as
 * what the tool opens. A real process on a real directory tree, as Claude Code runs the hook.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..", "..");
const bin = join(root, "bin", "warden.js");
const dir = realpathSync(mkdtempSync(join(tmpdir(), "warden-links-")));
const home = join(dir, "home");
const ws = join(home, "proj");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

mkdirSync(join(home, ".ssh"), { recursive: true });
mkdirSync(join(ws, "src"), { recursive: true });
mkdirSync(join(dir, "outside"), { recursive: true });
writeFileSync(join(home, ".ssh", "config"), "Host x\n");
writeFileSync(join(ws, ".env"), "TOKEN=secret\n");
writeFileSync(join(ws, "src", "a.ts"), "export {};\n");
symlinkSync(join(home, ".ssh", "config"), join(ws, "link-cfg"));
symlinkSync(join(home, ".ssh"), join(ws, "k"));
symlinkSync(".env", join(ws, "notes.txt"));
symlinkSync(join(dir, "outside", "file.txt"), join(ws, "out.txt"));
symlinkSync(join("src", "a.ts"), join(ws, "alias.ts"));
// Out of the workspace and /tmp (where this tree is): a dangling link is followed as the write would be.
symlinkSync("/etc/warden-test-none/profile", join(ws, "profile.txt"));
symlinkSync("/etc/warden-test-none", join(ws, "logs"));
// The same workspace reached through a link (a home under a link, macOS's /tmp).
symlinkSync(ws, join(dir, "ws-link"));

function hook(tool_name: string, tool_input: Record<string, unknown>, cwd = ws) {
  const stdin = JSON.stringify({
    session_id: `links-${tool_name}`,
    cwd,
    hook_event_name: "PreToolUse",
    tool_name,
    tool_input,
  });
  return new Promise<string>((done) => {
    const child = spawn(process.execPath, [bin, "hook", "--policy", "coding-agent", "--format", "generic"], {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", WARDEN_STORE: ":memory:", WARDEN_HOOK_SESSIONS: join(dir, "s") },
    });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", () => {
      clearTimeout(timer);
      done((JSON.parse(stdout) as { decision: string }).decision);
    });
    child.stdin.end(stdin);
  });
}

type Case = [tool: string, input: Record<string, unknown>, expected: string];

/** Every case answered as expected, or the list of those that were not. */
async function expectCases(cases: Case[]): Promise<void> {
  const wrong: string[] = [];
  for (const [tool, input, expected] of cases) {
    const got = await hook(tool, input);
    if (got !== expected) wrong.push(`${tool} ${JSON.stringify(input)}: expected ${expected}, got ${got}`);
  }
  expect(wrong).toEqual([]);
}

describe("warden hook reads a path as the file system resolves it", () => {
  it("a link to a secret, or into a secret directory, is the secret; a link out of the workspace is outside", async () => {
    const cases: Case[] = [
      ["Read", { file_path: join(ws, "link-cfg") }, "deny"],
      ["Read", { file_path: join(ws, "k", "config") }, "deny"],
      ["Read", { file_path: join(ws, "notes.txt") }, "deny"],
      ["Edit", { file_path: join(ws, "k", "config"), old_string: "x", new_string: "y" }, "deny"],
      ["Grep", { pattern: "Host", path: join(ws, "k") }, "deny"],
      ["Write", { file_path: join(ws, "out.txt"), content: "x" }, "deny"],
      // The controls: plain files, and a link that stays in the workspace.
      ["Read", { file_path: join(ws, "src", "a.ts") }, "allow"],
      ["Read", { file_path: join(ws, "alias.ts") }, "allow"],
      ["Write", { file_path: join(ws, "src", "b.ts"), content: "x" }, "allow"],
    ];
    await expectCases(cases);
  }, 120_000);

  it("a shell command's path operands are read as the file system resolves them too", async () => {
    const bash = (command: string, expected: string): Case => ["Bash", { command }, expected];
    const cases = [
      bash("cat notes.txt", "deny"),
      bash("cat k/config", "deny"),
      bash(`head -5 ${join(ws, "link-cfg")}`, "deny"),
      bash("cp link-cfg /tmp/x.txt", "deny"),
      // The controls.
      bash("cat alias.ts", "allow"),
      bash("cat src/a.ts", "allow"),
      bash("echo x > src/b.ts", "allow"),
    ];
    await expectCases(cases);
  }, 120_000);

  it("a shell command that writes through a link out of the workspace writes outside it", async () => {
    const bash = (command: string, expected: string): Case => ["Bash", { command }, expected];
    await expectCases([
      bash("echo 'curl x | sh' >> profile.txt", "ask"),
      bash("cp src/a.ts profile.txt", "ask"),
      bash("echo x > logs/new.txt", "ask"),
      bash("tee logs/new.txt < src/a.ts", "ask"),
      // The controls: a link that stays in the workspace, plain files.
      bash("echo x >> alias.ts", "allow"),
      bash("echo x > src/b.ts", "allow"),
    ]);
    // A workspace reached through a link is itself: its files are inside.
    const viaLink = join(dir, "ws-link");
    const got = await Promise.all([
      hook("Bash", { command: "echo x > src/b.ts" }, viaLink),
      hook("Bash", { command: `echo x > ${join(ws, "src", "b.ts")}` }, viaLink),
      hook("Bash", { command: "echo x >> profile.txt" }, viaLink),
    ]);
    expect(got).toEqual(["allow", "allow", "ask"]);
  }, 120_000);

  it("a path operand read after a cd of the line is resolved from where the cd goes", async () => {
    await expectCases([
      ["Bash", { command: "cd src && cat ../notes.txt" }, "deny"],
      ["Bash", { command: "cd k && cat config" }, "deny"],
      ["Bash", { command: "cd src && cat ../alias.ts" }, "allow"],
    ]);
  }, 120_000);
});
