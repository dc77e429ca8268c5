/**
 * Micro-benchmark of `warden serve` against its framework's floor, in one run on one machine: a bare Hono
 * app on @hono/node-server that reads and JSON.parses the same body (the least any Hono service does per
 * request), and Warden's service answering POST /v1/check with a compiled policy (policies/mcp-tools by
 * default) for realistic subjects. Each server runs in a process of its own (./serve-target.ts; Warden
 * wired as the CLI wires it); autocannon drives both from this process with the same request mix, the
 * same connection count and the same duration, after a warm-up, in rounds that alternate which goes
 * first. The goal (issue 13): Warden's throughput >= 0.85 of the floor's and its p99 <= 25 ms at 50
 * connections. The ratio of back-to-back runs is the figure to read; absolute numbers follow the machine.
 *
 * Run standalone: `npx tsx bench/micro/serve.ts [seconds]` prints JSON.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { z } from "zod";
import { parseWith } from "../../src/core/validate.js";

const here = dirname(fileURLToPath(import.meta.url));

const OptionsSchema = z.object({
  /** Measured seconds per server per round. */
  seconds: z.number().positive().max(600).default(10),
  /** Load before the first round, per server, not measured. */
  warmupSeconds: z.number().min(0).max(600).default(3),
  connections: z.number().int().positive().max(1000).default(50),
  /** Rounds; each measures both servers, the first one first on even rounds. */
  rounds: z.number().int().positive().max(20).default(3),
  policy: z.string().min(1).default("mcp-tools"),
  /** When set, the Warden target runs with --cpu-prof and writes its profile here. */
  cpuProfDir: z.string().min(1).optional(),
  /** The audit log on the Warden target: on (default, as `warden serve` runs) or off (`--no-audit`). */
  audit: z.boolean().default(true),
  /** Ablations of the Warden target for profiling (each default on, as `warden serve` runs). */
  ablate: z
    .object({ approvals: z.boolean(), metrics: z.boolean(), requestLog: z.boolean() })
    .partial()
    .default({}),
});
export type BenchServeOptions = z.input<typeof OptionsSchema>;

export interface ServeFigures {
  requestsPerSecond: number;
  /**
   * The server process's CPU time (user + system) per answered request, in µs: on a machine shared with
   * other work, throughput follows whatever CPU the scheduler gives; this follows the work itself.
   * Undefined where /proc is not available.
   */
  cpuUsPerRequest?: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  requests: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

export interface BenchServeResult {
  name: "serve";
  /** How the Warden side is run. */
  warden: string;
  policy: string;
  connections: number;
  seconds: number;
  rounds: { first: "hono" | "warden"; hono: ServeFigures; warden: ServeFigures; ratio: number }[];
  /** Warden req/s over the floor's, per round: the median and the spread. */
  ratio: { median: number; min: number; max: number };
  /** The floor's CPU per request over Warden's, per round (the ratio a dedicated core would give): median. */
  cpuRatio?: number;
  /** Medians over the rounds. */
  hono: { requestsPerSecond: number; p99Ms: number };
  wardenMedian: { requestsPerSecond: number; p50Ms: number; p99Ms: number };
  /** Errors, timeouts and non-2xx answers over every measured run of both servers. */
  failures: number;
  /** The verdict Warden gave each body of the mix, asked once before the load. */
  verdicts: string[];
  goals: { ratioAtLeast085: boolean; p99AtMost25Ms: boolean };
  node: string;
}

const call = (name: string, args: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: args } });

/** The request mix: tool calls an MCP-using agent makes (JSON-RPC tools/call as the agent's output). */
export function subjectBodies(options: { policy: string }): string[] {
  const { policy } = options;
  const input = "Tidy the project: read the README, open an issue for the flaky test, clean /tmp/build.";
  const subjects = [
    { input, output: call("filesystem.read_file", { path: "/home/me/project/README.md" }) },
    { input, output: call("filesystem.delete_file", { path: "/home/me/project" }) },
    { input, output: call("filesystem.delete_file", { path: "/tmp/build/out.log" }) },
    {
      input,
      output: call("github.create_issue", {
        repo: "acme/app",
        title: "Flaky test in ci",
        body: "The login test fails one run in ten.",
      }),
    },
    { input, output: call("github.merge_pull_request", { repo: "acme/app", number: 42 }) },
    {
      input: "Send the weekly report.",
      output: call("email.send", {
        to: "team@example.com",
        subject: "Weekly report",
        body: "Shipped the parser rewrite; the flaky login test is tracked in acme/app#43.",
      }),
    },
    { input: "Free some disk space.", output: call("shell.run", { command: "rm -rf / --no-preserve-root" }) },
    { input: "List the build directory.", output: call("shell.run", { command: "ls -la /tmp/build" }) },
  ];
  return subjects.map((subject) => JSON.stringify({ policy, subject }));
}

