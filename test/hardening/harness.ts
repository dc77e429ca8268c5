/**
 * Black-box harness for the hardening corpus: spawns the real `warden` CLI and `warden serve` as child
 * processes and talks to the server over raw loopback sockets, so every header (Host, Origin, odd
 * methods, overlong URLs) goes on the wire exactly as written and a stalled or crashed server is seen as
 * such. Everything is bounded: each spawn and each request has a deadline after which it is killed or
 * abandoned and reported as unanswered. Nothing leaves 127.0.0.1.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { join, resolve } from "node:path";

export const repoRoot = resolve(import.meta.dirname, "..", "..");
const bin = join(repoRoot, "bin", "warden.js");

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The deadline passed and the process was killed. */
  timedOut: boolean;
  /** `killWhen` matched the output and the process was stopped on purpose. */
  stoppedOnMatch: boolean;
  /** The process grew past `maxRssMb` and was killed. */
  memoryExceeded: boolean;
  /** Largest resident size seen, in MB (Linux only; 0 elsewhere). */
  peakRssMb: number;
}

export interface CliOptions {
  timeoutMs?: number;
  cwd?: string;
  env?: Record<string, string>;
  /** Text for stdin; stdin is closed afterwards (closed at once when absent). */
  stdin?: string;
  /** A file opened as stdin instead (e.g. /dev/zero). */
  stdinPath?: string;
  /** Kill the process when its resident size passes this many MB (checked every 100 ms on Linux). */
  maxRssMb?: number;
  /** Stop the process as soon as stdout or stderr matches (e.g. a server that started listening). */
  killWhen?: RegExp;
  /** Most characters kept of each stream; the rest is dropped (bounds memory on runaway output). */
  maxOutputChars?: number;
}

/** Runs `warden <args>` to completion or to its deadline. */
export function runWarden(args: string[], options: CliOptions = {}): Promise<CliRun> {
  const maxChars = options.maxOutputChars ?? 200_000;
  return new Promise((done) => {
    const stdinFd = options.stdinPath !== undefined ? openSync(options.stdinPath, "r") : undefined;
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, NO_COLOR: "1", WARDEN_STORE: ":memory:", ...options.env },
      stdio: [stdinFd ?? "pipe", "pipe", "pipe"],
    });
    if (stdinFd !== undefined) closeSync(stdinFd);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let stoppedOnMatch = false;
    let memoryExceeded = false;
    let peakRssMb = 0;
    const check = () => {
      if (options.killWhen && !stoppedOnMatch && options.killWhen.test(stdout + stderr)) {
        stoppedOnMatch = true;
        child.kill("SIGKILL");
      }
    };
    child.stdout?.on("data", (d) => {
      if (stdout.length < maxChars) stdout += d;
      check();
    });
    child.stderr?.on("data", (d) => {
      if (stderr.length < maxChars) stderr += d;
      check();
    });
    if (child.stdin) {
      child.stdin.on("error", () => {});
      if (options.stdin !== undefined) child.stdin.end(options.stdin);
      else child.stdin.end();
    }
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? 60_000);
    const watch = setInterval(() => {
      const mb = rssMb(child.pid);
      peakRssMb = Math.max(peakRssMb, mb);
      if (options.maxRssMb !== undefined && mb > options.maxRssMb && !memoryExceeded) {
        memoryExceeded = true;
        child.kill("SIGKILL");
      }
    }, 100);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      clearInterval(watch);
      done({ code, signal, stdout, stderr, timedOut, stoppedOnMatch, memoryExceeded, peakRssMb });
    });
  });
}

