/**
 * Micro-benchmark of `warden hook`'s cold start — what a coding agent pays before every tool call —
 * beside its floor, `node -e 0`, measured in the same run (the sibling of cold-start.ts, which times
 * `warden check`). Each run starts the floor, then the hook from the build (`node dist/cli/main.js hook
 * --policy coding-agent`, what bin/warden.js runs from an installed package) once per event, the
 * event on stdin as Claude Code sends it: `rm -rf /` (Bash, denied), reading `<cwd>/.env` (Read, denied),
 * reading a source file (Read, allowed) and `npm test` (Bash, allowed: the call a session makes most,
 * which every shell rule has to clear). Runs are interleaved so a busy machine slows all alike;
 * the session history is kept in a temporary folder (each event its own session, so every start reads
 * and appends a history as it would in use).
 *
 * Wall time is spawn to exit, measured by this process; peak RSS is the child's maximum resident set as
 * GNU time (`/usr/bin/time -f %M`) reports it, when that program exists (the floor runs under it too).
 * Goal: median wall ≤ 2.5× the floor's for each event.
 *
 * Run standalone: `npx tsx bench/micro/hook-cold-start.ts [runs]` prints JSON. It needs the build
 * (`npm run build`); with `build: true` it builds first when the build is stale.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
// @ts-expect-error -- plain JavaScript beside the bin script, without declarations.
import { chooseEntry } from "../../bin/fresh-build.js";
import { packageRoot } from "../../src/policies/package-root.js";
import { GOAL_RATIO } from "./cold-start.js";

const OptionsSchema = z.object({
  runs: z.number().int().min(1).max(1_000).default(15),
  /** Build first when dist/ is missing or older than src/ (bench/run.ts asks for it). */
  build: z.boolean().default(false),
});
export type BenchHookColdStartOptions = z.input<typeof OptionsSchema>;

const TIME_PROGRAM = "/usr/bin/time";
const POLICY = "coding-agent";

export interface HookColdStartFigures {
  command: string;
  /** What the hook answered (permissionDecision), the same in every run. */
  answers: string[];
  wallMs: { p50: number; p90: number; min: number };
  peakRssMb?: { p50: number; max: number };
  exitCodes: number[];
}

export interface BenchHookColdStartResult {
  runs: number;
  policy: string;
  rssMethod: string;
  floor: HookColdStartFigures;
  /** One entry per event: Bash rm -rf /, Read .env, Read a source file, Bash npm test. */
  hook: Record<string, HookColdStartFigures>;
  /** Each event's median wall time over the floor's median. */
  ratio: Record<string, number>;
  goals: { ratioMax: number; met: boolean };
  node: string;
}

interface Sample {
  ms: number;
  rssKb?: number;
  code: number;
  stdout: string;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** One start of `args` with `stdin` (under GNU time when `timed`): wall time, peak RSS, exit code, stdout. */
function startOnce(options: {
  args: readonly string[];
  stdin?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timed: boolean;
}): Promise<Sample> {
  const [program, args] = options.timed
    ? [TIME_PROGRAM, ["-f", "%M", process.execPath, ...options.args]]
    : [process.execPath, [...options.args]];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      const last = stderr.trim().split("\n").at(-1) ?? "";
      const rssKb = options.timed && /^\d+$/.test(last) ? Number(last) : undefined;
      resolve({ ms, code: code ?? -1, stdout, ...(rssKb !== undefined ? { rssKb } : {}) });
    });
    child.stdin.end(options.stdin ?? "");
  });
}

function figures(options: { command: string; samples: readonly Sample[] }): HookColdStartFigures {
  const wall = options.samples.map((s) => s.ms).sort((a, b) => a - b);
  const rss = options.samples.flatMap((s) => (s.rssKb !== undefined ? [s.rssKb / 1024] : []));
  rss.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  const answers = options.samples.map((s) => {
    try {
      const answer = JSON.parse(s.stdout);
      // An allow answers no decision by default (--on-allow defer): the agent's own settings then apply.
      if (answer && typeof answer === "object" && Object.keys(answer).length === 0) return "allow (deferred)";
      return String(answer?.hookSpecificOutput?.permissionDecision ?? "none");
    } catch {
      return "none";
    }
  });
  return {
    command: options.command,
    answers: [...new Set(answers)].sort(),
    wallMs: { p50: round(quantile(wall, 0.5)), p90: round(quantile(wall, 0.9)), min: round(wall[0]!) },
    ...(rss.length === options.samples.length && rss.length > 0
      ? { peakRssMb: { p50: round(quantile(rss, 0.5)), max: round(rss.at(-1)!) } }
      : {}),
    exitCodes: [...new Set(options.samples.map((s) => s.code))].sort(),
  };
}

