/**
 * Micro-benchmark of the MCP guard proxy's cost per `tools/call`, beside its floor: the same MCP client
 * (the SDK's Client) calls the same upstream server — the real @modelcontextprotocol/server-filesystem,
 * a child process on stdio — directly, and through `warden mcp proxy` (the CLI, itself on stdio in front
 * of that server, as users run it: bundled mcp-filesystem policy rooted at a temporary workspace,
 * `--real-paths`, default engine and log level). The figure judged is the added p50: proxied p50 minus
 * direct p50, measured in one run with the three connections open side by side and taking turns in
 * rounds, so load on the machine falls on all of them alike.
 *
 * Two floors run beside them: a relay process that does nothing but pass bytes between the client and the
 * upstream (./stdio-relay-floor.mjs `pipe`), and one that also parses and serialises every message (`json`),
 * the least any proxy that reads what it relays must do. Their added p50 is what the process hop itself
 * costs on this machine, which no stdio proxy can go below.
 *
 * A third path, the library (`createGuardedMcpProxy` in this process, the agent's client on an in-memory
 * transport, same upstream on stdio, warmed up as the CLI is), splits the CLI's added cost into the
 * proxy's own work and the extra stdio hop (two more pipe crossings and JSON encodings per call), which
 * no proxy process can avoid.
 *
 * `bin/warden.js` runs the build when it is fresher than src/ and the sources through tsx otherwise, so
 * run `npm run build` first to measure what users run (tsx's per-closure naming slows the checks).
 * The machine's load falls on the proxy's CPU time as well as on the latencies: on a shared machine,
 * compare runs taken at the same load.
 *
 * The judged figure is what a fresh proxy's first calls add (after `warmup` of them). The same proxy is
 * then driven `sessionCalls` calls further into its session and compared again (`later`: direct, proxied
 * and the parse-and-relay floor): what a long session feels once the proxy's code is optimised.
 *
 * Every call is `read_text_file` of a small file inside the workspace, which the policy allows; each
 * answer is checked (an allowed call that came back blocked would make the proxy look fast).
 *
 * Run standalone: `npx tsx bench/micro/mcp-proxy.ts [calls]` prints JSON.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { percentile } from "../../src/bench/metrics.js";
import type { Policy } from "../../src/core/policy.js";
import { parseWith } from "../../src/core/validate.js";
import { createGuardedMcpProxy, type GuardedMcpProxy } from "../../src/mcp/guarded-mcp-proxy.js";
import { loadPolicy } from "../../src/policies/load-policy.js";
import { packageRoot } from "../../src/policies/package-root.js";
import { createEngine, type EngineHandle } from "../../src/runtime/create-engine.js";

const OptionsSchema = z.object({
  /** Timed calls per path (default 2,000). */
  calls: z.number().int().positive().default(2_000),
  /** Untimed calls per path first, so every process has compiled its hot code (default 300). */
  warmup: z.number().int().min(0).default(300),
  /** The timed calls are taken in this many rounds, the paths taking turns (default 20). */
  rounds: z.number().int().positive().default(20),
  /**
   * Size of the file read (default 1,024 characters): every answer crosses the proxy's extra hop, and the
   * proxy keeps its start in the session's trajectory, so this sets how much each call carries.
   */
  fileBytes: z.number().int().min(0).max(1_000_000).default(1024),
  /**
   * The later-in-a-session figure: after the timed calls, this many more untimed calls go through the
   * proxy (default 3,000), then `laterCalls` calls per path (default 1,000) are timed again on the
   * direct, proxied and parse-and-relay paths. 0 later calls skips it.
   */
  sessionCalls: z.number().int().min(0).default(3_000),
  laterCalls: z.number().int().min(0).default(1_000),
});

export type BenchMcpProxyOptions = z.input<typeof OptionsSchema>;

export interface McpPathFigures {
  calls: number;
  p50Ms: number;
  p95Ms: number;
  meanMs: number;
}

