/**
 * The report's shielding-plan section: the shield with `planning: "plan"` run over a few fixed
 * trajectories against a SCRIPTED model (src/testing), to show what the pipeline does and what it
 * costs in model calls — which operation the plan chose per predicate, whether similar workflows were
 * shown as exemplars, what was stored, how a bad plan ends — beside the same trajectories with every
 * predicate bound without a model (0 calls). The script writes the plans, so no figure here says
 * anything about how well a real model plans: there is deliberately no accuracy in this section.
 * Run standalone: `npx tsx bench/shield-plan-scripted.ts` prints JSON.
 */
import { pathToFileURL } from "node:url";
import { type Policy, PolicySchema } from "../src/core/policy.js";
import type { Step } from "../src/core/subject.js";
import { createShieldEngine } from "../src/engines/shield/runtime/shield-engine.js";
import { createQuickJsSandbox } from "../src/sandbox/quickjs-sandbox.js";
import { createSqliteStore } from "../src/store/sqlite-store.js";
import { createScriptedModel, type ScriptedRequest } from "../src/testing/scripted-model.js";

const shared = [
  {
    name: "shares_file",
    kind: "action",
    description: "shares a file",
    binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "share" } },
  },
  {
    name: "internal_share",
    kind: "state",
    description: "the recipient is inside the company",
    binding: { kind: "condition", when: { field: "args.to", op: "endsWith", value: "@corp.test" } },
  },
];
const rule = {
  id: "no-confidential-shares",
  formula: "G(shares_file & !internal_share & !owner_approved -> !is_confidential)",
  description: "Do not share confidential files outside the company without the owner's approval",
  countermeasure: "Ask the data owner first",
};
const base = {
  specification: "An assistant that manages files in a drive.",
  requests: "Never share confidential files outside the company without the owner's approval.",
};

/** is_confidential and owner_approved unbound: a plan assigns them. */
export const plannedPolicy: Policy = PolicySchema.parse({
  ...base,
  name: "files-planned",
  rules: {
    predicates: [
      ...shared,
      { name: "is_confidential", kind: "state", description: "the shared file is confidential" },
      { name: "owner_approved", kind: "state", description: "the data owner approved sharing earlier" },
    ],
    temporalRules: [rule],
  },
});

/** The same rule, every predicate bound without a model. */
export const boundPolicy: Policy = PolicySchema.parse({
  ...base,
  name: "files-bound",
  rules: {
    predicates: [
      ...shared,
      {
        name: "is_confidential",
        kind: "state",
        description: "the shared file is confidential",
        binding: { kind: "condition", when: { field: "argsText", op: "contains", value: "salar" } },
      },
      {
        name: "owner_approved",
        kind: "state",
        description: "the data owner approved sharing earlier",
        binding: { kind: "history", when: { field: "actionType", op: "eq", value: "approve" } },
      },
    ],
    temporalRules: [rule],
  },
});

const share = (file: string, to = "bob@elsewhere.test"): Step => ({ action: "share", args: { file, to } });
const approve: Step = { action: "approve", args: { file: "salaries.xlsx" } };

interface Scenario {
  name: string;
  steps: Step[];
  /** What the script answers to the plan call. */
  plan: "formal-verify" | "binary-check" | "unparseable";
}

const SCENARIOS: Scenario[] = [
  { name: "share a menu outside", steps: [share("menu.pdf")], plan: "formal-verify" },
  { name: "share salaries outside", steps: [share("salaries.xlsx")], plan: "formal-verify" },
  {
    name: "approve, then share salaries outside",
    steps: [approve, share("salaries.xlsx")],
    plan: "formal-verify",
  },
  { name: "share a second menu outside", steps: [share("menu-2.pdf")], plan: "formal-verify" },
  { name: "share q3 figures outside", steps: [share("q3.xlsx")], plan: "binary-check" },
  { name: "share a menu, unparseable plan", steps: [share("menu-3.pdf")], plan: "unparseable" },
  {
    name: "share inside, unparseable plan",
    steps: [share("salaries.xlsx", "ann@corp.test")],
    plan: "unparseable",
  },
];

const search = {
  predicate: "owner_approved",
  operation: "search",
  condition: { field: "actionType", op: "eq", value: "approve" },
};

