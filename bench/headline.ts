/**
 * The readable part of bench/results/latest.md: accuracy on each dataset beside the paper's anchor, and
 * each performance goal of the project with the measured figure and whether it is met. Reads the raw
 * results that bench/run.ts collected; a benchmark that did not run (no data, or an error) shows as such
 * instead of a number.
 */
import { type WeightsAblation, weightsAblationMarkdown } from "../src/bench/weights-ablation.js";

type Results = Record<string, unknown>;

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The number at `path` inside `value`, or undefined. */
function num(value: unknown, ...path: string[]): number | undefined {
  let at: unknown = value;
  for (const key of path) at = record(at)?.[key];
  return typeof at === "number" && Number.isFinite(at) ? at : undefined;
}

function fmt(value: number | undefined, digits = 1): string {
  return value === undefined ? "—" : value.toFixed(digits).replace(/\.0+$/, "");
}

function why(value: unknown): string {
  const error = record(value)?.error;
  return typeof error === "string" ? `did not run: ${error}` : "did not run";
}

export function headlineMarkdown(options: { results: Results; quick?: boolean }): string[] {
  const { results } = options;
  // A quick run is a smoke test of the suite: too short and small to judge a goal by.
  const met = (ok: boolean | undefined): string =>
    ok === undefined ? "—" : options.quick ? "quick run: not judged" : ok ? "met" : "**not met**";
  const lines: string[] = [];

  lines.push("## Accuracy (deterministic engines, no model)", "");
  lines.push("| dataset | engine | n | LPA | LPP | LPR | CCA | FRA | ms/check p50 | ms/check p95 |");
  lines.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const [name, label] of [
    ["dataset:eicu-ac:compiled", "EICU-AC (real EHRAgent logs)"],
    ["dataset:eicu-ac:auto", "EICU-AC (real EHRAgent logs)"],
    ["dataset:mind2web-sc(our fixture):compiled", "Mind2Web-SC format, our own fixture"],
    ["dataset:mind2web-sc(our fixture):auto", "Mind2Web-SC format, our own fixture"],
  ] as const) {
    const r = results[name];
    const engine = name.split(":").at(-1);
    if (num(r, "n") === undefined) {
      lines.push(`| ${label} | ${engine} | ${why(r)} | | | | | | | |`);
      continue;
    }
    const m = (key: string) => fmt(num(r, "metrics", key));
    lines.push(
      `| ${label} | ${engine} | ${num(r, "n")} | ${m("LPA")} | ${m("LPP")} | ${m("LPR")} | ${m("CCA")} | ${m("FRA")} | ${fmt(num(r, "cost", "msPerCheck", "p50"), 3)} | ${fmt(num(r, "cost", "msPerCheck", "p95"), 3)} |`,
    );
  }
  lines.push(
    "| EICU-AC, GuardAgent with GPT-4 (paper, for reference) | guardagent | 316 | 98.7 | 100 | 97.5 | 97.5 | 100 | 45.4 s (mean) | |",
  );
  lines.push("");

  const st = results["dataset:st-webagentbench(our trajectory suite):shield"];
  if (num(st, "n") !== undefined) {
    lines.push(
      `ST-WebAgentBench policies on our own generated trajectory suite, labelled as the benchmark's evaluators would score each run (our reimplementation of their semantics; the benchmark ships no trajectories, so no published figure is comparable): n ${num(st, "n")}, ${fmt(num(st, "metrics", "unsafeShare"))}% unsafe; ACC ${fmt(num(st, "metrics", "ACC"))} against ${fmt(num(st, "metrics", "alwaysUnsafeACC"))} for always answering "unsafe"; balanced accuracy ${fmt(num(st, "metrics", "balancedACC"))} (50 for any constant answer); FPR ${fmt(num(st, "metrics", "FPR"))}, ARR ${fmt(num(st, "metrics", "ARR"))}; ${fmt(num(st, "metrics", "tasksWithoutSafe"), 0)} tasks have no safe trajectory; ${fmt(num(st, "metrics", "msPerStepP50"), 3)} ms per step (p50).`,
      "",
    );
  } else lines.push(`ST-WebAgentBench trajectory suite: ${why(st)}.`, "");

  lines.push(...weightsSection({ results }));
  lines.push(...qaRiskSection({ results }));

  lines.push("## Performance goals", "");
  lines.push("| goal | measured | status |", "| --- | --- | --- |");

  const retrieval = results["micro:retrieval"];
  if (num(retrieval, "p50Ms") !== undefined) {
    const p50 = num(retrieval, "p50Ms") as number;
    const exact = record(retrieval)?.identicalToExhaustive === true;
    lines.push(
      `| top-k retrieval over ${num(retrieval, "n")} demonstrations: p50 < 20 ms, same top-k as the exhaustive scan | p50 ${fmt(p50, 2)} ms, p95 ${fmt(num(retrieval, "p95Ms"), 2)} ms; identical to exhaustive: ${exact ? "yes" : "no"} (exhaustive ${fmt(num(retrieval, "exhaustiveMs"), 0)} ms) | ${met(p50 < 20 && exact)} |`,
    );
  } else lines.push(`| top-k retrieval p50 < 20 ms | ${why(retrieval)} | — |`);

  const sandbox = results["micro:sandbox-throughput"];
  const runs = num(sandbox, "runsPerSecondPerCore");
  lines.push(
    runs === undefined
      ? `| sandbox >= 1,000 runs/s per core | ${why(sandbox)} | — |`
      : `| sandbox >= 1,000 runs/s per core | ${fmt(runs, 0)} runs/s (p50 ${fmt(num(sandbox, "p50Ms"), 3)} ms) | ${met(runs >= 1000)} |`,
  );

  const compiled = results["micro:compiled-checks"];
  const cps = num(compiled, "checksPerSecondPerCore");
  const identical = record(compiled)?.identicalDecisions === true;
  lines.push(
    cps === undefined
      ? `| compiled engine >= 50,000 checks/s per core on EICU-AC | ${why(compiled)} | — |`
      : `| compiled engine >= 50,000 checks/s per core on EICU-AC (mean over the run, nothing cached per record) | ${fmt(cps, 0)} checks/s (best pass ${fmt(num(compiled, "bestPassUsPerCheck"), 2)} µs/check, latency p50 ${fmt(num(compiled, "usPerCheck", "p50"), 2)} µs); decisions identical: ${identical ? "yes" : "no"} | ${met(cps >= 50_000 && identical)} |`,
  );

  const shield = results["micro:shield"];
  const circuits = record(shield)?.circuits;
  const at50 = Array.isArray(circuits) ? circuits.find((c) => num(c, "rules") === 50) : undefined;
  const goals = record(record(shield)?.goals);
  lines.push(
    at50 === undefined
      ? `| shield verification p50 < 2 ms per step at 50 rules, flat over 1,000 steps | ${why(shield)} | — |`
      : `| shield verification p50 < 2 ms per step at 50 rules, flat over ${num(shield, "steps")} steps | p50 ${fmt(num(at50, "stepP50Ms"), 3)} ms; last/first hundred steps ${fmt(num(at50, "flatRatio"), 2)} | ${met(goals?.p50Under2msAt50Rules === true && goals?.flat === true)} |`,
  );

  const ltl = results["micro:ltl"];
  const pairs = num(ltl, "agreementPairs");
  const failures = num(ltl, "agreementFailures");
  lines.push(
    pairs === undefined
      ? `| LTLf agrees with the reference evaluator on >= 100,000 random pairs | ${why(ltl)} | — |`
      : `| LTLf agrees with the reference evaluator on >= 100,000 random pairs | ${pairs} pairs, ${failures} disagreements | ${met(pairs >= 100_000 && failures === 0)} |`,
  );

  const proxy = results["micro:mcp-proxy"];
  const added = num(proxy, "addedP50Ms");
  lines.push(
    added === undefined
      ? `| MCP proxy adds <= 0.3 ms per tools/call at p50 over calling the upstream directly | ${why(proxy)} | — |`
      : `| MCP proxy (\`warden mcp proxy\`, stdio) adds <= 0.3 ms per tools/call at p50 over calling the upstream (server-filesystem, stdio) directly, same client, same run | +${fmt(added, 3)} ms (proxied p50 ${fmt(num(proxy, "proxied", "p50Ms"), 3)} ms vs direct ${fmt(num(proxy, "direct", "p50Ms"), 3)} ms; in-process library +${fmt(num(proxy, "libraryAddedP50Ms"), 3)} ms; floors: a relay process passing bytes +${fmt(num(proxy, "relayPipeAddedP50Ms"), 3)} ms, parsing each message +${fmt(num(proxy, "relayJsonAddedP50Ms"), 3)} ms; proxy CPU ${fmt(num(proxy, "proxyCpuMsPerCall"), 3)} ms per call)${laterInSession(record(proxy)?.later)}; every call answered: ${record(proxy)?.allAnswered === true ? "yes" : "no"} | ${met(added <= 0.3 && record(proxy)?.allAnswered === true)} |`,
  );

  const cedar = results["micro:cedar"];
  const us = record(record(cedar)?.usPerDecision);
  lines.push(
    us === undefined
      ? `| side by side (not a goal): compiled engine vs Cedar on the mcp-tools policy | ${why(cedar)} | — |`
      : `| side by side (not a goal): compiled engine vs Cedar ${String(record(cedar)?.cedarVersion ?? "")} (wasm) on the mcp-tools tool rules written in Cedar, ${num(cedar, "requests")} calls | Warden ${fmt(num(us, "wardenGuard"), 2)} µs per decision through createGuard (engine alone ${fmt(num(us, "wardenEngine"), 2)} µs); Cedar ${fmt(num(us, "cedarPreparsed"), 2)} µs preparsed (${fmt(num(us, "cedarParsedEachCall"), 1)} µs parsing the policy text each call); Cedar/Warden ${fmt(num(cedar, "cedarOverWardenGuard"), 2)}; same decisions: ${record(cedar)?.sameDecisions === true ? "yes" : "**no**"} | — |`,
  );

  lines.push(
    serveRow({ serve: results["micro:serve"], label: "`warden serve` (audit log on, the default)", met }),
  );
  lines.push(serveRow({ serve: results["micro:serve:no-audit"], label: "`warden serve --no-audit`", met }));
  lines.push(...coldStartRows({ results, met }));
  lines.push("");
  return lines;
}

