/**
 * V8 tuning for the CLI's long-running faces that sit on the path of every call an agent makes (the MCP
 * guard proxy). V8 optimises a function only after it has run for a while: on Node 20 (V8 11) after it
 * has gone through its interrupt budget (67,584 bytes of bytecode) three times, on Node 22 and later
 * (V8 12 and 13) after 400 calls for Maglev and 3,000 for TurboFan. Until then the proxy's per-call path
 * (message parsing, the compiled check, the relay) runs in the interpreter. Measured on the bench's proxy
 * (bench/micro/mcp-proxy.ts: `warden mcp proxy --real-paths` in front of server-filesystem), the proxy's
 * CPU per call falls from about 1.1 ms to 0.35 ms over the first 3,000 calls — most of an agent's
 * session. With the thresholds about eight times lower the code is optimised after a few hundred calls,
 * and the first two thousand cost about half as much (Node 20 and 22 alike).
 *
 * Only the CLI's own processes are tuned, never a process that imports Warden as a library: the flags
 * apply to the whole isolate. V8 reads them when a function's feedback is set up, so this runs before
 * the command builds anything. The flags differ by V8 version, and V8 writes an error to stderr for a
 * flag it does not know, so each is set only on the versions that have it (checked on Node 20, 22, 24).
 */
import { setFlagsFromString } from "node:v8";

/** The V8 flags for a version: V8 11 counts bytecode budgets, V8 12 and later count invocations. */
export function longRunningFlags(options: { v8Version: string }): string[] {
  const major = Number.parseInt(options.v8Version, 10);
  if (major === 11) return ["--interrupt-budget=8192"];
  if (major >= 12) return ["--invocation-count-for-maglev=50", "--invocation-count-for-turbofan=400"];
  return [];
}

/** Tunes V8 for a process that serves many small calls for a long time (see the header). */
export function tuneForLongRunning(): void {
  for (const flag of longRunningFlags({ v8Version: process.versions.v8 })) setFlagsFromString(flag);
}