interface Target {
  url: string;
  /** What the target ran: "hono", or Warden from "dist" (a fresh build) or "source" (tsx). */
  from: string;
  /** CPU seconds (user + system) the server process has used so far; undefined without /proc. */
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

/** A process's CPU seconds from /proc/<pid>/stat (utime + stime, in clock ticks of 1/100 s on Linux). */
function cpuSecondsOf(options: { pid: number | undefined }): number | undefined {
  if (options.pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${options.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / 100 : undefined;
  } catch {
    return undefined;
  }
}

async function startTarget(options: {
  kind: "hono" | "warden";
  dir: string;
  policy: string;
  cpuProfDir?: string;
  audit?: boolean;
  ablate?: { approvals?: boolean; metrics?: boolean; requestLog?: boolean };
}): Promise<Target> {
  const { kind, dir } = options;
  const prof =
    kind === "warden" && options.cpuProfDir
      ? ["--cpu-prof", "--cpu-prof-interval=100", `--cpu-prof-dir=${options.cpuProfDir}`]
      : [];
  // The server's log lines go to a file, as an operator running it in the background would send them.
  const log = openSync(join(dir, `${kind}.log`), "a");
  const child = spawn(
    process.execPath,
    [
      ...prof,
      "--import",
      "tsx",
      join(here, "serve-target.ts"),
      kind,
      JSON.stringify({ policy: options.policy, dir, audit: options.audit !== false, ...options.ablate }),
    ],
    { stdio: ["ignore", "pipe", log] },
  );
  const { url, from } = await firstLine({ child, kind, dir });
  return {
    url,
    from,
    cpuSeconds: () => cpuSecondsOf({ pid: child.pid }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

function firstLine(options: {
  child: ChildProcess;
  kind: string;
  dir: string;
}): Promise<{ url: string; from: string }> {
  const { child, kind } = options;
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once("line", (line) => resolve(JSON.parse(line) as { url: string; from: string }));
    child.once("exit", (code) =>
      reject(
        new Error(`the ${kind} target exited with ${code} before listening; see ${options.dir}/${kind}.log`),
      ),
    );
  });
}

async function load(options: {
  target: Target;
  bodies: readonly string[];
  connections: number;
  seconds: number;
}): Promise<ServeFigures> {
  const cpuBefore = options.target.cpuSeconds();
  const result = await autocannon({
    url: options.target.url,
    connections: options.connections,
    duration: options.seconds,
    timeout: 10,
    requests: options.bodies.map((body) => ({
      method: "POST",
      path: "/v1/check",
      headers: { "content-type": "application/json" },
      body,
    })),
  });
  const requests = result["2xx"] + result.non2xx;
  const cpuAfter = options.target.cpuSeconds();
  const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  return {
    requestsPerSecond: Math.round(result["2xx"] / result.duration),
    ...(cpu !== undefined && requests > 0 ? { cpuUsPerRequest: Math.round((cpu * 1e6) / requests) } : {}),
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    requests,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
  };
}

async function verdictsOf(options: { url: string; bodies: readonly string[] }): Promise<string[]> {
  const verdicts: string[] = [];
  for (const body of options.bodies) {
    const answer = await fetch(`${options.url}/v1/check`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const json = (await answer.json()) as { verdict?: string; error?: { code: string } };
    verdicts.push(answer.ok ? String(json.verdict) : `${answer.status} ${json.error?.code ?? ""}`);
  }
  return verdicts;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

export async function benchServe(input: BenchServeOptions = {}): Promise<BenchServeResult> {
  const o = parseWith({ schema: OptionsSchema, value: input, what: "serve benchmark options" });
  const dir = mkdtempSync(join(tmpdir(), "warden-bench-serve-"));
  const bodies = subjectBodies({ policy: o.policy });
  const targets: Partial<Record<"hono" | "warden", Target>> = {};
  try {
    targets.hono = await startTarget({ kind: "hono", dir, policy: o.policy });
    targets.warden = await startTarget({
      kind: "warden",
      dir,
      policy: o.policy,
      audit: o.audit,
      ablate: o.ablate,
      ...(o.cpuProfDir ? { cpuProfDir: o.cpuProfDir } : {}),
    });
    const running = { hono: targets.hono, warden: targets.warden };
    const verdicts = await verdictsOf({ url: running.warden.url, bodies });
    const common = { bodies, connections: o.connections };
    if (o.warmupSeconds > 0) {
      for (const kind of ["hono", "warden"] as const)
        await load({ ...common, target: running[kind], seconds: o.warmupSeconds });
    }
    const rounds: BenchServeResult["rounds"] = [];
    for (let round = 0; round < o.rounds; round++) {
      const order = round % 2 === 0 ? (["hono", "warden"] as const) : (["warden", "hono"] as const);
      const figures: Partial<Record<"hono" | "warden", ServeFigures>> = {};
      for (const kind of order)
        figures[kind] = await load({ ...common, target: running[kind], seconds: o.seconds });
      const { hono, warden } = figures as Record<"hono" | "warden", ServeFigures>;
      rounds.push({
        first: order[0],
        hono,
        warden,
        ratio: round3(warden.requestsPerSecond / hono.requestsPerSecond),
      });
    }
    return summarize({ rounds, verdicts, o, wardenFrom: running.warden.from });
  } finally {
    await Promise.all(Object.values(targets).map((target) => target.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

function summarize(options: {
  rounds: BenchServeResult["rounds"];
  verdicts: string[];
  o: z.output<typeof OptionsSchema>;
  wardenFrom: string;
}): BenchServeResult {
  const { rounds, o } = options;
  const ratios = rounds.map((r) => r.ratio);
  const ratio = { median: round3(median(ratios)), min: Math.min(...ratios), max: Math.max(...ratios) };
  const wardenP99 = median(rounds.map((r) => r.warden.latencyMs.p99));
  const cpuRatios = rounds.flatMap((r) =>
    r.hono.cpuUsPerRequest && r.warden.cpuUsPerRequest
      ? [r.hono.cpuUsPerRequest / r.warden.cpuUsPerRequest]
      : [],
  );
  const failures = rounds.reduce(
    (sum, r) => sum + [r.hono, r.warden].reduce((s, f) => s + f.errors + f.timeouts + f.non2xx, 0),
    0,
  );
  return {
    name: "serve",
    warden: `startServer in a process of its own, wired as \`warden serve\` (SQLite key store, request log to a file, ${o.audit ? "audit log on (the default): each answer waits for its row's commit" : "--no-audit"}), from ${options.wardenFrom === "dist" ? "the build (dist/)" : "the sources (tsx)"}`,
    policy: o.policy,
    connections: o.connections,
    seconds: o.seconds,
    rounds,
    ratio,
    ...(cpuRatios.length > 0 ? { cpuRatio: round3(median(cpuRatios)) } : {}),
    hono: {
      requestsPerSecond: median(rounds.map((r) => r.hono.requestsPerSecond)),
      p99Ms: median(rounds.map((r) => r.hono.latencyMs.p99)),
    },
    wardenMedian: {
      requestsPerSecond: median(rounds.map((r) => r.warden.requestsPerSecond)),
      p50Ms: median(rounds.map((r) => r.warden.latencyMs.p50)),
      p99Ms: wardenP99,
    },
    failures,
    verdicts: options.verdicts,
    goals: { ratioAtLeast085: ratio.median >= 0.85, p99AtMost25Ms: wardenP99 <= 25 },
    node: process.version,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const seconds = process.argv[2] ? Number(process.argv[2]) : undefined;
  const result = await benchServe(seconds !== undefined ? { seconds } : {});
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