/** The proxy's later-in-a-session comparison (bench/micro/mcp-proxy.ts `later`), when it ran. */
function laterInSession(later: unknown): string {
  const added = num(later, "addedP50Ms");
  if (added === undefined) return "";
  return `; later in the session, after ${num(later, "afterCalls")} calls: +${fmt(added, 3)} ms (parse-and-relay floor +${fmt(num(later, "relayJsonAddedP50Ms"), 3)} ms, proxy CPU ${fmt(num(later, "proxyCpuMsPerCall"), 3)} ms per call)`;
}

/** `warden check` on a compiled policy beside `node -e 0` (bench/micro/cold-start.ts), same run. */
function coldStartRows(options: { results: Results; met: (ok: boolean | undefined) => string }): string[] {
  const cold = options.results["micro:cold-start"];
  const goal =
    "`warden check` on a compiled policy (mcp-tools) within 2.5× `node -e 0` wall time, peak RSS <= 80 MB";
  const floor = num(cold, "floor", "wallMs", "p50");
  if (floor === undefined) return [`| ${goal} | ${why(cold)} | — |`];
  const goals = record(record(cold)?.goals);
  const row = (face: "installed" | "checkout", label: string, ok: unknown) => {
    const rss = num(cold, face, "peakRssMb", "max");
    return `| ${goal}: ${label} | median ${fmt(num(cold, face, "wallMs", "p50"), 0)} ms vs \`node -e 0\` ${fmt(floor, 0)} ms (${fmt(num(cold, "ratio", face), 2)}×), p90 ${fmt(num(cold, face, "wallMs", "p90"), 0)} ms; peak RSS ${rss === undefined ? "unavailable" : `${fmt(rss, 0)} MB`} (${num(cold, "runs")} runs each) | ${options.met(ok === true)} |`;
  };
  return [
    row("installed", "from the build (installed package)", goals?.installedMet),
    row("checkout", "from a checkout (bin/warden.js, fresh build)", goals?.checkoutMet),
  ];
}

