/**
 * The shielding plan end to end: the shield's real model client against the loopback OpenAI-compatible
 * server (src/testing), whose scripted replies are the plans; Formal-Verify code in the QuickJS sandbox;
 * long-term memory in SQLite.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Policy, PolicySchema } from "../../../core/policy.js";
import type { Step } from "../../../core/subject.js";
import { createModelClient } from "../../../llm/create-model-client.js";
import { createQuickJsSandbox } from "../../../sandbox/quickjs-sandbox.js";
import type { Sandbox } from "../../../sandbox/sandbox.js";
import { createSqliteStore } from "../../../store/sqlite-store.js";
import type { Store } from "../../../store/store.js";
import type { ModelServer, RespondArgs, ScriptedServerReply } from "../../../testing/openai-server.js";
import { startOpenAIServer } from "../../../testing/openai-server.js";
import { createShieldEngine, type ShieldEngineOptions } from "./shield-engine.js";

const predicates = [
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
/** is_confidential and owner_approved have no binding: only a plan (or nothing) assigns them. */
const policy: Policy = PolicySchema.parse({
  name: "files",
  specification: "An assistant that manages files in a drive.",
  requests: "Never share confidential files outside the company without the owner's approval.",
  rules: {
    predicates: [
      ...predicates,
      { name: "is_confidential", kind: "state", description: "the shared file is confidential" },
      { name: "owner_approved", kind: "state", description: "the data owner approved sharing earlier" },
    ],
    temporalRules: [rule],
  },
});
/** The same rule with every predicate bound without a model. */
const boundPolicy: Policy = PolicySchema.parse({
  ...policy,
  name: "files-bound",
  rules: {
    predicates: [
      ...predicates,
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

const share = (file: string, to = "bob@elsewhere.test", note?: string): Step => ({
  action: "share",
  args: { file, to, ...(note ? { note } : {}) },
});
const approve: Step = { action: "approve", args: { file: "salaries.xlsx" } };
const subject = (steps: Step[], input = "share the files") => ({ input, output: "", trajectory: steps });

const verifyCode = "finish({ label: /salar/i.test(String(data.step.args.file)) ? 1 : 0 });";
const searchApproval = {
  predicate: "owner_approved",
  operation: "search",
  condition: { field: "actionType", op: "eq", value: "approve" },
};
const goodPlan = {
  steps: [{ predicate: "is_confidential", operation: "formal-verify", code: verifyCode }, searchApproval],
};

let server: ModelServer;
let sandbox: Sandbox;
/** What the server answers: the plan call and the Binary-Check call, by system prompt. */
let planReply: ScriptedServerReply;
let checkReply: ScriptedServerReply;

function respond({ messages }: RespondArgs): ScriptedServerReply {
  const system = messages[0]?.content ?? "";
  if (system.includes("shielding plan")) return planReply;
  if (system.includes("Binary-Check")) return checkReply;
  return { status: 500, body: { error: { message: "unexpected call" } } };
}

function engine(extra: Partial<ShieldEngineOptions> = {}) {
  const model = createModelClient({
    spec: "openai-compatible:planner",
    baseUrl: server.url,
    maxRetries: 0,
    timeoutMs: 5_000,
  });
  return createShieldEngine({ model, planning: "plan", sandbox, ...extra });
}

/** The user prompts the server received, in order. */
function prompts(): string[] {
  return server.requests.map((b) => {
    const messages = (b.messages ?? []) as Array<{ role: string; content: unknown }>;
    return String(messages.filter((m) => m.role === "user").at(-1)?.content ?? "");
  });
}

beforeAll(async () => {
  server = await startOpenAIServer({ respond });
  sandbox = createQuickJsSandbox({ workers: 1 });
});
afterAll(async () => {
  await sandbox.close();
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  planReply = JSON.stringify(goodPlan);
  checkReply = JSON.stringify({ answers: [] });
});

describe("shielding plan (planning: plan)", () => {
  it("plans Formal-Verify and Search, runs the code in the sandbox and explains the violation", async () => {
    const denied = await engine().check({ policy, subject: subject([share("salaries.xlsx")]) });
    expect(denied).toMatchObject({
      allowed: false,
      verdict: "deny",
      violations: [{ ruleId: "no-confidential-shares" }],
    });
    expect(denied.failure).toBeUndefined();
    expect(denied.cost.llmCalls).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(denied.trace?.facts).toMatchObject({
      assignment: { is_confidential: true, owner_approved: false },
      operations: { is_confidential: "formal-verify", owner_approved: "search" },
      plan: { operations: { is_confidential: "formal-verify", owner_approved: "search" } },
    });
    expect(denied.explanation).toContain("instead: Ask the data owner first");
    // The prompt shows the circuit's rule and the predicates to assign.
    expect(prompts()[0]).toContain(rule.formula);
    expect(prompts()[0]).toContain("- is_confidential: the shared file is confidential");

    const fine = await engine().check({ policy, subject: subject([share("menu.pdf")]) });
    expect(fine.allowed).toBe(true);
    const approved = await engine().check({ policy, subject: subject([approve, share("salaries.xlsx")]) });
    expect(approved.allowed).toBe(true);
    expect(approved.trace?.facts).toMatchObject({ assignment: { owner_approved: true } });
  });

  it("Binary-Check steps of the plan go to the model in one more call", async () => {
    planReply = JSON.stringify({
      steps: [
        {
          predicate: "is_confidential",
          operation: "binary-check",
          question: "Is the shared file payroll data?",
        },
        searchApproval,
      ],
    });
    checkReply = JSON.stringify({ answers: [{ predicate: "is_confidential", answer: "yes" }] });
    const d = await engine().check({ policy, subject: subject([share("q3.xlsx")]) });
    expect(d.allowed).toBe(false);
    expect(d.cost.llmCalls).toBe(2);
    expect(prompts()[1]).toContain("Is the shared file payroll data?");
    expect(d.trace?.facts).toMatchObject({ operations: { is_confidential: "binary-check" } });
  });

  it("Detect steps run a registered detector", async () => {
    planReply = JSON.stringify({
      steps: [
        { predicate: "is_confidential", operation: "detect", detector: "secret", field: "argsText" },
        searchApproval,
      ],
    });
    const token = `ghp_${"a1B2c3D4e5".repeat(4).slice(0, 36)}`;
    const leaked = await engine().check({ policy, subject: subject([share("notes.txt", undefined, token)]) });
    expect(leaked.allowed).toBe(false);
    expect(leaked.trace?.facts).toMatchObject({ operations: { is_confidential: "detect" } });
    const clean = await engine().check({
      policy,
      subject: subject([share("notes.txt", undefined, "hello")]),
    });
    expect(clean.allowed).toBe(true);
  });

  it("costs no model call when every predicate is bound without a model", async () => {
    const e = engine();
    expect((await e.check({ policy: boundPolicy, subject: subject([share("salaries.xlsx")]) })).allowed).toBe(
      false,
    );
    const ok = await e.check({ policy: boundPolicy, subject: subject([approve, share("salaries.xlsx")]) });
    expect(ok.allowed).toBe(true);
    expect(ok.cost.llmCalls).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  describe("fails closed on a bad plan", () => {
    const cases: Array<[string, () => void, string]> = [
      [
        "unparseable",
        () => (planReply = "I would check whether the file is confidential."),
        "MODEL_OUTPUT_INVALID",
      ],
      [
        "naming an unknown predicate",
        () =>
          (planReply = JSON.stringify({
            steps: [...goodPlan.steps, { ...searchApproval, predicate: "nope" }],
          })),
        "MODEL_OUTPUT_INVALID",
      ],
      [
        "leaving a predicate unassigned",
        () => (planReply = JSON.stringify({ steps: [searchApproval] })),
        "MODEL_OUTPUT_INVALID",
      ],
      [
        "an operation without its argument",
        () =>
          (planReply = JSON.stringify({
            steps: [{ predicate: "is_confidential", operation: "formal-verify" }, searchApproval],
          })),
        "MODEL_OUTPUT_INVALID",
      ],
      [
        "an unknown detector",
        () =>
          (planReply = JSON.stringify({
            steps: [
              { predicate: "is_confidential", operation: "detect", detector: "oracle" },
              searchApproval,
            ],
          })),
        "MODEL_OUTPUT_INVALID",
      ],
      [
        "a Search condition outside the language",
        () =>
          (planReply = JSON.stringify({
            steps: [goodPlan.steps[0], { ...searchApproval, condition: { field: "x", op: "likes" } }],
          })),
        "MODEL_OUTPUT_INVALID",
      ],
      [
        "verification code that throws",
        () =>
          (planReply = JSON.stringify({
            steps: [
              { predicate: "is_confidential", operation: "formal-verify", code: "throw new Error('boom')" },
              searchApproval,
            ],
          })),
        "SANDBOX_RUNTIME",
      ],
      [
        "a dead model",
        () => (planReply = { status: 503, body: { error: { message: "down" } } }),
        "MODEL_UNAVAILABLE",
      ],
    ];
    for (const [name, setup, code] of cases) {
      it(name, async () => {
        setup();
        const d = await engine().check({ policy, subject: subject([share("menu.pdf")]) });
        expect(d).toMatchObject({ allowed: false, verdict: "deny", failure: { mode: "closed" } });
        expect(d.failure?.code).toBe(code);
        expect(d.failure?.message).toContain("is_confidential");
      });
    }

    it("Formal-Verify without a sandbox", async () => {
      const d = await engine({ sandbox: undefined }).check({ policy, subject: subject([share("menu.pdf")]) });
      expect(d).toMatchObject({ allowed: false, failure: { code: "UNSUPPORTED", mode: "closed" } });
    });

    it("still allows a step whose verdict is the same whatever the failed predicates are", async () => {
      planReply = "not a plan";
      const d = await engine().check({ policy, subject: subject([share("salaries.xlsx", "ann@corp.test")]) });
      expect(d.allowed).toBe(true);
      expect(d.trace?.notes?.join(" ")).toContain("the verdict is the same whatever the answers");
    });
  });

  describe("long-term memory", () => {
    let store: Store;
    beforeAll(async () => {
      store = await createSqliteStore({ path: ":memory:" });
    });
    afterAll(async () => {
      await store.close();
    });

    it("stores a successful workflow and shows it as an exemplar for a similar step", async () => {
      const e = engine({ store });
      const first = await e.check({ policy, subject: subject([share("menu.pdf")], "task a") });
      expect(first.allowed).toBe(true);
      const facts = first.trace?.facts as { memory?: { stored: string[] } } | undefined;
      const stored = facts?.memory?.stored ?? [];
      expect(stored).toHaveLength(1);
      const [workflow] = await store.listWorkflows({ policy: "files", action: "shares_file" });
      expect(workflow?.plan).toMatchObject({
        shieldingPlan: goodPlan.steps,
        predicates: { is_confidential: { value: false } },
      });
      expect(prompts()[0]).toContain("Successful shielding workflows of similar steps: none yet");

      const second = await e.check({ policy, subject: subject([share("menu2.pdf")], "task b") });
      expect(second.allowed).toBe(true);
      expect(prompts()[1]).toContain("Example 1 (a similar step: share | args=");
      expect(prompts()[1]).toContain("finish({ label: /salar/i");
      expect(second.trace?.facts).toMatchObject({
        plan: { exemplars: [stored[0]] },
        memory: { retrieved: [{ id: stored[0] }] },
      });
    });

    it("stores nothing for a denied step or a failed plan", async () => {
      const e = engine({ store });
      const before = (await store.listWorkflows({ policy: "files", action: "shares_file" })).length;
      expect((await e.check({ policy, subject: subject([share("salaries.xlsx")], "task c") })).allowed).toBe(
        false,
      );
      planReply = "no plan";
      await e.check({ policy, subject: subject([share("menu3.pdf", "ann@corp.test")], "task d") });
      expect(await store.listWorkflows({ policy: "files", action: "shares_file" })).toHaveLength(before);
    });
  });
});