export interface BenchMcpProxyResult {
  name: "mcp-proxy";
  upstream: string;
  transport: "stdio";
  tool: string;
  /** The floor: the client calling the upstream server directly. */
  direct: McpPathFigures;
  /** Through `warden mcp proxy` (a process on stdio in front of the upstream): what users run. */
  proxied: McpPathFigures;
  /** Through createGuardedMcpProxy in this process (in-memory to the client, stdio to the upstream). */
  library: McpPathFigures;
  /** Through a process that relays bytes and nothing else: the floor of any stdio proxy. */
  relayPipe: McpPathFigures;
  /** Through a process that parses and serialises each message and does nothing else. */
  relayJson: McpPathFigures;
  /** proxied p50 − direct p50: the goal is ≤ 0.3 ms. */
  addedP50Ms: number;
  addedP95Ms: number;
  /** library p50 − direct p50: the proxy's own work, without the extra process hop. */
  libraryAddedP50Ms: number;
  /** relayPipe p50 − direct p50 and relayJson p50 − direct p50: what the extra process alone adds. */
  relayPipeAddedP50Ms: number;
  relayJsonAddedP50Ms: number;
  /**
   * CPU time of the `warden mcp proxy` process per timed call (user + system, from /proc; Linux only):
   * the proxy's own work, whatever else the machine is running.
   */
  proxyCpuMsPerCall?: number;
  /**
   * The same comparison later in a long session: after `afterCalls` calls through the proxy (its code
   * optimised by then). The judged figure stays `addedP50Ms`, what a fresh proxy's first calls add.
   */
  later?: LaterFigures;
  /** Every call on every path came back with the file's text (none blocked or failed). */
  allAnswered: boolean;
  node: string;
}

export interface LaterFigures {
  /** Calls the proxy had answered before these were timed. */
  afterCalls: number;
  direct: McpPathFigures;
  proxied: McpPathFigures;
  relayJson: McpPathFigures;
  addedP50Ms: number;
  relayJsonAddedP50Ms: number;
  proxyCpuMsPerCall?: number;
}

const TOOL = "read_text_file";
/** USER_HZ: the unit of /proc/<pid>/stat CPU times, 100 on every Linux Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;
const CONTENT = "remember the milk";

/** The file read on every call: CONTENT, then ordinary lines up to about `bytes` characters. */
function fileText(bytes: number): string {
  const lines = [CONTENT];
  for (let i = 1; lines.join("\n").length < bytes; i++) lines.push(`line ${i}: the quick brown fox jumps`);
  return `${lines.join("\n")}\n`;
}

