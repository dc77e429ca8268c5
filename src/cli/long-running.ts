/**
 * V8 tuning for the CLI's long-running faces that sit on the path of every call an agent makes (the MCP
 * guard proxy). V8 optimises a function only after it has run through its interrupt budget a few times
 * (67,584 bytes of bytecode, three times over, on Node 20); until then the proxy's per-call path (message
 * parsing, the compiled check, the relay) runs in the interpreter. Measured on the bench's proxy
 * (bench/micro/mcp-proxy.ts: `warden mcp proxy --real-paths` in front of server-filesystem), that takes
 * about 3,000 calls, and the proxy's CPU per call falls from about 1.1 ms to 0.35 ms over them — most of
 * an agent's session. With a budget of 8 KiB the code is optimised after a few hundred calls, and the
 * first thousand cost about half as much.
 *
 * Only the CLI's own processes are tuned, never a process that imports Warden as a library: the flag
 * applies to the whole isolate. V8 reads the budget when a function's feedback is set up, so this runs
 * before the command builds anything. A flag a future V8 does not know is reported by V8 on stderr and
 * changes nothing else.
 */
import { setFlagsFromString } from "node:v8";

/** Bytes of bytecode a function runs before V8 considers optimising it (Node 20's default: 67,584). */
const INTERRUPT_BUDGET_BYTES = 8 * 1024;

/** Tunes V8 for a process that serves many small calls for a long time (see the header). */
export function tuneForLongRunning(): void {
  setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET_BYTES}`);
}
