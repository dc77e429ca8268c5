/**
 * The floor of any stdio MCP proxy, for bench/micro/mcp-proxy.ts: a process between the agent and the
 * upstream server that does nothing but relay. `node stdio-relay-floor.mjs <mode> <command> [args...]`
 * spawns the upstream on pipes and relays both ways:
 *   pipe  bytes as they come (stream.pipe): the cost of the extra process and its two pipe crossings;
 *   json  each newline-delimited message parsed and serialised again: the least a proxy that reads the
 *         messages it relays must do.
 * Plain JavaScript, run by node itself, so nothing is loaded but what relaying needs.
 */
import { spawn } from "node:child_process";

const [mode, command, ...args] = process.argv.slice(2);
if ((mode !== "pipe" && mode !== "json") || !command) {
  process.stderr.write("usage: stdio-relay-floor.mjs pipe|json <command> [args...]\n");
  process.exit(2);
}
const upstream = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
upstream.on("exit", (code) => process.exit(code ?? 0));
process.stdin.on("end", () => upstream.stdin.end());

/** Calls `onMessage` with each complete line of `stream`, parsed. */
function eachMessage(stream, onMessage) {
  let buffered = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim() !== "") onMessage(JSON.parse(line));
      newline = buffered.indexOf("\n");
    }
  });
}

if (mode === "pipe") {
  process.stdin.pipe(upstream.stdin);
  upstream.stdout.pipe(process.stdout);
} else {
  eachMessage(process.stdin, (message) => upstream.stdin.write(`${JSON.stringify(message)}\n`));
  eachMessage(upstream.stdout, (message) => process.stdout.write(`${JSON.stringify(message)}\n`));
}
