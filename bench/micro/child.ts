/**
 * Runs one micro-benchmark in its own process and prints its result as JSON on stdout. `npm run bench`
 * starts one of these per micro-benchmark so that each gets a fresh heap and JIT: the retrieval
 * benchmark's 10,000 demonstrations, kept alive in the suite's own process, would otherwise make every
 * later benchmark's garbage collection slower and its figures worse than a dedicated process sees.
 *
 * Usage: `tsx bench/micro/child.ts <name> [options-json]`.
 */
import { benchCedar } from "./cedar.js";
import { benchColdStart } from "./cold-start.js";
import { benchCompiledChecks } from "./compiled-checks.js";
import { benchHookColdStart } from "./hook-cold-start.js";
import { benchLtl } from "./ltl.js";
import { benchMcpProxy } from "./mcp-proxy.js";
import { benchRetrieval } from "./retrieval.js";
import { benchSandboxThroughput } from "./sandbox-throughput.js";
import { benchServe } from "./serve.js";
import { benchShield } from "./shield.js";

// Each runner validates its own options (they come from bench/run.ts, not from users).
const runners: Record<string, (options: never) => Promise<unknown>> = {
  retrieval: benchRetrieval,
  "sandbox-throughput": benchSandboxThroughput,
  "compiled-checks": benchCompiledChecks,
  ltl: benchLtl,
  shield: benchShield,
  "mcp-proxy": benchMcpProxy,
  cedar: benchCedar,
  serve: benchServe,
  "cold-start": benchColdStart,
  "hook-cold-start": benchHookColdStart,
};

const [name, json] = process.argv.slice(2);
const runner = name === undefined ? undefined : runners[name];
if (!runner) {
  process.stderr.write(
    `unknown micro-benchmark "${name ?? ""}"; one of ${Object.keys(runners).join(", ")}\n`,
  );
  process.exit(2);
}
const result = await runner((json ? JSON.parse(json) : {}) as never);
process.stdout.write(`${JSON.stringify(result)}\n`);
