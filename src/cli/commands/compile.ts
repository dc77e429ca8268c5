/**
 * `warden compile`: natural-language guard requests + the agent specification -> a verified policy
 * artifact, with a model; `warden compile --check policy.json` verifies a hand-written (or any) policy.
 * Both print the review summary; findings that are errors exit 2.
 */
import { writeFileSync } from "node:fs";
import { basename, extname } from "node:path";
import type { Command } from "commander";
import { z } from "zod";
import { WardenError } from "../../core/errors.js";
import { parseWith } from "../../core/validate.js";
import { atoms, parseLtl } from "../../engines/shield/ltl/index.js";
import { compilePolicy } from "../../policies/compile-policy.js";
import { loadPolicy } from "../../policies/load-policy.js";
import { summarizePolicy } from "../../policies/summarize-policy.js";
import { verifyPolicy } from "../../policies/verify-policy.js";
import { ModelOptionsSchema, modelFromOptions } from "../../runtime/model-options.js";
import { EXIT_ERROR } from "../exit-codes.js";
import { readTextInput } from "../read-input.js";

const parseFormula = (formula: string) => atoms({ ast: parseLtl({ formula }) });

const CompileOptionsSchema = ModelOptionsSchema.extend({
  request: z.string().optional(),
  spec: z.string().optional(),
  check: z.string().optional(),
  name: z.string().optional(),
  agent: z.string().optional(),
  out: z.string().optional(),
  maxRepairs: z.coerce.number().int().min(0).max(10).default(2),
  json: z.boolean().default(false),
});

/** Stable key order, two-space indent: diff-friendly artifacts. */
function stableJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.entries(v as Record<string, unknown>)
              .sort(([a], [b]) => (a === "$schema" ? -1 : b === "$schema" ? 1 : 0))
              .map(([k, x]) => [k, sort(x)]),
          )
        : v;
  return `${JSON.stringify(sort(value), null, 2)}\n`;
}

export function registerCompileCommand(options: { program: Command }): void {
  options.program
    .command("compile")
    .description(
      "Compile guard requests into a verified policy artifact with a model, or verify one (--check)",
    )
    .option("--request <file>", "the guard requests (I_r), natural language")
    .option("--spec <file>", "the agent specification (I_s)")
    .option("--check <policy>", "verify an existing policy (name, file or directory) instead of compiling")
    .option("--model <provider:model-id>", "the model that writes the artifact")
    .option("--base-url <url>", "the model server's base URL")
    .option("--timeout-ms <ms>", "time limit of each model request", (v) => Number(v))
    .option("--cassette <file>", "record model calls to / replay them from this file")
    .option("--cassette-mode <mode>", "record | replay | auto", "auto")
    .option("--name <name>", "policy name (default: the request file's name)")
    .option("--agent <kind>", "kind of agent: ehragent | seeact | tools | web (picks fact extractors)")
    .option("--max-repairs <n>", "re-asks after verification errors", "2")
    .option("-o, --out <file>", "where to write the compiled policy (JSON)")
    .option("--json", "print the verification result as JSON")
    .action(async (raw: Record<string, unknown>) => {
      const o = parseWith({ schema: CompileOptionsSchema, value: raw, what: "compile options" });
      if (o.check) {
        const { policy } = loadPolicy({ ref: o.check });
        const { findings, ok } = verifyPolicy({ policy, parseFormula });
        process.stdout.write(
          o.json
            ? `${JSON.stringify({ policy: policy.name, version: policy.version, ok, findings }, null, 2)}\n`
            : `${summarizePolicy({ policy, findings })}\n`,
        );
        if (!ok) process.exitCode = EXIT_ERROR;
        return;
      }
      if (!o.request || !o.spec) {
        throw new WardenError({
          code: "INVALID_INPUT",
          message: "compile needs --request <file> and --spec <file> (or --check <policy>)",
        });
      }
      const model = await modelFromOptions(o);
      if (!model) {
        throw new WardenError({
          code: "MODEL_CONFIG",
          message:
            "compiling guard requests needs a model: pass --model provider:model-id (hand-written policies: --check)",
        });
      }
      try {
        const result = await compilePolicy({
          model,
          name: o.name ?? basename(o.request, extname(o.request)),
          specification: await readTextInput({ value: o.spec, option: "--spec" }),
          requests: await readTextInput({ value: o.request, option: "--request" }),
          ...(o.agent ? { agent: o.agent } : {}),
          maxRepairs: o.maxRepairs,
          parseFormula,
        });
        const artifact = stableJson({
          $schema: "https://warden.dev/schema/policy.schema.json",
          ...result.policy,
        });
        if (o.out) writeFileSync(o.out, artifact);
        else if (!o.json) process.stdout.write(artifact);
        const summary = `${summarizePolicy({ policy: result.policy, findings: result.findings })}\nAccepted after ${result.rounds} round(s), ${result.llmCalls} model request(s).${o.out ? ` Written to ${o.out}.` : ""}`;
        if (o.json)
          process.stdout.write(
            `${JSON.stringify({ ok: true, rounds: result.rounds, llmCalls: result.llmCalls, findings: result.findings, out: o.out ?? null }, null, 2)}\n`,
          );
        else process.stderr.write(`${summary}\n`);
      } finally {
        await model.close?.();
      }
    });
}
