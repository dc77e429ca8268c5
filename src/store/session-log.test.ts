import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fileSessionLog, MAX_EVENTS, MAX_STRING, type SessionEvent, sessionFile } from "./session-log.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "warden-sessions-"));
  dirs.push(d);
  return join(d, "sessions");
}
const event = (tool: string, verdict: SessionEvent["verdict"] = "allow"): SessionEvent => ({
  at: "2026-11-26T00:00:00.000Z",
  tool,
  args: { n: tool },
  verdict,
});

describe("file session log", () => {
  it("keeps each session's events apart, oldest first, in private files", () => {
    const dir = tempDir();
    const log = fileSessionLog({ dir });
    expect(log.read({ sessionId: "a" })).toEqual([]);
    log.append({ sessionId: "a", event: event("Read") });
    log.append({ sessionId: "b", event: event("Bash", "deny") });
    log.append({ sessionId: "a", event: event("Write", "ask") });
    expect(log.read({ sessionId: "a" }).map((e) => [e.tool, e.verdict])).toEqual([
      ["Read", "allow"],
      ["Write", "ask"],
    ]);
    expect(log.read({ sessionId: "b" }).map((e) => e.tool)).toEqual(["Bash"]);
    const file = sessionFile({ dir, sessionId: "a" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    // any id is a safe file name: hashed, never a path
    log.append({ sessionId: "../../etc/passwd", event: event("Read") });
    expect(readdirSync(dir).every((n) => /^[0-9a-f]{40}\.jsonl$/.test(n))).toBe(true);
  });

  it("is bounded: long strings cut, old events trimmed, torn lines skipped", () => {
    const dir = tempDir();
    const log = fileSessionLog({ dir });
    log.append({
      sessionId: "s",
      event: { ...event("Write"), args: { content: "x".repeat(MAX_STRING * 3) } },
    });
    const [written] = log.read({ sessionId: "s" });
    expect((written!.args.content as string).length).toBeLessThan(MAX_STRING + 10);
    appendFileSync(sessionFile({ dir, sessionId: "s" }), '{"tool": "torn", "ar');
    appendFileSync(sessionFile({ dir, sessionId: "s" }), "\nnot json\n");
    for (let i = 0; i < MAX_EVENTS * 2; i += 1)
      log.append({ sessionId: "s", event: { ...event(`t${i}`), args: { pad: "y".repeat(1000) } } });
    const events = log.read({ sessionId: "s" });
    expect(events.length).toBe(MAX_EVENTS);
    expect(events.at(-1)!.tool).toBe(`t${MAX_EVENTS * 2 - 1}`);
    expect(statSync(sessionFile({ dir, sessionId: "s" })).size).toBeLessThan(512 * 1024);
  });

  it("removes sessions untouched for a week when a new one starts", () => {
    const dir = tempDir();
    const log = fileSessionLog({ dir });
    log.append({ sessionId: "old", event: event("Read") });
    const old = sessionFile({ dir, sessionId: "old" });
    const weekAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    utimesSync(old, weekAgo, weekAgo);
    log.append({ sessionId: "new", event: event("Read") });
    expect(log.read({ sessionId: "old" })).toEqual([]);
    expect(log.read({ sessionId: "new" }).length).toBe(1);
  });

  it("a folder it cannot use is a STORE_ERROR naming it", () => {
    const base = tempDir();
    writeFileSync(`${base}-file`, "x");
    const log = fileSessionLog({ dir: join(`${base}-file`, "sessions") });
    expect(() => log.append({ sessionId: "a", event: event("Read") })).toThrow(
      expect.objectContaining({ code: "STORE_ERROR" }),
    );
  });
});