/**
 * The three events of the done-when, and an allowed shell command: what a Claude Code session sends
 * before each tool call.
 */
function events(workspace: string): Record<string, Record<string, unknown>> {
  const base = { hook_event_name: "PreToolUse", cwd: workspace, transcript_path: join(workspace, "t.jsonl") };
  return {
    "bash-rm-rf-root": {
      ...base,
      session_id: "bench-1",
      tool_name: "Bash",
      tool_input: { command: "rm -rf /" },
    },
    "read-dotenv": {
      ...base,
      session_id: "bench-2",
      tool_name: "Read",
      tool_input: { file_path: join(workspace, ".env") },
    },
    "read-source": {
      ...base,
      session_id: "bench-3",
      tool_name: "Read",
      tool_input: { file_path: join(workspace, "src", "index.ts") },
    },
    "bash-npm-test": {
      ...base,
      session_id: "bench-4",
      tool_name: "Bash",
      tool_input: { command: "npm test" },
    },
  };
}

export async function benchHookColdStart(
  options: BenchHookColdStartOptions = {},
): Promise<BenchHookColdStartResult> {
  const o = OptionsSchema.parse(options);
  const root = packageRoot();
  const built = join(root, "dist", "cli", "main.js");
  const paths = { built, sourceEntry: join(root, "src", "cli", "main.ts"), sourceDir: join(root, "src") };
  if (o.build && chooseEntry(paths) !== "dist") {
    execFileSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  }
  if (!existsSync(built)) throw new Error(`no build at ${built}: run npm run build`);
  const dir = mkdtempSync(join(tmpdir(), "warden-hook-cold-"));
  try {
    const workspace = join(dir, "workspace");
    mkdirSync(workspace);
    const env = { ...process.env, WARDEN_HOOK_SESSIONS: join(dir, "sessions"), WARDEN_STORE: ":memory:" };
    const hookArgs = [built, "hook", "--policy", POLICY];
    const inputs = Object.entries(events(workspace)).map(([name, e]) => [name, JSON.stringify(e)] as const);
    const timed = existsSync(TIME_PROGRAM);
    const start = (args: readonly string[], stdin?: string) =>
      startOnce({ args, cwd: root, env, timed, ...(stdin !== undefined ? { stdin } : {}) });
    // One start of each first, unmeasured: the files they read are then in the page cache for all.
    await start(["-e", "0"]);
    for (const [, stdin] of inputs) await start(hookArgs, stdin);
    const floor: Sample[] = [];
    const hook: Record<string, Sample[]> = Object.fromEntries(inputs.map(([name]) => [name, []]));
    for (let i = 0; i < o.runs; i += 1) {
      floor.push(await start(["-e", "0"]));
      for (const [name, stdin] of inputs) hook[name]!.push(await start(hookArgs, stdin));
    }
    const floorFigures = figures({ command: "node -e 0", samples: floor });
    const hookFigures = Object.fromEntries(
      inputs.map(([name]) => [
        name,
        figures({
          command: `node dist/cli/main.js hook --policy ${POLICY} < ${name}.json`,
          samples: hook[name]!,
        }),
      ]),
    );
    const ratio = Object.fromEntries(
      Object.entries(hookFigures).map(([name, f]) => [
        name,
        Math.round((f.wallMs.p50 / floorFigures.wallMs.p50) * 100) / 100,
      ]),
    );
    return {
      runs: o.runs,
      policy: POLICY,
      rssMethod: timed ? `${TIME_PROGRAM} -f %M` : "unavailable",
      floor: floorFigures,
      hook: hookFigures,
      ratio,
      goals: { ratioMax: GOAL_RATIO, met: Object.values(ratio).every((r) => r <= GOAL_RATIO) },
      node: process.version,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const runs = process.argv[2] ? Number(process.argv[2]) : undefined;
  const result = await benchHookColdStart({ ...(runs ? { runs } : {}), build: true });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