/** Trained vs all-1 shield weights on the held-out split of the trajectory suite (bench/run.ts). */
function weightsSection(options: { results: Results }): string[] {
  const r = options.results["ablation:st-webagentbench(our trajectory suite):shield weights"];
  const head = "## Weights that matter: trained vs all-1 shield weights (held-out split)";
  if (num(r, "split", "holdout", "n") === undefined) return [head, "", `${why(r)}.`, ""];
  const { suite, ...ablation } = r as WeightsAblation & { suite: string };
  return [head, "", ...weightsAblationMarkdown({ ablation, suite })];
}

/** GuardAgent App. N's per-level recall on our pseudo-rule records, with a scripted model (bench/run.ts). */
function qaRiskSection(options: { results: Results }): string[] {
  const r = options.results["dataset:qa(our pseudo-rule records, scripted model):guardagent"];
  const head = "## Q&A risk levels (GuardAgent App. N): recall by level, scripted model";
  const recall = record(record(r)?.riskRecall);
  if (!recall) return [head, "", `${why(r)}.`, ""];
  const levels = ["none", "low", "medium", "high", "very high"].filter((l) => record(recall[l]));
  const at = (l: string, k: string) => num(recall[l], k);
  return [
    head,
    "",
    `Our ${num(r, "n")} pseudo-rule records (bench/fixtures/qa, not CSQA data); the guardrail program is written by a scripted model from the rules as our labeller reads them, so this checks the pipeline (sandbox, risk from the count of violated rules, per-level recall), not what a model achieves. LPA ${fmt(num(r, "metrics", "LPA"))}, CCA ${fmt(num(r, "metrics", "CCA"))}, ${fmt(num(r, "cost", "llmCallsPerCheck"), 0)} scripted calls per check.`,
    "",
    `| | ${levels.join(" | ")} |`,
    `| --- | ${levels.map(() => "---").join(" | ")} |`,
    `| recall | ${levels.map((l) => `${at(l, "correct")}/${at(l, "n")}`).join(" | ")} |`,
    "",
  ];
}

