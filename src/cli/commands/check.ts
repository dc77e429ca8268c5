/**
 * `warden check`: one guard decision for one agent input/output, printed as JSON (--json) or a readable
 * summary; exit 0 allow, 1 deny or ask, 2 usage or internal error. A trajectory is judged step by step
 * by default — every step in order, then the end — since a trajectory whose last step is fine may have
 * broken the policy earlier; `--last-step` decides only its last step (what a guard in the loop asks).
 * `--check-timeout` bounds the whole check (a trajectory's whole replay) as the service bounds one: past
 * it, a fail-closed CHECK_TIMEOUT deny is printed and the exit code is the deny's.
 */

import type { Command } from "commander";
import { z } from "zod";
import type { CheckTrust } from "../../core/caller.js";
import type { Decision } from "../../core/decision.js";
import { WardenError } from "../../core/errors.js";
import { ContextSchema, type Subject, SubjectSchema, TrajectoryStepsSchema } from "../../core/subject.js";
import { parseWith } from "../../core/validate.js";
import { callerContext } from "../../engines/compiled/context-facts.js";
import {
  runShieldOnTrajectory,
  type ShieldTrajectoryResult,
} from "../../engines/shield/runtime/run-shield-on-trajectory.js";
import type { ShieldEngine } from "../../engines/shield/runtime/shield-engine.js";
import { checkTimeoutDecision, raceLimit, timedOut } from "../../runtime/check-within.js";
import { DEFAULT_CHECK_TIMEOUT_MS, type GuardService } from "../../runtime/guard-service.js";
import { GuardServiceOptionsSchema, openGuardService } from "../../runtime/open-guard-service.js";
import { exitCodeForDecision } from "../exit-codes.js";
import { formatDecision } from "../format-decision.js";
import { addCheckTimeoutOption, addGuardOptions, checkTimeoutFrom } from "../guard-options.js";
import {
  MAX_INPUT_BYTES_HELP,
  maxInputBytesFrom,
  readJsonInput,
  readJsonObjectInput,
  readTextInput,
} from "../read-input.js";

const CheckOptionsSchema = GuardServiceOptionsSchema.omit({ policies: true }).extend({
  policy: z.string().min(1),
  input: z.string().optional(),
  output: z.string().optional(),
  subject: z.string().optional(),
  trajectory: z.string().optional(),
  context: z.string().optional(),
  trustContext: z.boolean().default(false),
  json: z.boolean().default(false),
  allSteps: z.boolean().default(false),
  lastStep: z.boolean().default(false),
  maxInputBytes: z.string().optional(),
});

/** Engines whose decision depends on the trajectory's steps (the tool call or the temporal rules). */
const STEPWISE_ENGINES = new Set(["auto", "compiled", "shield"]);

