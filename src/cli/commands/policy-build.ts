/**
 * `warden policy build --docs <files...> --model <provider:id> [--base-url u] [--budget n] [--name n]
 * [--embeddings auto|off] -o aspm.json [--json]`: builds an action-based safety policy model from
 * policy documents with a model (src/engines/shield/aspm), writes it as pretty, key-sorted JSON, and
 * prints a review summary (every rule with its source) and a summary of the refinement log; with
 * --json, one JSON object { output, report, log }. Exit 0 when the artifact verifies; 2 (with the
 * reason on stderr) for usage errors, when no rule could be extracted, or when verification finds
 * errors (the artifact is still written for review).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { type Command, Option } from "commander";
import { WardenError } from "../../core/errors.js";
import { buildAspm, summarizeAspmLog } from "../../engines/shield/aspm/build-aspm.js";
import { createModelClient } from "../../llm/create-model-client.js";
import { summarizePolicy } from "../../policies/summarize-policy.js";
import { stableStringify } from "../../util/stable-json.js";
import { EXIT_ERROR } from "../exit-codes.js";
import { readTextInput } from "../read-input.js";

interface BuildOptions {
  docs: string[];
  model: string;
  baseUrl?: string;
  budget?: string;
  name?: string;
  embeddings?: "auto" | "off";
  output: string;
  json?: boolean;
}

function usage(message: string, field: string): WardenError {
  return new WardenError({ code: "INVALID_INPUT", message, details: { field } });
}

async function runBuild(options: BuildOptions): Promise<void> {
  let budget: number | undefined;
  if (options.budget !== undefined) {
    budget = Number(options.budget);
    if (!Number.isInteger(budget) || budget < 1)
      throw usage(`--budget: expected a positive integer, got "${options.budget}"`, "budget");
  }
  const documents = [];
  for (const path of options.docs) {
    documents.push({ name: basename(path), text: await readTextInput({ value: path, option: "--docs" }) });
  }
  const model = createModelClient({
    spec: options.model,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
  });
  const name = options.name ?? basename(options.docs[0] ?? "aspm").replace(/\.[^.]+$/, "");
  try {
    const result = await buildAspm({
      model,
      documents,
      name,
      ...(budget !== undefined ? { budget } : {}),
      ...(options.embeddings ? { embeddings: options.embeddings } : {}),
    });
    const output = resolve(options.output);
    try {
      await mkdir(dirname(output), { recursive: true });
      await writeFile(output, `${stableStringify({ value: result.policy, indent: 2 })}\n`, "utf8");
    } catch (error) {
      throw usage(`output: cannot write ${output}: ${(error as Error).message}`, "output");
    }
    const { report } = result;
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ output, report, log: result.log })}\n`);
    } else {
      const lines = [
        summarizePolicy({ policy: result.policy, findings: report.verification.findings }).trimEnd(),
        "",
        `Built from ${report.documents} document(s), ${report.chunks} chunks, ${report.clauses} clauses: ${report.rules} rules, ${report.predicates} predicates, ${report.circuits} circuits.`,
        `Model calls: ${report.budget.used} of ${report.budget.limit}; refinement rounds: ${report.rounds} (${report.stopped}); similarity: ${report.similarity}.`,
        "Refinement log:",
        summarizeAspmLog({ log: result.log }),
        ...(report.gaveUp.length > 0
          ? ["Given up:", ...report.gaveUp.map((g) => `  ${g.target}: ${g.reason}`)]
          : []),
        `Wrote ${output}`,
      ];
      process.stdout.write(`${lines.join("\n")}\n`);
    }
    if (report.rules === 0) {
      const reasons = report.gaveUp
        .map((g) => `${g.target}: ${g.reason}`)
        .slice(0, 5)
        .join("; ");
      process.stderr.write(
        `warden: no rule could be extracted from the documents${reasons ? ` (${reasons})` : ""}\n`,
      );
      process.exitCode = EXIT_ERROR;
      return;
    }
    if (!report.verification.ok) {
      const errors = report.verification.findings.filter((f) => f.severity === "error");
      process.stderr.write(
        `warden: the built policy does not verify: ${errors.map((f) => `${f.path}: ${f.message}`).join("; ")}\n`,
      );
      process.exitCode = EXIT_ERROR;
      return;
    }
    process.exitCode = 0;
  } finally {
    await model.close?.();
  }
}

/** Adds `build` under the `policy` command group. */
export function registerPolicyBuildCommand(options: { policy: Command }): Command {
  return options.policy
    .command("build")
    .description("build an action-based safety policy model (ASPM) from policy documents with a model")
    .requiredOption("--docs <files...>", "policy documents (Markdown or plain text)")
    .requiredOption("--model <provider:id>", "model, e.g. openai:gpt-4o or openai-compatible:qwen2.5")
    .option("--base-url <url>", "server address (openai-compatible, ollama)")
    .option("--budget <n>", "most model calls the build may make (default 200)")
    .option("--name <name>", "policy name (default: the first document's name)")
    .addOption(
      new Option("--embeddings <mode>", "similarity for vagueness/redundancy").choices(["auto", "off"]),
    )
    .requiredOption("-o, --output <file>", "where to write the ASPM (JSON)")
    .option("--json", "print { output, report, log } as JSON")
    .action(async (opts: BuildOptions) => {
      await runBuild(opts);
    });
}
