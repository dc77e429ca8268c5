/**
 * The hook's session history: each tool call `warden hook` decided, kept by session id, so the next
 * call of the same session is checked with the earlier ones as its trajectory (temporal rules hold
 * across invocations, each of which is a fresh process).
 *
 * Why files and not the Store (SQLite/PostgreSQL): a hook runs before every tool call, and its cold
 * start is bounded at 2.5× `node -e 0`. Loading better-sqlite3 (a native addon) with Kysely and opening
 * a WAL database costs about half of `node -e 0` again on its own (measured with alternating runs), which
 * a compiled check cannot afford; an append to one small file per session costs a system call. So each
 * session is one JSON Lines file under the state directory (`<dir>/<sha256(session id)>.jsonl`, mode
 * 0600 in a 0700 folder: commands can hold private text), appended with O_APPEND (concurrent hook calls
 * of one session each add whole lines).
 *
 * Bounded: a session keeps its last MAX_EVENTS events (the file is rewritten, through a rename, when it
 * grows past TRIM_BYTES), string arguments are cut to MAX_STRING characters, a file read is capped at
 * MAX_FILE_BYTES (read from its end), and session files untouched for MAX_AGE_MS are removed when a new
 * session starts. A line that does not parse is skipped: a torn line loses one event, never the check.
 */
import { createHash } from "node:crypto";
import {
  appendFileSync,
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { toWardenError } from "../core/errors.js";

export const MAX_EVENTS = 200;
export const MAX_STRING = 4096;
export const MAX_FILE_BYTES = 1024 * 1024;
/** A session file past this size is trimmed to its last MAX_EVENTS events. */
export const TRIM_BYTES = 256 * 1024;
export const MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
const MAX_PRUNE_SCAN = 2000;

export type SessionVerdict = "allow" | "deny" | "ask";

/** One decided tool call of a session. */
export interface SessionEvent {
  /** ISO time of the decision. */
  at: string;
  tool: string;
  args: Record<string, unknown>;
  verdict: SessionVerdict;
}

export interface SessionLog {
  /** The session's events, oldest first (at most MAX_EVENTS). */
  read(options: { sessionId: string }): SessionEvent[];
  /** Adds one decided event to the session (and trims or prunes when due). */
  append(options: { sessionId: string; event: SessionEvent }): void;
}

/** The file of one session: a hash of its id, so any id is a safe file name and ids are not disclosed. */
export function sessionFile(options: { dir: string; sessionId: string }): string {
  const digest = createHash("sha256").update(options.sessionId).digest("hex").slice(0, 40);
  return join(options.dir, `${digest}.jsonl`);
}

/** Long strings cut (with a marker), so one huge Write cannot grow a session without bound. */
function bounded(value: unknown, depth = 0): unknown {
  if (typeof value === "string")
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…[cut]` : value;
  if (value === null || typeof value !== "object" || depth > 16) return depth > 16 ? "[deep]" : value;
  if (Array.isArray(value)) return value.slice(0, 1000).map((v) => bounded(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value).slice(0, 1000)) out[k] = bounded(v, depth + 1);
  return out;
}

function parseLines(text: string): SessionEvent[] {
  const events: SessionEvent[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const e = JSON.parse(line) as SessionEvent;
      const ok =
        typeof e?.tool === "string" &&
        typeof e.at === "string" &&
        (e.verdict === "allow" || e.verdict === "deny" || e.verdict === "ask") &&
        typeof e.args === "object" &&
        e.args !== null &&
        !Array.isArray(e.args);
      if (ok) events.push({ at: e.at, tool: e.tool, args: e.args, verdict: e.verdict });
    } catch {
      // a torn or foreign line: skipped
    }
  }
  return events;
}

/** The last MAX_FILE_BYTES of a file (a partial first line is dropped by the parser). */
function readTail(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, MAX_FILE_BYTES);
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, size - length + read);
      if (n === 0) break;
      read += n;
    }
    const text = buffer.subarray(0, read).toString("utf8");
    return size > length ? text.slice(text.indexOf("\n") + 1) : text;
  } finally {
    closeSync(fd);
  }
}

/** Removes session files untouched for MAX_AGE_MS (a bounded scan; errors are ignored: best effort). */
function pruneOld(dir: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir).slice(0, MAX_PRUNE_SCAN);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue;
    const path = join(dir, name);
    try {
      if (now - statSync(path).mtimeMs > MAX_AGE_MS) rmSync(path, { force: true });
    } catch {
      // removed by another process meanwhile
    }
  }
}

/**
 * The session log in `dir` (created on the first append). Read and append errors are STORE_ERROR
 * WardenErrors naming the folder: the hook fails closed on them, since a history it cannot read or
 * keep would let a temporal rule miss an earlier step.
 */
export function fileSessionLog(options: { dir: string; now?: () => number }): SessionLog {
  const { dir } = options;
  const now = options.now ?? Date.now;
  const fail = (what: string, error: unknown) =>
    toWardenError({ error, code: "STORE_ERROR", message: `session history in ${dir}: cannot ${what}` });
  return {
    read({ sessionId }) {
      try {
        const text = readTail(sessionFile({ dir, sessionId }));
        return text === undefined ? [] : parseLines(text).slice(-MAX_EVENTS);
      } catch (error) {
        throw fail("read it", error);
      }
    },
    append({ sessionId, event }) {
      const path = sessionFile({ dir, sessionId });
      const line = `${JSON.stringify({ ...event, args: bounded(event.args) })}\n`;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        let fresh = false;
        try {
          statSync(path);
        } catch {
          fresh = true;
        }
        appendFileSync(path, line, { mode: 0o600 });
        if (fresh) pruneOld(dir, now());
        else trim(path);
      } catch (error) {
        throw fail("append to it", error);
      }
    },
  };
}

/** Keeps the last MAX_EVENTS events once the file is past TRIM_BYTES (rewritten through a rename). */
function trim(path: string): void {
  if (statSync(path).size <= TRIM_BYTES) return;
  const text = readTail(path);
  if (text === undefined) return;
  const kept = parseLines(text).slice(-MAX_EVENTS);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, kept.map((e) => `${JSON.stringify(e)}\n`).join(""), { mode: 0o600 });
  renameSync(temp, path);
}
