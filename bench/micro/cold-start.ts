/**
 * Micro-benchmark of `warden check`'s cold start — what a pre-tool hook pays on every action — beside
 * its floor, `node -e 0`, measured in the same run. Three commands, each started `runs` times, their
 * runs interleaved (floor, installed, checkout, floor, …) so a busy machine slows all three alike:
 * - floor: `node -e 0`, the cost of starting Node at all;
 * - installed: `node dist/cli/main.js check …`, what bin/warden.js runs from an installed package;
 * - checkout: `node bin/warden.js check …` in this repository with a fresh build (bin/fresh-build.js
 *   walks src/ first to see that it is fresh).
 * The check is a compiled policy (the bundled mcp-tools policy) on one tool call of the demo records.
 * Wall time is measured by this process around each child (spawn to exit); peak RSS is the child's
 * maximum resident set as GNU time (`/usr/bin/time -f "%U %S %M"`) reports it, when that program exists
 * (the floor runs under it too, so its cost is in both); without it RSS is reported as unavailable.
 * GNU time's user + system CPU time is reported beside the wall time (`cpuMs`, `cpuRatio`): on a busy
 * machine a child waits for a core, which inflates its wall time but not its CPU time, so the CPU ratio
 * tells a slow start from a busy machine. The goal is on wall time only.
 * Goal: median wall ≤ 2.5× the floor's and peak RSS ≤ 80 MB.
 *
 * Run standalone: `npx tsx bench/micro/cold-start.ts [runs]` prints JSON. It needs the build
 * (`npm run build`; `npm ci` builds it); with `build: true` it builds first when the build is stale.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
// @ts-expect-error -- plain JavaScript beside the bin script, without declarations.
import { chooseEntry } from "../../bin/fresh-build.js";
import { packageRoot } from "../../src/policies/package-root.js";

const OptionsSchema = z.object({
  runs: z.number().int().min(1).max(1_000).default(15),
  /** Build first when dist/ is missing or older than src/ (bench/run.ts asks for it). */
  build: z.boolean().default(false),
  /** The demo record (examples/demo/records.jsonl) whose subject is checked. */
  record: z.string().default("tool-create-issue"),
});
export type BenchColdStartOptions = z.input<typeof OptionsSchema>;

export const GOAL_RATIO = 2.5;
export const GOAL_PEAK_RSS_MB = 80;
const TIME_PROGRAM = "/usr/bin/time";

export interface ColdStartFigures {
  command: string;
  /** Wall time of each start, spawn to exit, in ms: median, 90th percentile, fastest. */
  wallMs: { p50: number; p90: number; min: number };
  /** Peak resident set in MB (median and largest over the runs); absent when it cannot be read. */
  peakRssMb?: { p50: number; max: number };
  /** User + system CPU time of each start in ms (median, fastest); absent when it cannot be read. */
  cpuMs?: { p50: number; min: number };
  /** Exit codes seen (a check that allows exits 0). */
  exitCodes: number[];
}

export interface BenchColdStartResult {
  runs: number;
  policy: string;
  record: string;
  /** How peak RSS was read: GNU time, or "unavailable". */
  rssMethod: string;
  floor: ColdStartFigures;
  installed: ColdStartFigures;
  checkout: ColdStartFigures;
  /** What bin/warden.js ran in the checkout runs ("dist" when the build was fresh). */
  checkoutEntry: string;
  /** Median wall time over the floor's median. */
  ratio: { installed: number; checkout: number };
  /** Median CPU time over the floor's median (informational; absent without GNU time). */
  cpuRatio?: { installed: number; checkout: number };
  goals: {
    ratioMax: number;
    peakRssMbMax: number;
    installedMet: boolean;
    checkoutMet: boolean;
  };
  node: string;
}

interface Sample {
  ms: number;
  rssKb?: number;
  cpuMs?: number;
  code: number;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** One start of `args` (under GNU time when `timed`), its wall time from spawn to exit and peak RSS. */
function startOnce(options: { args: readonly string[]; cwd: string; timed: boolean }): Promise<Sample> {
  const [program, args] = options.timed
    ? [TIME_PROGRAM, ["-f", "%U %S %M", process.execPath, ...options.args]]
    : [process.execPath, [...options.args]];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(program, args, { cwd: options.cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      // GNU time writes its figures as the last line (after any "exited with non-zero status" note):
      // user and system seconds, then the peak resident set in KB.
      const last = stderr.trim().split("\n").at(-1) ?? "";
      const figures = options.timed ? /^(\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+)$/.exec(last) : null;
      resolve({
        ms,
        code: code ?? -1,
        ...(figures
          ? { rssKb: Number(figures[3]), cpuMs: (Number(figures[1]) + Number(figures[2])) * 1000 }
          : {}),
      });
    });
  });
}