/** The script: a plan by scenario for the plan call; "yes" for a Binary-Check. */
function scriptFor(plan: Scenario["plan"]) {
  return (request: ScriptedRequest): string => {
    if (request.purpose === "shield-binary-check")
      return JSON.stringify({ answers: [{ predicate: "is_confidential", answer: "yes" }] });
    if (plan === "unparseable") return "I would look at the file name.";
    const first =
      plan === "binary-check"
        ? { predicate: "is_confidential", operation: "binary-check", question: "Is this payroll data?" }
        : {
            predicate: "is_confidential",
            operation: "formal-verify",
            code: "finish({ label: /salar/i.test(String(data.step.args.file)) ? 1 : 0 });",
          };
    return JSON.stringify({ steps: [first, search] });
  };
}

export interface ScriptedPlanRow {
  scenario: string;
  policy: "planned" | "bound";
  verdict: string;
  failure?: string;
  modelCalls: number;
  planCalls: number;
  binaryCheckCalls: number;
  operations: Record<string, string>;
  exemplarsShown: number;
  workflowsStored: number;
}

export interface ScriptedPlanResult {
  model: "scripted";
  rows: ScriptedPlanRow[];
  totals: { planned: number; bound: number };
}

export async function runShieldPlanScripted(): Promise<ScriptedPlanResult> {
  const sandbox = createQuickJsSandbox({ workers: 1 });
  const store = await createSqliteStore({ path: ":memory:" });
  const rows: ScriptedPlanRow[] = [];
  try {
    for (const s of SCENARIOS) {
      for (const which of ["planned", "bound"] as const) {
        // Plans are scripted; a retry of the unparseable one is a re-ask of the same call.
        const model = createScriptedModel({ replies: Array.from({ length: 8 }, () => scriptFor(s.plan)) });
        const engine = createShieldEngine({ model, planning: "plan", sandbox, store });
        const policy = which === "planned" ? plannedPolicy : boundPolicy;
        const d = await engine.check({ policy, subject: { input: s.name, output: "", trajectory: s.steps } });
        const facts = (d.trace?.facts ?? {}) as {
          plan?: { operations: Record<string, string>; exemplars: string[] };
          memory?: { stored: string[]; retrieved: unknown[] };
        };
        rows.push({
          scenario: s.name,
          policy: which,
          verdict: d.verdict,
          ...(d.failure ? { failure: d.failure.code } : {}),
          modelCalls: d.cost.llmCalls,
          planCalls: model.requests.filter((r) => r.purpose === "shield-plan").length,
          binaryCheckCalls: model.requests.filter((r) => r.purpose === "shield-binary-check").length,
          operations: facts.plan?.operations ?? {},
          // In plan mode memory retrieves only the workflows shown as exemplars.
          exemplarsShown: facts.memory?.retrieved.length ?? 0,
          workflowsStored: facts.memory?.stored.length ?? 0,
        });
      }
    }
  } finally {
    await sandbox.close();
    await store.close();
  }
  const total = (p: "planned" | "bound") =>
    rows.filter((r) => r.policy === p).reduce((n, r) => n + r.modelCalls, 0);
  return { model: "scripted", rows, totals: { planned: total("planned"), bound: total("bound") } };
}

/** The report section (markdown lines). */
export function shieldPlanScriptedMarkdown(options: { result: ScriptedPlanResult }): string[] {
  const { rows, totals } = options.result;
  return [
    "## Shielding plan, run with a scripted model (call counts, no accuracy)",
    "",
    'The shield with `planning: "plan"`: for the open state predicates of the invoked action\'s circuits the',
    "model writes a plan (Search / Binary-Check / Detect / Formal-Verify), Warden runs it (verification code",
    "in the QuickJS sandbox), decides with the Markov-logic network and stores successful workflows, shown to",
    "later plans as exemplars. Here the model is a script that returns fixed plans, so the verdicts show what",
    "the pipeline does with those plans — they are not a measure of how well any model plans. `bound` is the",
    "same rule with every predicate bound without a model.",
    "",
    "| trajectory | policy | verdict | model calls (plan + binary-check) | operations planned | exemplars shown | workflows stored |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.policy} | ${r.verdict}${r.failure ? ` (${r.failure}, fail closed)` : ""} | ${r.modelCalls} (${r.planCalls} + ${r.binaryCheckCalls}) | ${
          Object.entries(r.operations)
            .map(([p, o]) => `${p}: ${o}`)
            .join(", ") || "—"
        } | ${r.exemplarsShown} | ${r.workflowsStored} |`,
    ),
    "",
    `Model calls in all: ${totals.planned} with the plan, ${totals.bound} with every predicate bound. An unparseable plan is re-asked by the model layer before it fails (each re-ask is a call).`,
    "",
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.stdout.write(`${JSON.stringify(await runShieldPlanScripted(), null, 2)}\n`);
}
