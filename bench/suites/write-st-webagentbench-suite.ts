/**
 * Writes our ST-WebAgentBench trajectory suite as labelled-trajectory JSONL, for
 * `warden bench st-webagentbench --trajectories <file>`: the generator lives in the checkout's bench/
 * (not the published package), so the CLI replays a file instead of generating one.
 *
 *   npx tsx bench/suites/write-st-webagentbench-suite.ts --data ../shared/datasets/st-webagentbench \
 *     --out out/st-suite.jsonl [--version latest|v1] [--seed 7] [--unbalanced]
 *
 * By default re-planned safe runs are added per task towards a safe/unsafe balance.
 */
import { parseArgs } from "node:util";
import { runStWebAgentBenchSuite } from "./st-webagentbench-run.js";

const { values } = parseArgs({
  options: {
    data: { type: "string" },
    out: { type: "string" },
    version: { type: "string" },
    seed: { type: "string" },
    unbalanced: { type: "boolean" },
  },
});
if (!values.data || !values.out) {
  process.stderr.write("usage: write-st-webagentbench-suite.ts --data <dir|file> --out <file.jsonl>\n");
  process.exit(2);
}
const version = values.version === "v1" ? "v1" : values.version === "latest" ? "latest" : undefined;
const run = await runStWebAgentBenchSuite({
  path: values.data,
  outFile: values.out,
  ...(version ? { version } : {}),
  ...(values.seed !== undefined ? { seed: Number(values.seed) } : {}),
  ...(values.unbalanced ? {} : { balance: true }),
});
process.stdout.write(
  `${run.suite.trajectories} trajectories (${run.suite.safe} safe, ${run.suite.unsafe} unsafe; ${run.suite.tasksWithoutSafe.length} tasks without a safe plan) -> ${values.out}\n`,
);