function figures(options: { command: string; samples: readonly Sample[] }): ColdStartFigures {
  const wall = options.samples.map((s) => s.ms).sort((a, b) => a - b);
  const rss = options.samples.flatMap((s) => (s.rssKb !== undefined ? [s.rssKb / 1024] : []));
  rss.sort((a, b) => a - b);
  const cpu = options.samples.flatMap((s) => (s.cpuMs !== undefined ? [s.cpuMs] : []));
  cpu.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    command: options.command,
    wallMs: { p50: round(quantile(wall, 0.5)), p90: round(quantile(wall, 0.9)), min: round(wall[0]!) },
    ...(rss.length === options.samples.length && rss.length > 0
      ? { peakRssMb: { p50: round(quantile(rss, 0.5)), max: round(rss.at(-1)!) } }
      : {}),
    ...(cpu.length === options.samples.length && cpu.length > 0
      ? { cpuMs: { p50: round(quantile(cpu, 0.5)), min: round(cpu[0]!) } }
      : {}),
    exitCodes: [...new Set(options.samples.map((s) => s.code))].sort(),
  };
}

/** The subject of one demo record, written to a file for `--subject`. */
function writeSubject(options: { root: string; record: string; dir: string }): string {
  const lines = readFileSync(join(options.root, "examples", "demo", "records.jsonl"), "utf8").split("\n");
  const found = lines
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { id: string; subject: unknown })
    .find((r) => r.id === options.record);
  if (!found) throw new Error(`no demo record ${options.record} in examples/demo/records.jsonl`);
  const path = join(options.dir, "subject.json");
  writeFileSync(path, JSON.stringify(found.subject));
  return path;
}

export async function benchColdStart(options: BenchColdStartOptions = {}): Promise<BenchColdStartResult> {
  const o = OptionsSchema.parse(options);
  const root = packageRoot();
  const built = join(root, "dist", "cli", "main.js");
  const bin = join(root, "bin", "warden.js");
  const paths = { built, sourceEntry: join(root, "src", "cli", "main.ts"), sourceDir: join(root, "src") };
  if (o.build && chooseEntry(paths) !== "dist") {
    execFileSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  }
  if (!existsSync(built)) throw new Error(`no build at ${built}: run npm run build`);
  const checkoutEntry = chooseEntry(paths) as string;
  const dir = mkdtempSync(join(tmpdir(), "warden-cold-"));
  try {
    const subject = writeSubject({ root, record: o.record, dir });
    const check = ["check", "--policy", "mcp-tools", "--subject", subject];
    const commands = {
      floor: ["-e", "0"],
      installed: [built, ...check],
      checkout: [bin, ...check],
    } as const;
    const timed = existsSync(TIME_PROGRAM);
    const samples: Record<keyof typeof commands, Sample[]> = { floor: [], installed: [], checkout: [] };
    // One start of each first, unmeasured: the files they read are then in the page cache for all.
    for (const args of Object.values(commands)) await startOnce({ args, cwd: root, timed });
    for (let i = 0; i < o.runs; i += 1) {
      for (const [name, args] of Object.entries(commands) as [keyof typeof commands, readonly string[]][]) {
        samples[name].push(await startOnce({ args, cwd: root, timed }));
      }
    }
    const show = (args: readonly string[]) =>
      ["node", ...args.map((a) => a.replace(`${root}/`, "").replace(subject, "<subject.json>"))].join(" ");
    const floor = figures({ command: show(commands.floor), samples: samples.floor });
    const installed = figures({ command: show(commands.installed), samples: samples.installed });
    const checkout = figures({ command: show(commands.checkout), samples: samples.checkout });
    const ratio = (f: ColdStartFigures) => Math.round((f.wallMs.p50 / floor.wallMs.p50) * 100) / 100;
    const cpuRatio = (f: ColdStartFigures) =>
      f.cpuMs && floor.cpuMs ? Math.round((f.cpuMs.p50 / floor.cpuMs.p50) * 100) / 100 : undefined;
    const cpuRatios = { installed: cpuRatio(installed), checkout: cpuRatio(checkout) };
    const met = (f: ColdStartFigures) =>
      ratio(f) <= GOAL_RATIO && f.peakRssMb !== undefined && f.peakRssMb.max <= GOAL_PEAK_RSS_MB;
    return {
      runs: o.runs,
      policy: "mcp-tools",
      record: o.record,
      rssMethod: timed ? `${TIME_PROGRAM} -f %M` : "unavailable",
      floor,
      installed,
      checkout,
      checkoutEntry,
      ratio: { installed: ratio(installed), checkout: ratio(checkout) },
      ...(cpuRatios.installed !== undefined && cpuRatios.checkout !== undefined
        ? { cpuRatio: { installed: cpuRatios.installed, checkout: cpuRatios.checkout } }
        : {}),
      goals: {
        ratioMax: GOAL_RATIO,
        peakRssMbMax: GOAL_PEAK_RSS_MB,
        installedMet: met(installed),
        checkoutMet: met(checkout) && checkoutEntry === "dist",
      },
      node: process.version,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const runs = process.argv[2] ? Number(process.argv[2]) : undefined;
  const result = await benchColdStart({ ...(runs ? { runs } : {}), build: true });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