export function registerCheckCommand(options: { program: Command }): void {
  const command = options.program
    .command("check")
    .description("Decide whether an agent's input and output (or trajectory) satisfy a policy");
  addCheckTimeoutOption({ command: addGuardOptions({ command, policy: "one" }) })
    .option("--input <file|->", "the agent input (I_i): a file, or - for stdin")
    .option("--output <file>", "the agent output log (I_o): a file")
    .option("--subject <file|json>", "a whole subject as JSON: {input, output, trajectory?, context?}")
    .option(
      "--trajectory <file|json>",
      "the agent's steps (JSON array or JSON Lines); every step is judged in order, then the end",
    )
    .option("--context <json>", 'structured facts the caller knows, e.g. \'{"identity":"nursing"}\'')
    .option(
      "--trust-context",
      "take the context's facts about what the agent did (resources, code, toolCall(s), toolSchemas, cwd) as given; by default they are only compared with the agent output, and a disagreement is denied",
    )
    .option(
      "--all-steps",
      "with --trajectory: guard every step in order and judge the end, as if the agent had been guarded from the start (the default with the auto, compiled and shield engines)",
    )
    .option("--last-step", "with --trajectory: decide only the last step (the earlier ones as its history)")
    .option("--json", "print the Decision as JSON")
    .option("--max-input-bytes <n>", MAX_INPUT_BYTES_HELP)
    .action(async (raw: Record<string, unknown>) => {
      const { checkTimeout: _flag, ...rest } = raw;
      const limits = checkTimeoutFrom({ raw });
      const {
        policy,
        input,
        output,
        subject: subjectRef,
        trajectory,
        context,
        trustContext,
        json,
        allSteps,
        lastStep,
        maxInputBytes: _maxInputBytes,
        ...service
      } = parseWith({
        schema: CheckOptionsSchema,
        value: { ...rest, ...limits },
        what: "check options",
      });
      const maxBytes = maxInputBytesFrom({ raw });
      const subject = await readSubject({
        input,
        output,
        subject: subjectRef,
        trajectory,
        context,
        maxBytes,
      });
      const guard = await openGuardService({
        ...service,
        policies: [policy],
        sandboxWorkers: 1,
        auditFace: "cli-check",
      });
      // The context is the user's own input, but it is taken as facts only when they say so.
      const trust: CheckTrust = { contextFacts: trustContext };
      try {
        const [loaded] = guard.listPolicies();
        if (allSteps && lastStep) {
          throw new WardenError({
            code: "INVALID_INPUT",
            message: "give --all-steps or --last-step, not both",
          });
        }
        if (allSteps && !subject.trajectory?.length) {
          throw new WardenError({
            code: "INVALID_INPUT",
            message: "--all-steps needs --trajectory with at least one step",
          });
        }
        // Every step by default with the engines that judge steps; the model engines read the input and
        // output, the same for every prefix, so they decide once unless --all-steps asks otherwise.
        const judgesSteps = STEPWISE_ENGINES.has(service.engine ?? "auto");
        if (subject.trajectory?.length && (allSteps || (!lastStep && judgesSteps))) {
          await replayWithin({
            guard,
            policy: loaded!.name,
            subject,
            json,
            engine: service.engine,
            limitMs: service.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS,
            trust,
          });
          return;
        }
        printDecision({ decision: await guard.check({ policy: loaded!.name, subject, trust }), json });
      } finally {
        await guard.close();
      }
    });
}

function printDecision(o: { decision: Decision; json: boolean }): void {
  const { decision } = o;
  process.stdout.write(
    o.json ? `${JSON.stringify(decision, null, 2)}\n` : `${formatDecision({ decision })}\n`,
  );
  process.exitCode = exitCodeForDecision(decision);
}

