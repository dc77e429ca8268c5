/**
 * Executing a checked shielding plan (shielding-plan.ts). Warden, not the model, runs each operation:
 * Search and Detect through the same assignment code as policy bindings (the plan step becomes a
 * `history` or `detector` binding of the predicate, validated like one), the Binary-Check questions in
 * one structured model call (binary-check.ts), and Formal-Verify code only in the sandbox, over plain
 * JSON facts of the step. An operation that errs marks its predicate failed (the verifier then fails
 * closed if the verdict depends on it); one that cannot tell leaves it open (marginalised).
 */
import { toWardenError, WardenError } from "../../../core/errors.js";
import type { Predicate } from "../../../core/policy.js";
import type { Step } from "../../../core/subject.js";
import type { ModelClient } from "../../../llm/model.js";
import type { Sandbox, SandboxLimits } from "../../../sandbox/sandbox.js";
import { assignPredicates } from "../assign/assign-predicates.js";
import { buildStepFacts } from "../assign/step-facts.js";
import type { DetectorRegistry } from "../detectors/registry.js";
import { binaryCheck } from "./binary-check.js";
import { type PlanStep, planBinding } from "./shielding-plan.js";

export interface PlanRun {
  answers: Record<string, boolean>;
  /** Predicates whose operation failed (an error, not "cannot tell"). */
  failed: string[];
  /** Predicates the operation could not decide (left open). */
  unknown: string[];
  failure?: WardenError;
  notes: string[];
  usage: { llmCalls: number; inputTokens: number; outputTokens: number };
}

/** Where a plan runs: the model (Binary-Check), the sandbox (Formal-Verify), the detectors, the step. */
export interface PlanSite {
  model: ModelClient;
  sandbox: Sandbox | undefined;
  sandboxLimits?: Partial<SandboxLimits>;
  detectors: DetectorRegistry;
  input: string;
  context: Record<string, unknown> | undefined;
  steps: readonly Step[];
  index: number;
  /** The values assigned before the plan (shown to Formal-Verify code). */
  values: Readonly<Record<string, boolean>>;
  signal?: AbortSignal;
}

function fail(run: PlanRun, predicate: string, error: WardenError): void {
  run.failed.push(predicate);
  run.failure = error;
  run.notes.push(`plan step for ${predicate} failed (${error.code}): ${error.message}`);
}

function runBound(site: PlanSite, step: PlanStep, run: PlanRun): void {
  const predicate: Predicate = {
    name: step.predicate,
    kind: "state",
    description: `planned ${step.operation}`,
    // checkPlan has parsed it with the policy's BindingSchema.
    binding: planBinding({ step }) as Predicate["binding"],
  };
  try {
    const a = assignPredicates({
      predicates: [predicate],
      trajectory: site.steps,
      index: site.index,
      detectors: site.detectors,
      input: site.input,
      ...(site.context ? { context: site.context } : {}),
    });
    const value = a.values[step.predicate];
    if (value === undefined) {
      run.unknown.push(step.predicate);
      run.notes.push(...a.notes);
    } else run.answers[step.predicate] = value;
  } catch (error) {
    fail(run, step.predicate, toWardenError({ error, code: "MODEL_OUTPUT_INVALID" }));
  }
}

/** The JSON the Formal-Verify code sees as `data`. */
function verifyData(site: PlanSite): unknown {
  const f = buildStepFacts({
    step: site.steps[site.index]!,
    index: site.index,
    input: site.input,
    context: site.context,
  });
  const step = {
    action: f.action,
    actionType: f.actionType,
    args: f.args,
    url: f.url ?? null,
    element: f.element ?? null,
    elementText: f.elementText,
    value: f.value ?? null,
    typed: f.typed,
    message: f.message,
    targetUrl: f.targetUrl,
    observation: f.observation ?? null,
  };
  return JSON.parse(
    JSON.stringify({
      input: site.input,
      step,
      earlier: site.steps.slice(0, site.index),
      values: site.values,
    }),
  );
}

async function runFormalVerify(site: PlanSite, steps: readonly PlanStep[], run: PlanRun): Promise<void> {
  if (steps.length === 0) return;
  if (!site.sandbox) {
    const error = new WardenError({
      code: "UNSUPPORTED",
      message: "formal-verify needs a sandbox; none is configured",
    });
    for (const s of steps) fail(run, s.predicate, error);
    return;
  }
  const data = verifyData(site);
  for (const s of steps) {
    const r = await site.sandbox.run({
      code: s.code!,
      data,
      ...(site.sandboxLimits ? { limits: site.sandboxLimits } : {}),
      ...(site.signal ? { signal: site.signal } : {}),
    });
    if (r.ok) run.answers[s.predicate] = r.result.label === 1;
    else fail(run, s.predicate, new WardenError({ code: r.error.code, message: r.error.message }));
  }
}

async function runBinaryChecks(site: PlanSite, steps: readonly PlanStep[], run: PlanRun): Promise<void> {
  if (steps.length === 0) return;
  const r = await binaryCheck({
    model: site.model,
    questions: steps.map((s) => ({ predicate: s.predicate, question: s.question! })),
    input: site.input,
    steps: site.steps,
    index: site.index,
    ...(site.signal ? { signal: site.signal } : {}),
  });
  run.usage.llmCalls += r.usage.llmCalls;
  run.usage.inputTokens += r.usage.inputTokens;
  run.usage.outputTokens += r.usage.outputTokens;
  Object.assign(run.answers, r.answers);
  if (r.error) {
    for (const s of steps) fail(run, s.predicate, r.error);
    return;
  }
  run.unknown.push(...r.unknown);
}

/** Runs every step of the plan (Binary-Check questions batched into one call). */
export async function runShieldingPlan(options: {
  site: PlanSite;
  steps: ReadonlyMap<string, PlanStep>;
}): Promise<PlanRun> {
  const { site } = options;
  const run: PlanRun = {
    answers: {},
    failed: [],
    unknown: [],
    notes: [],
    usage: { llmCalls: 0, inputTokens: 0, outputTokens: 0 },
  };
  const all = [...options.steps.values()];
  for (const s of all) if (s.operation === "search" || s.operation === "detect") runBound(site, s, run);
  await runFormalVerify(
    site,
    all.filter((s) => s.operation === "formal-verify"),
    run,
  );
  await runBinaryChecks(
    site,
    all.filter((s) => s.operation === "binary-check"),
    run,
  );
  return run;
}
