/**
 * `warden check`: one guard decision for one agent input/output (or trajectory), printed as JSON
 * (--json) or a readable summary; exit 0 allow, 1 deny or ask, 2 usage or internal error.
 */
import type { Command } from "commander";
import { z } from "zod";
import { WardenError } from "../../core/errors.js";
import { StepSchema, type Subject, SubjectSchema } from "../../core/subject.js";
import { parseWith } from "../../core/validate.js";
import { createMemoryBank, type MemoryBank } from "../../memory/memory-bank.js";
import { createEngine, ENGINE_NAMES } from "../../runtime/create-engine.js";
import { openStore } from "../../runtime/default-store.js";
import { ModelOptionsSchema, modelFromOptions } from "../../runtime/model-options.js";
import { loadPolicyWithSeeds } from "../../runtime/policy-context.js";
import { loadToolFunctions } from "../../toolbox/load-tool-functions.js";
import { exitCodeForDecision } from "../exit-codes.js";
import { formatDecision } from "../format-decision.js";
import { readJsonInput, readTextInput } from "../read-input.js";

const CheckOptionsSchema = ModelOptionsSchema.extend({
  policy: z.string().min(1),
  input: z.string().optional(),
  output: z.string().optional(),
  subject: z.string().optional(),
  trajectory: z.string().optional(),
  context: z.string().optional(),
  engine: z.enum(ENGINE_NAMES).default("auto"),
  shots: z.coerce.number().int().min(0).optional(),
  retrieval: z.enum(["most", "least"]).default("most"),
  debugRounds: z.coerce.number().int().min(0).max(10).optional(),
  toolbox: z.boolean().default(true),
  memory: z.boolean().default(true),
  tools: z.array(z.string()).default([]),
  demos: z.array(z.string()).default([]),
  store: z.string().optional(),
  failOpen: z.boolean().default(false),
  learn: z.enum(["off", "successful", "correct-only"]).default("successful"),
  json: z.boolean().default(false),
});

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerCheckCommand(options: { program: Command }): void {
  options.program
    .command("check")
    .description("Decide whether an agent's input and output (or trajectory) satisfy a policy")
    .requiredOption(
      "--policy <name|file>",
      "bundled policy name (eicu-ac, mind2web-sc, mcp-tools) or a policy file/directory",
    )
    .option("--input <file|->", "the agent input (I_i): a file, or - for stdin")
    .option("--output <file>", "the agent output log (I_o): a file")
    .option("--subject <file|json>", "a whole subject as JSON: {input, output, trajectory?, context?}")
    .option(
      "--trajectory <file|json>",
      "the agent's steps so far (JSON array or JSON Lines); the last step is decided",
    )
    .option("--context <json>", 'structured facts the caller knows, e.g. \'{"identity":"nursing"}\'')
    .option("--engine <engine>", `auto | compiled | guardagent | baseline | shield`, "auto")
    .option(
      "--model <provider:model-id>",
      "openai:…, anthropic:…, openai-compatible:…, ollama:…, local:/path/model.gguf",
    )
    .option("--base-url <url>", "the model server's base URL (needed for openai-compatible)")
    .option("--timeout-ms <ms>", "time limit of each model request", (v) => Number(v))
    .option("--shots <k>", "number of demonstrations retrieved from memory")
    .option("--retrieval <order>", "most | least similar demonstrations", "most")
    .option("--debug-rounds <n>", "debugging rounds when the guardrail code fails (default 3)")
    .option("--no-toolbox", "hide the toolbox functions from code generation (ablation)")
    .option("--no-memory", "use no demonstrations (ablation)")
    .option("--tools <file>", "extra toolbox functions (JavaScript or JSON/YAML); repeatable", collect)
    .option("--demos <file>", "extra demonstrations for memory; repeatable", collect)
    .option("--store <path>", "memory database (default $WARDEN_STORE or ~/.local/state/warden/warden.db)")
    .option("--learn <mode>", "off | successful | correct-only", "successful")
    .option("--cassette <file>", "record model calls to / replay them from this file")
    .option("--cassette-mode <mode>", "record | replay | auto", "auto")
    .option("--fail-open", "allow (and say so) when the check cannot be completed; the default is to deny")
    .option("--json", "print the Decision as JSON")
    .action(async (raw: Record<string, unknown>) => {
      const o = parseWith({ schema: CheckOptionsSchema, value: raw, what: "check options" });
      const subject = await readSubject(o);
      const model = modelFromOptions(o);
      const usesMemory =
        o.memory && (o.engine === "guardagent" || o.engine === "baseline" || (o.engine === "auto" && model));
      const store = usesMemory ? await openStore({ ...(o.store ? { path: o.store } : {}) }) : undefined;
      const memory: MemoryBank | undefined = store ? createMemoryBank({ store, learn: o.learn }) : undefined;
      const loaded = await loadPolicyWithSeeds({
        ref: o.policy,
        ...(memory ? { memory } : {}),
        extraDemonstrations: o.demos,
      });
      const toolFunctions = (await Promise.all(o.tools.map((path) => loadToolFunctions({ path })))).flat();
      const handle = await createEngine({
        engine: o.engine,
        ...(model ? { model } : {}),
        ...(memory ? { memory } : {}),
        ...(o.shots !== undefined ? { shots: o.shots } : {}),
        retrieval: o.retrieval,
        ...(o.debugRounds !== undefined ? { debugRounds: o.debugRounds } : {}),
        toolbox: o.toolbox,
        toolFunctions,
        learn: o.learn,
        failMode: o.failOpen ? "open" : "closed",
        sandboxWorkers: 1,
      });
      try {
        const decision = await handle.engine.check({ policy: loaded.policy, subject });
        process.stdout.write(
          o.json ? `${JSON.stringify(decision, null, 2)}\n` : `${formatDecision({ decision })}\n`,
        );
        process.exitCode = exitCodeForDecision(decision);
      } finally {
        await handle.close();
        await store?.close();
      }
    });
}

async function readSubject(o: z.output<typeof CheckOptionsSchema>): Promise<Subject> {
  let value: Record<string, unknown> = {};
  if (o.subject) {
    const parsed = await readJsonInput({ value: o.subject, option: "--subject" });
    value = (parsed ?? {}) as Record<string, unknown>;
  }
  if (o.input) value.input = await readTextInput({ value: o.input, option: "--input" });
  if (o.output) value.output = await readTextInput({ value: o.output, option: "--output" });
  if (o.trajectory) {
    const steps = await readJsonInput({ value: o.trajectory, option: "--trajectory" });
    const list = Array.isArray(steps) ? steps : (steps as { steps?: unknown })?.steps;
    value.trajectory = parseWith({
      schema: z.array(StepSchema),
      value: list,
      what: "--trajectory",
      path: "trajectory",
    });
    if (value.input === undefined && typeof (steps as { input?: unknown })?.input === "string") {
      value.input = (steps as { input: string }).input;
    }
  }
  if (o.context) {
    value.context = {
      ...((value.context as object) ?? {}),
      ...((await readJsonInput({ value: o.context, option: "--context" })) as object),
    };
  }
  if (value.input === undefined) value.input = "";
  if (!o.subject && !o.input && !o.trajectory) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "give the agent input with --input (and its output with --output), --subject or --trajectory",
    });
  }
  return parseWith({ schema: SubjectSchema, value, what: "subject" });
}