/** Resident size of a process in MB from /proc (0 where /proc is not there). */
function rssMb(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

export interface WardenServer {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `warden serve --port 0 <args>` and waits for it to say where it listens. */
export function startWardenServer(
  args: string[],
  options: { startTimeoutMs?: number } = {},
): Promise<WardenServer> {
  return new Promise((resolveServer, reject) => {
    const child = spawn(
      process.execPath,
      [bin, "serve", "--port", "0", "--host", "127.0.0.1", "--log-level", "warn", ...args],
      {
        cwd: repoRoot,
        env: { ...process.env, NO_COLOR: "1", WARDEN_STORE: ":memory:" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let err = "";
    let out = "";
    let started = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`warden serve did not start in time: ${err.slice(-2000)}`));
    }, options.startTimeoutMs ?? 120_000);
    const onData = () => {
      if (started) return;
      const m = /serving (http:\/\/127\.0\.0\.1:(\d+))/.exec(err + out);
      if (!m) return;
      started = true;
      clearTimeout(timer);
      const stop = () =>
        new Promise<void>((stopped) => {
          if (child.exitCode !== null || child.signalCode !== null) return stopped();
          child.once("close", () => stopped());
          child.kill("SIGKILL");
        });
      resolveServer({ url: m[1] as string, port: Number(m[2]), child, stderr: () => err, stop });
    };
    child.stderr.on("data", (d) => {
      if (err.length < 1_000_000) err += d;
      onData();
    });
    child.stdout.on("data", (d) => {
      if (out.length < 100_000) out += d;
      onData();
    });
    child.on("close", (code) => {
      if (!started) {
        clearTimeout(timer);
        reject(new Error(`warden serve exited (${code}) before listening: ${err.slice(-2000)}`));
      }
    });
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  ms: number;
}

export interface RawResult {
  response?: RawResponse;
  /** Why no response came back: "timeout", "closed" (connection ended with no status line), a socket error. */
  failure?: string;
  ms: number;
}

export interface RawRequest {
  port: number;
  method?: string;
  path?: string;
  /** Header lines to send, in order; Host is added (127.0.0.1:port) unless one is given. */
  headers?: Array<[string, string]>;
  body?: string | Buffer;
  /** Adds Content-Length for the body unless a header already says it (default true). */
  contentLength?: boolean;
  timeoutMs?: number;
}

/** Sends exactly these bytes and reads until the server closes the connection or the deadline. */
export function sendRaw(options: {
  port: number;
  bytes: Buffer | string;
  timeoutMs?: number;
}): Promise<RawResult> {
  const started = performance.now();
  return new Promise((done) => {
    const socket = connect({ host: "127.0.0.1", port: options.port });
    const chunks: Buffer[] = [];
    let finished = false;
    const finish = (failure?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      const ms = performance.now() - started;
      const raw = Buffer.concat(chunks);
      const response = parseResponse(raw, ms);
      if (response) done({ response, ms });
      else done({ failure: failure ?? (raw.length === 0 ? "closed" : "unparseable response"), ms });
    };
    const timer = setTimeout(() => {
      // A complete response may already be here on a kept-alive connection.
      if (parseResponse(Buffer.concat(chunks), 0)) finish();
      else finish("timeout");
    }, options.timeoutMs ?? 30_000);
    socket.on("data", (d) => {
      chunks.push(d);
      const whole = Buffer.concat(chunks);
      if (isComplete(whole)) finish();
    });
    socket.on("error", (e) => finish((e as NodeJS.ErrnoException).code ?? e.message));
    socket.on("close", () => finish());
    socket.write(options.bytes, () => {});
  });
}

/** Builds one HTTP/1.1 request (Connection: close) and sends it with {@link sendRaw}. */
export function request(options: RawRequest): Promise<RawResult> {
  const method = options.method ?? "GET";
  const path = options.path ?? "/";
  const headers = [...(options.headers ?? [])];
  const has = (name: string) => headers.some(([h]) => h.toLowerCase() === name);
  if (!has("host")) headers.unshift(["Host", `127.0.0.1:${options.port}`]);
  const body =
    options.body === undefined
      ? undefined
      : Buffer.isBuffer(options.body)
        ? options.body
        : Buffer.from(options.body, "utf8");
  if (body && options.contentLength !== false && !has("content-length") && !has("transfer-encoding")) {
    headers.push(["Content-Length", String(body.length)]);
  }
  if (!has("connection")) headers.push(["Connection", "close"]);
  const head = `${method} ${path} HTTP/1.1\r\n${headers.map(([h, v]) => `${h}: ${v}\r\n`).join("")}\r\n`;
  const bytes = body ? Buffer.concat([Buffer.from(head, "utf8"), body]) : Buffer.from(head, "utf8");
  return sendRaw({
    port: options.port,
    bytes,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}

/** JSON POST to a path with loopback Host and the right content type. */
export function postJson(options: {
  port: number;
  path?: string;
  body: string;
  timeoutMs?: number;
  headers?: Array<[string, string]>;
}): Promise<RawResult> {
  return request({
    port: options.port,
    method: "POST",
    path: options.path ?? "/v1/check",
    headers: [["Content-Type", "application/json"], ...(options.headers ?? [])],
    body: options.body,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}

function splitHead(raw: Buffer): { head: string; rest: Buffer } | undefined {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  return { head: raw.subarray(0, end).toString("latin1"), rest: raw.subarray(end + 4) };
}

function headersOf(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.split("\r\n").slice(1)) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return headers;
}

function isComplete(raw: Buffer): boolean {
  const parts = splitHead(raw);
  if (!parts) return false;
  const headers = headersOf(parts.head);
  if (headers["content-length"] !== undefined) {
    return parts.rest.length >= Number(headers["content-length"]);
  }
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) return dechunk(parts.rest) !== undefined;
  return false;
}

/** Decodes a chunked body; undefined while the last chunk has not arrived. */
function dechunk(rest: Buffer): Buffer | undefined {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = rest.indexOf("\r\n", at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(rest.subarray(at, lineEnd).toString("latin1"), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(out);
    const start = lineEnd + 2;
    if (rest.length < start + size + 2) return undefined;
    out.push(rest.subarray(start, start + size));
    at = start + size + 2;
  }
}

function parseResponse(raw: Buffer, ms: number): RawResponse | undefined {
  const parts = splitHead(raw);
  if (!parts) return undefined;
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(parts.head);
  if (!m) return undefined;
  const headers = headersOf(parts.head);
  let body = parts.rest;
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) body = dechunk(parts.rest) ?? parts.rest;
  else if (headers["content-length"] !== undefined) {
    body = parts.rest.subarray(0, Number(headers["content-length"]));
  }
  return { status: Number(m[1]), headers, body: body.toString("utf8"), ms };
}

// ---- What every answer must look like --------------------------------------------------------------

const STACK_FRAME = /^\s+at .+(:\d+:\d+\)?|\(native\)|\(<anonymous>\))$/m;

/** Problems if a text carries a stack trace, a source path of this checkout or an internal frame. */
export function leaks(text: string): string[] {
  const found: string[] = [];
  if (STACK_FRAME.test(text)) found.push("a stack-trace frame");
  if (text.includes(repoRoot)) found.push(`the checkout's path (${repoRoot})`);
  if (/node_modules[\\/]/.test(text)) found.push("a node_modules path");
  if (/node:internal/.test(text)) found.push("a node:internal frame");
  if (/\bsrc\/[\w/.-]+\.ts\b/.test(text)) found.push("a source file path");
  return found;
}

/** Problems if a body is not `{ error: { code: string, message: string } }`. */
export function errorShapeProblems(body: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [`error body is not JSON: ${JSON.stringify(body.slice(0, 200))}`];
  }
  const error = (parsed as { error?: unknown } | null)?.error as
    | { code?: unknown; message?: unknown }
    | undefined;
  if (!error || typeof error !== "object") return ["error body has no `error` object"];
  const problems: string[] = [];
  if (typeof error.code !== "string" || error.code.length === 0) problems.push("error.code is not a string");
  if (typeof error.message !== "string" || error.message.length === 0) {
    problems.push("error.message is not a string");
  }
  if (typeof error.message === "string" && /internal error/i.test(error.message)) {
    problems.push(`error.message says "internal error": ${error.message.slice(0, 200)}`);
  }
  return problems;
}

/** Problems if a body is not a Decision (allowed, verdict, violations, engine, consistent). */
export function decisionProblems(body: string): string[] {
  let d: Record<string, unknown>;
  try {
    d = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return [`200 body is not JSON: ${JSON.stringify(body.slice(0, 200))}`];
  }
  const problems: string[] = [];
  if (typeof d.allowed !== "boolean") problems.push("decision.allowed is not a boolean");
  if (!["allow", "deny", "ask"].includes(d.verdict as string))
    problems.push("decision.verdict is not allow|deny|ask");
  if (!Array.isArray(d.violations)) problems.push("decision.violations is not an array");
  if (typeof d.engine !== "string") problems.push("decision.engine is not a string");
  if (typeof d.allowed === "boolean" && d.allowed !== (d.verdict === "allow")) {
    problems.push(`decision.allowed (${d.allowed}) disagrees with verdict (${String(d.verdict)})`);
  }
  return problems;
}

/** Parses a 200 Decision body (undefined when it is not JSON). */
export function decisionOf(body: string): { allowed?: unknown; verdict?: unknown } | undefined {
  try {
    return JSON.parse(body) as { allowed?: unknown; verdict?: unknown };
  } catch {
    return undefined;
  }
}

/** A tool call as the agent output the bundled tool policies read. */
export function toolCallOutput(name: string, args: unknown): string {
  return JSON.stringify({ method: "tools/call", params: { name, arguments: args } });
}

/** Nested objects `{ key: { key: … leaf } }` `depth` deep, written as text (no recursion). */
export function deepObjectText(depth: number, key: string, leaf: string): string {
  return `{"${key}":`.repeat(depth) + leaf + "}".repeat(depth);
}

/** Nested arrays `depth` deep as text. */
export function deepArrayText(depth: number, leaf = "1"): string {
  return "[".repeat(depth) + leaf + "]".repeat(depth);
}