/** One serve row: Warden's throughput over a bare Hono handler's, and its p99, as the micro bench measured. */
function serveRow(options: { serve: unknown; label: string; met: (ok: boolean) => string }): string {
  const { serve, label, met } = options;
  const serveRatio = num(serve, "ratio", "median");
  const serveP99 = num(serve, "wardenMedian", "p99Ms");
  return serveRatio === undefined || serveP99 === undefined
    ? `| ${label} >= 0.85 of a bare Hono handler's throughput, p99 <= 25 ms at 50 connections | ${why(serve)} | — |`
    : `| ${label} >= 0.85 of a bare Hono handler's throughput (same body parsed, same load, same run), p99 <= 25 ms at ${num(serve, "connections")} connections | ${fmt(serveRatio, 2)} (rounds ${fmt(num(serve, "ratio", "min"), 2)}–${fmt(num(serve, "ratio", "max"), 2)}): ${fmt(num(serve, "wardenMedian", "requestsPerSecond"), 0)} vs ${fmt(num(serve, "hono", "requestsPerSecond"), 0)} req/s (CPU per request: floor/Warden ${fmt(num(serve, "cpuRatio"), 2)}); p99 ${fmt(serveP99, 0)} ms (floor ${fmt(num(serve, "hono", "p99Ms"), 0)} ms); failed answers ${num(serve, "failures")} | ${met(serveRatio >= 0.85 && serveP99 <= 25 && num(serve, "failures") === 0)} |`;
}