/** The filesystem server's entry point: `node SERVER <allowed directory>`. */
function serverEntry(root: string): string {
  return join(root, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");
}

/** The bundled mcp-filesystem policy with its /workspace placeholder set to `workspace`. */
function policyFor(workspace: string): Policy {
  const { policy } = loadPolicy({ ref: "mcp-filesystem" });
  return JSON.parse(JSON.stringify(policy).replaceAll("/workspace", workspace)) as Policy;
}

function environment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/** A stdio child's transport, its stderr drained (as an MCP host reads it into its log). */
function stdioTransport(options: { command: string; args: string[]; cwd: string }): StdioClientTransport {
  const transport = new StdioClientTransport({ ...options, env: environment(), stderr: "pipe" });
  transport.stderr?.on("data", () => undefined);
  return transport;
}

async function connected(transport: StdioClientTransport | InMemoryTransport): Promise<Client> {
  const client = new Client({ name: "bench-agent", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** User + system CPU milliseconds of a process so far (Linux /proc), or undefined elsewhere. */
function cpuMsOf(pid: number | null): number | undefined {
  if (pid === null) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces), counted from field 3: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

interface Path {
  name: "direct" | "proxied" | "library" | "relayPipe" | "relayJson";
  client: Client;
  times: number[];
  answered: boolean;
}

/** One call, timed; a result other than the file's text marks the path as not answered. */
async function timedCall(path: Path, args: { path: string }): Promise<number> {
  const started = performance.now();
  const result = (await path.client.callTool({ name: TOOL, arguments: args })) as CallToolResult;
  const ms = performance.now() - started;
  const first = result.content?.[0];
  if (result.isError || first?.type !== "text" || !first.text.includes(CONTENT)) path.answered = false;
  return ms;
}

/**
 * Times `calls` calls on each path in `rounds` rounds, the paths taking turns, each round starting with
 * another path so that none is always the one right after a switch. Returns the CPU milliseconds the
 * proxy process (`proxyPid`) spent over the proxied path's turns.
 */
async function timeInRounds(options: {
  paths: Path[];
  calls: number;
  rounds: number;
  args: { path: string };
  proxyPid: number | null | undefined;
}): Promise<number> {
  const { paths, calls, rounds, args } = options;
  const proxyPid = options.proxyPid ?? null;
  const perRound = Math.ceil(calls / rounds);
  let proxyCpuMs = 0;
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < paths.length; k++) {
      const path = paths[(r + k) % paths.length] as Path;
      const cpuBefore = path.name === "proxied" ? cpuMsOf(proxyPid) : undefined;
      for (let i = 0; i < perRound && path.times.length < calls; i++) {
        path.times.push(await timedCall(path, args));
      }
      const cpuAfter = cpuBefore === undefined ? undefined : cpuMsOf(proxyPid);
      if (cpuBefore !== undefined && cpuAfter !== undefined) proxyCpuMs += cpuAfter - cpuBefore;
    }
  }
  return proxyCpuMs;
}

function figures(times: number[]): McpPathFigures {
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    calls: times.length,
    p50Ms: round(percentile(times, 50)),
    p95Ms: round(percentile(times, 95)),
    meanMs: round(times.reduce((a, b) => a + b, 0) / Math.max(1, times.length)),
  };
}

export async function benchMcpProxy(options: BenchMcpProxyOptions = {}): Promise<BenchMcpProxyResult> {
  const o = parseWith({ schema: OptionsSchema, value: options, what: "mcp-proxy bench options" });
  const root = packageRoot();
  const server = serverEntry(root);
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "warden-bench-mcp-")));
  const workspace = join(dir, "workspace");
  mkdirSync(workspace);
  const file = join(workspace, "notes.txt");
  writeFileSync(file, fileText(o.fileBytes));
  const policy = policyFor(workspace);
  const policyFile = join(dir, "policy.json");
  writeFileSync(policyFile, JSON.stringify(policy));

  const clients: Client[] = [];
  let handle: EngineHandle | undefined;
  let proxy: GuardedMcpProxy | undefined;
  try {
    const upstream = { command: process.execPath, args: [server, workspace], cwd: workspace };
    const direct = await connected(stdioTransport(upstream));
    clients.push(direct);
    const cliTransport = stdioTransport({
      command: process.execPath,
      args: [
        join(root, "bin", "warden.js"),
        ...[
          "mcp",
          "proxy",
          "--policy",
          policyFile,
          "--real-paths",
          "--",
          process.execPath,
          server,
          workspace,
        ],
      ],
      cwd: workspace,
    });
    const cli = await connected(cliTransport);
    clients.push(cli);
    const relayFloor = join(root, "bench", "micro", "stdio-relay-floor.mjs");
    const relay = async (mode: "pipe" | "json") =>
      connected(
        stdioTransport({
          command: process.execPath,
          args: [relayFloor, mode, process.execPath, server, workspace],
          cwd: workspace,
        }),
      );
    const relayPipe = await relay("pipe");
    clients.push(relayPipe);
    const relayJson = await relay("json");
    clients.push(relayJson);
    handle = await createEngine({ engine: "auto" });
    proxy = await createGuardedMcpProxy({
      upstream: stdioTransport(upstream),
      policy,
      engine: handle.engine,
      realPaths: true,
      // As the CLI does by default (--warm-up 2000), so the two split the same work.
      warmUpChecks: 2_000,
    });
    const [agentSide, proxySide] = InMemoryTransport.createLinkedPair();
    await proxy.connect({ transport: proxySide });
    const library = await connected(agentSide);
    clients.push(library);

    const paths: Path[] = [
      { name: "direct", client: direct, times: [], answered: true },
      { name: "proxied", client: cli, times: [], answered: true },
      { name: "library", client: library, times: [], answered: true },
      { name: "relayPipe", client: relayPipe, times: [], answered: true },
      { name: "relayJson", client: relayJson, times: [], answered: true },
    ];
    const args = { path: file };
    for (const path of paths) for (let i = 0; i < o.warmup; i++) await timedCall(path, args);
    const timing = { calls: o.calls, rounds: o.rounds, args, proxyPid: cliTransport.pid };
    const proxyCpuMs = await timeInRounds({ ...timing, paths });
    const cpuKnown = cpuMsOf(cliTransport.pid) !== undefined;
    const round = (ms: number) => Math.round(ms * 1000) / 1000;
    let later: LaterFigures | undefined;
    const laterPaths: Path[] = [];
    if (o.laterCalls > 0) {
      // The same proxy process further into a session: more calls through it, then the comparison again.
      for (let i = 0; i < o.sessionCalls; i++) await timedCall(paths[1] as Path, args);
      const again = (name: Path["name"], client: Client): Path => ({
        name,
        client,
        times: [],
        answered: true,
      });
      laterPaths.push(again("direct", direct), again("proxied", cli), again("relayJson", relayJson));
      const laterCpuMs = await timeInRounds({ ...timing, calls: o.laterCalls, paths: laterPaths });
      const [ld, lp, lj] = laterPaths.map((path) => figures(path.times)) as [
        McpPathFigures,
        McpPathFigures,
        McpPathFigures,
      ];
      later = {
        afterCalls: o.warmup + o.calls + o.sessionCalls,
        direct: ld,
        proxied: lp,
        relayJson: lj,
        addedP50Ms: round(lp.p50Ms - ld.p50Ms),
        relayJsonAddedP50Ms: round(lj.p50Ms - ld.p50Ms),
        ...(cpuKnown ? { proxyCpuMsPerCall: round(laterCpuMs / Math.max(1, lp.calls)) } : {}),
      };
    }
    const [d, p, l, rp, rj] = paths.map((path) => figures(path.times)) as [
      McpPathFigures,
      McpPathFigures,
      McpPathFigures,
      McpPathFigures,
      McpPathFigures,
    ];
    return {
      name: "mcp-proxy",
      upstream: "@modelcontextprotocol/server-filesystem",
      transport: "stdio",
      tool: TOOL,
      direct: d,
      proxied: p,
      library: l,
      relayPipe: rp,
      relayJson: rj,
      addedP50Ms: round(p.p50Ms - d.p50Ms),
      addedP95Ms: round(p.p95Ms - d.p95Ms),
      libraryAddedP50Ms: round(l.p50Ms - d.p50Ms),
      relayPipeAddedP50Ms: round(rp.p50Ms - d.p50Ms),
      relayJsonAddedP50Ms: round(rj.p50Ms - d.p50Ms),
      ...(cpuKnown ? { proxyCpuMsPerCall: round(proxyCpuMs / Math.max(1, p.calls)) } : {}),
      ...(later ? { later } : {}),
      allAnswered: [...paths, ...laterPaths].every((path) => path.answered),
      node: process.version,
    };
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
    await proxy?.close();
    await handle?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const calls = process.argv[2] ? Number(process.argv[2]) : undefined;
  const result = await benchMcpProxy(calls ? { calls } : {});
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