async function readSubject(o: {
  input?: string | undefined;
  output?: string | undefined;
  subject?: string | undefined;
  trajectory?: string | undefined;
  context?: string | undefined;
  maxBytes: number;
}): Promise<Subject> {
  const { maxBytes } = o;
  let value: Record<string, unknown> = {};
  if (o.subject) value = await readJsonObjectInput({ value: o.subject, option: "--subject", maxBytes });
  if (o.input) value.input = await readTextInput({ value: o.input, option: "--input", maxBytes });
  if (o.output) value.output = await readTextInput({ value: o.output, option: "--output", maxBytes });
  if (o.trajectory) {
    const steps = await readJsonInput({ value: o.trajectory, option: "--trajectory", maxBytes });
    const list = Array.isArray(steps) ? steps : (steps as { steps?: unknown })?.steps;
    value.trajectory = parseWith({
      schema: TrajectoryStepsSchema,
      value: list,
      what: "--trajectory",
      path: "trajectory",
    });
    // A trajectory file may carry its task and context: {input, context, steps}.
    const file = (Array.isArray(steps) ? {} : (steps ?? {})) as { input?: unknown; context?: unknown };
    if (value.input === undefined && typeof file.input === "string") value.input = file.input;
    if (file.context !== undefined && file.context !== null) {
      const fileContext = parseWith({
        schema: ContextSchema,
        value: file.context,
        what: "--trajectory (its context must be a JSON object)",
        path: "--trajectory.context",
      });
      value.context = { ...fileContext, ...((value.context as object) ?? {}) };
    }
  }
  if (o.context) {
    value.context = {
      ...((value.context as object) ?? {}),
      ...(await readJsonObjectInput({ value: o.context, option: "--context", maxBytes })),
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

/**
 * The replay under one time limit for the whole of it: past the limit, the fail-closed CHECK_TIMEOUT
 * decision is printed instead (the check in flight is aborted, its worker terminated).
 */
async function replayWithin(o: {
  guard: GuardService;
  policy: string;
  subject: Subject;
  json: boolean;
  engine: string | undefined;
  limitMs: number;
  trust: CheckTrust;
}): Promise<void> {
  const started = performance.now();
  const replay = (signal?: AbortSignal) =>
    replayTrajectory({
      guard: o.guard,
      policy: o.policy,
      subject: o.subject,
      engine: o.engine,
      trust: o.trust,
      signal,
    });
  const result = o.limitMs === 0 ? await replay() : await raceLimit({ limitMs: o.limitMs, run: replay });
  if (!timedOut(result)) {
    printReplay({ result, json: o.json });
    return;
  }
  const decision = checkTimeoutDecision({
    engine: o.engine ?? "auto",
    policy: o.guard.getPolicy({ name: o.policy }),
    limitMs: o.limitMs,
    started,
  });
  printDecision({ decision, json: o.json });
}

/**
 * Every step decided in order, then the end rules. The shield runs its session (each step read once);
 * another engine decides each prefix of the trajectory, the end rules with the last one. `signal` stops
 * it when the whole replay's time limit passes.
 */
async function replayTrajectory(o: {
  guard: GuardService;
  policy: string;
  subject: Subject;
  engine: string | undefined;
  trust: CheckTrust;
  signal?: AbortSignal | undefined;
}): Promise<ShieldTrajectoryResult | PrefixResult> {
  const steps = o.subject.trajectory ?? [];
  const context = o.subject.context
    ? callerContext({ context: o.subject.context, trust: o.trust })
    : undefined;
  if (o.engine === "shield") {
    const engine = (await o.guard.getEngine({ engine: "shield" })) as ShieldEngine;
    return runShieldOnTrajectory({
      engine,
      policy: o.guard.getPolicy({ name: o.policy }),
      trajectory: {
        input: o.subject.input,
        steps,
        ...(context ? { context } : {}),
      },
      ...(o.signal ? { signal: o.signal } : {}),
    });
  }
  return decidePrefixes({
    guard: o.guard,
    policy: o.policy,
    subject: o.subject,
    trust: o.trust,
    ...(o.signal ? { signal: o.signal } : {}),
  });
}

function printReplay(o: { result: ShieldTrajectoryResult | PrefixResult; json: boolean }): void {
  const { result } = o;
  if (o.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    const lines = result.decisions.map(
      (d, i) =>
        `step ${i}: ${d.verdict.toUpperCase()}${d.violations.length ? ` — ${d.violations.map((v) => `[${v.ruleId}] ${v.message}`).join("; ")}` : ""}`,
    );
    if ("final" in result) lines.push(`end: ${formatDecision({ decision: result.final })}`);
    lines.push(
      result.unsafe
        ? `UNSAFE: ${result.blockedAt !== undefined ? `first blocked at step ${result.blockedAt}; ` : ""}rules: ${result.violatedRules.join(", ")}`
        : "SAFE: every step and the end satisfy the policy",
    );
    process.stdout.write(`${lines.join("\n")}\n`);
  }
  process.exitCode = result.unsafe ? 1 : 0;
}

interface PrefixResult {
  decisions: Decision[];
  blockedAt?: number;
  violatedRules: string[];
  unsafe: boolean;
}

/** Each prefix of the trajectory decided by the service's engine; the last with `final: true`. */
async function decidePrefixes(o: {
  guard: GuardService;
  policy: string;
  subject: Subject;
  signal?: AbortSignal;
  trust: CheckTrust;
}): Promise<PrefixResult> {
  const steps = o.subject.trajectory ?? [];
  const decisions: Decision[] = [];
  let blockedAt: number | undefined;
  for (let i = 0; i < steps.length; i += 1) {
    const last = i === steps.length - 1;
    const context = last ? { ...o.subject.context, final: true } : o.subject.context;
    // Past the whole replay's limit the answer is already given; stop deciding more prefixes.
    if (o.signal?.aborted) throw o.signal.reason;
    const d = await o.guard.check({
      policy: o.policy,
      ...(o.signal ? { signal: o.signal } : {}),
      subject: { ...o.subject, trajectory: steps.slice(0, i + 1), ...(context ? { context } : {}) },
      trust: o.trust,
    });
    decisions.push(d);
    if (!d.allowed && blockedAt === undefined) blockedAt = i;
  }
  const violatedRules: string[] = [];
  for (const d of decisions)
    for (const v of d.violations) if (!violatedRules.includes(v.ruleId)) violatedRules.push(v.ruleId);
  return {
    decisions,
    ...(blockedAt !== undefined ? { blockedAt } : {}),
    violatedRules,
    unsafe: blockedAt !== undefined,
  };
}
