import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WardenError } from "../../../core/errors.js";
import { type Policy, PolicySchema } from "../../../core/policy.js";
import type { Step } from "../../../core/subject.js";
import { createModelClient } from "../../../llm/create-model-client.js";
import { createSqliteStore } from "../../../store/sqlite-store.js";
import type { ModelServer } from "../../../testing/model-server-common.js";
import { startOpenAIServer } from "../../../testing/openai-server.js";
import { createScriptedModel } from "../../../testing/scripted-model.js";
import { buildStepFacts } from "../assign/step-facts.js";
import { createInMemoryStore } from "./in-memory-store.test-support.js";
import { createShieldEngine } from "./shield-engine.js";
import { stepQuery } from "./workflow-memory.js";

const policy: Policy = PolicySchema.parse({
  name: "files",
  specification: "An assistant that manages files in a drive.",
  requests: "Never share confidential files, unless the share stays inside the company.",
  rules: {
    predicates: [
      {
        name: "shares_file",
        kind: "action",
        description: "shares a file",
        binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "share" } },
      },
      {
        name: "is_confidential",
        kind: "state",
        description: "the shared file is confidential",
        binding: { kind: "ask", question: "Is the file being shared confidential?" },
      },
      {
        name: "internal_share",
        kind: "state",
        description: "the recipient is inside the company",
        binding: { kind: "condition", when: { field: "args.to", op: "endsWith", value: "@corp.test" } },
      },
    ],
    temporalRules: [
      {
        id: "no-confidential-shares",
        formula: "G(shares_file & !internal_share -> !is_confidential)",
        description: "Do not share confidential files outside the company",
        countermeasure: "Share a redacted copy or ask the data owner",
        source: "drive policy §4.1",
      },
    ],
  },
});

const external = (file: string): Step => ({ action: "share", args: { file, to: "bob@elsewhere.test" } });
const internal = (file: string): Step => ({ action: "share", args: { file, to: "ann@corp.test" } });
const subject = (steps: Step[], id?: string) => ({
  input: "share the files",
  output: "",
  trajectory: steps,
  ...(id ? { id } : {}),
});
const answer = (value: "yes" | "no" | "unknown") =>
  JSON.stringify({ answers: [{ predicate: "is_confidential", answer: value }] });

describe("shield with a model (Binary-Check)", () => {
  it("asks the model and decides with its answer", async () => {
    const model = createScriptedModel({ replies: [answer("yes"), answer("no")] });
    const engine = createShieldEngine({ model });
    const denied = await engine.check({ policy, subject: subject([external("salaries.xlsx")]) });
    expect(denied).toMatchObject({
      allowed: false,
      verdict: "deny",
      violations: [{ ruleId: "no-confidential-shares" }],
    });
    expect(denied.cost.llmCalls).toBe(1);
    expect(denied.cost.inputTokens).toBeGreaterThan(0);
    expect(denied.trace?.facts).toMatchObject({
      answeredBy: { is_confidential: "model" },
      operations: { is_confidential: "binary-check" },
    });
    expect(model.requests[0]?.messages.at(-1)?.content).toContain("Is the file being shared confidential?");
    const allowed = await engine.check({ policy, subject: subject([external("menu.pdf")]) });
    expect(allowed.allowed).toBe(true);
  });

  it("without a model marginalises the question: ε = 0 denies a 50% risk, ε = 0.5 tolerates it", async () => {
    const strict = await createShieldEngine().check({ policy, subject: subject([external("x")]) });
    expect(strict.allowed).toBe(false);
    expect(strict.violations[0]?.details).toMatchObject({
      probability: { withAction: expect.closeTo(Math.E / (1 + Math.E), 9), withoutAction: 1 },
      predicates: { is_confidential: { value: null, operation: "binary-check" } },
    });
    expect(strict.trace?.facts).toMatchObject({
      mln: { method: "exact", delta: expect.closeTo(Math.log((1 + Math.exp(-1)) / 2), 9) },
    });
    expect(
      (await createShieldEngine({ epsilon: 0.5 }).check({ policy, subject: subject([external("x")]) }))
        .allowed,
    ).toBe(true);
  });

  it("fails closed when the model is down and the verdict depends on its answer (open if configured)", async () => {
    const down = () => new WardenError({ code: "MODEL_UNAVAILABLE", message: "connection refused" });
    const closed = await createShieldEngine({ model: createScriptedModel({ replies: [down()] }) }).check({
      policy,
      subject: subject([external("x")]),
    });
    expect(closed).toMatchObject({
      allowed: false,
      verdict: "deny",
      failure: { code: "MODEL_UNAVAILABLE", mode: "closed" },
    });
    expect(closed.failure?.message).toContain("is_confidential");
    const open = await createShieldEngine({
      model: createScriptedModel({ replies: [down()] }),
      failMode: "open",
    }).check({
      policy,
      subject: subject([external("x")]),
    });
    expect(open).toMatchObject({ allowed: true, failure: { mode: "open" } });
    // An internal share is fine whatever the answer would have been.
    const fine = await createShieldEngine({ model: createScriptedModel({ replies: [down()] }) }).check({
      policy,
      subject: subject([internal("x")]),
    });
    expect(fine.allowed).toBe(true);
    expect(fine.failure).toBeUndefined();
    expect(fine.trace?.notes?.join(" ")).toContain("the verdict is the same whatever the answers");
  });

  it("marginalises an action predicate nobody can assign as possibly invoked", async () => {
    const p = PolicySchema.parse({
      name: "p",
      specification: "",
      requests: "",
      rules: {
        predicates: [
          {
            name: "leaks_secret",
            kind: "action",
            description: "leaks a secret",
            binding: { kind: "ask", question: "Does this step leak a secret?" },
          },
        ],
        temporalRules: [{ id: "no-leak", formula: "G !leaks_secret", description: "Never leak secrets" }],
      },
    });
    const d = await createShieldEngine().check({ policy: p, subject: subject([external("x")]) });
    expect(d.allowed).toBe(false);
    expect(d.trace?.facts).toMatchObject({ possiblyInvoked: ["leaks_secret"], invoked: [] });
    const said = createScriptedModel({
      replies: [JSON.stringify({ answers: [{ predicate: "leaks_secret", answer: "no" }] })],
    });
    expect(
      (await createShieldEngine({ model: said }).check({ policy: p, subject: subject([external("x")]) }))
        .allowed,
    ).toBe(true);
  });

  it("stores successful workflows and reuses an identical step's answer instead of asking again", async () => {
    const store = createInMemoryStore();
    const model = createScriptedModel({ replies: [answer("no")] });
    const engine = createShieldEngine({ model, store });
    const first = await engine.check({ policy, subject: subject([external("menu.pdf")], "a") });
    expect(first.allowed).toBe(true);
    expect(store.workflows).toHaveLength(1);
    expect(store.workflows[0]).toMatchObject({
      policy: "files",
      action: "shares_file",
      verdict: "allow",
      plan: {
        kind: "warden.shield-workflow",
        predicates: { is_confidential: { operation: "binary-check", value: false, useful: true } },
      },
    });
    const second = await engine.check({ policy, subject: subject([external("menu.pdf")], "b") });
    expect(second.allowed).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect(second.cost.llmCalls).toBe(0);
    expect(second.trace?.facts).toMatchObject({
      answeredBy: { is_confidential: `memory:${store.workflows[0]!.id}` },
      memory: { reusedAnswers: { is_confidential: store.workflows[0]!.id } },
    });
  });

  it("reuses a remembered answer only for the identical question: another task asks the model again", async () => {
    const consent = PolicySchema.parse({
      name: "projects",
      version: "1.0.0",
      specification: "An agent that manages projects in a web app.",
      requests: "Delete a project only with the user's consent.",
      rules: {
        predicates: [
          {
            name: "deletes",
            kind: "action",
            description: "clicks a delete button",
            binding: { kind: "condition", when: { field: "actionType", op: "eq", value: "click" } },
          },
          {
            name: "consented",
            kind: "state",
            description: "the user consented to this deletion",
            binding: { kind: "ask", question: "Did the user consent to this deletion?" },
          },
        ],
        temporalRules: [{ id: "consent", formula: "G(deletes -> consented)", description: "Ask first" }],
      },
    });
    const click: Step = {
      action: "click",
      args: {},
      element: "Delete",
      url: "https://git.test/demo/settings",
    };
    const task = (input: string, id: string) => ({ input, output: "", trajectory: [click], id });
    const yes = JSON.stringify({ answers: [{ predicate: "consented", answer: "yes" }] });
    const store = createInMemoryStore();
    const model = createScriptedModel({ replies: [yes, (_) => JSON.stringify({ answers: [] })] });
    const engine = createShieldEngine({ model, store });
    const learned = await engine.check({ policy: consent, subject: task("Delete the project demo", "a") });
    expect(learned.allowed).toBe(true);
    expect(store.workflows).toHaveLength(1);
    expect(store.workflows[0]!.plan).toMatchObject({
      predicates: { consented: { value: true, key: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) } },
    });
    // Same click, same page, another task: the remembered "yes" is not this question's answer.
    const other = await engine.check({ policy: consent, subject: task("List the open issues", "b") });
    expect(model.requests).toHaveLength(2);
    expect(other.cost.llmCalls).toBe(1);
    expect(other.trace?.facts).not.toMatchObject({
      answeredBy: { consented: expect.stringMatching(/^memory:/) },
    });
    expect(other.trace?.facts).toMatchObject({ memory: { reusedAnswers: {} } });
    const otherMemory = other.trace?.facts?.memory as { reusedAnswers: object } | undefined;
    expect(Object.keys(otherMemory?.reusedAnswers ?? { missing: true })).toEqual([]);
    // The model could not tell: the predicate stays open (marginalised) and the click is not allowed.
    expect(other.allowed).toBe(false);
    // The identical question (same task, same history, same step) reuses the answer without a call.
    const again = await engine.check({ policy: consent, subject: task("Delete the project demo", "c") });
    expect(again.allowed).toBe(true);
    expect(again.cost.llmCalls).toBe(0);
    expect(model.requests).toHaveLength(2);
    expect(again.trace?.facts).toMatchObject({
      memory: { reusedAnswers: { consented: store.workflows[0]!.id } },
    });
    // A new version of the policy, or another model, is another question.
    const bumped = createShieldEngine({ model: createScriptedModel({ replies: [yes] }), store });
    const v2 = await bumped.check({
      policy: { ...consent, version: "1.0.1" },
      subject: task("Delete the project demo", "d"),
    });
    expect(v2.cost.llmCalls).toBe(1);
    const otherModel = createScriptedModel({ id: "scripted:other", replies: [yes] });
    const m2 = await createShieldEngine({ model: otherModel, store }).check({
      policy: consent,
      subject: task("Delete the project demo", "e"),
    });
    expect(m2.cost.llmCalls).toBe(1);
  });

  it("a re-check of the same step reuses its answers only when the step shows the model the same thing", async () => {
    const model = createScriptedModel({ replies: [answer("no"), answer("yes")] });
    const engine = createShieldEngine({ model });
    const step = (observation: string): Step => ({ ...external("report.pdf"), observation });
    const first = await engine.check({ policy, subject: subject([step("A public menu.")], "t") });
    expect(first.allowed).toBe(true);
    const same = await engine.check({ policy, subject: subject([step("A public menu.")], "t") });
    expect(same.allowed).toBe(true);
    expect(model.requests).toHaveLength(1);
    // Same action and arguments, another page: another question, asked again.
    const other = await engine.check({ policy, subject: subject([step("CONFIDENTIAL salaries")], "t") });
    expect(model.requests).toHaveLength(2);
    expect(other.allowed).toBe(false);
  });

  it("finds the identical question's answer however many similar workflows other tasks stored", async () => {
    const store = createInMemoryStore();
    const model = createScriptedModel({ replies: [answer("no"), answer("no"), answer("no"), answer("no")] });
    const engine = createShieldEngine({ model, store, memoryK: 1 });
    await engine.check({ policy, subject: { ...subject([external("menu.pdf")], "a"), input: "task 0" } });
    for (const t of ["task 1", "task 2", "task 3"])
      await engine.check({ policy, subject: { ...subject([external("menu.pdf")], t), input: t } });
    expect(model.requests).toHaveLength(4);
    const again = await engine.check({
      policy,
      subject: { ...subject([external("menu.pdf")], "z"), input: "task 0" },
    });
    expect(again.cost.llmCalls).toBe(0);
    expect(again.trace?.facts).toMatchObject({
      memory: { reusedAnswers: { is_confidential: store.workflows[0]!.id } },
    });
  });

  it("keeps its workflows in the SQLite store", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    try {
      const model = createScriptedModel({ replies: [answer("no")] });
      const engine = createShieldEngine({ model, store });
      await engine.check({ policy, subject: subject([external("menu.pdf")], "a") });
      const again = await engine.check({ policy, subject: subject([external("menu.pdf")], "b") });
      expect(model.requests).toHaveLength(1);
      expect(again.allowed).toBe(true);
      const stored = await store.listWorkflows({ policy: "files", action: "shares_file" });
      expect(stored).toHaveLength(1);
      expect(stored[0]!.plan).toMatchObject({ kind: "warden.shield-workflow" });
    } finally {
      await store.close();
    }
  });

  it("skips a check a similar workflow found useless, unless the verdict needs it", async () => {
    const store = createInMemoryStore();
    const query = stepQuery({ facts: buildStepFacts({ step: internal("plan.txt"), index: 0 }) });
    await store.addWorkflow({
      workflow: {
        policy: "files",
        action: "shares_file",
        query,
        verdict: "allow",
        plan: {
          kind: "warden.shield-workflow",
          version: 1,
          rules: ["no-confidential-shares"],
          predicates: {
            is_confidential: {
              operation: "binary-check",
              question: "Is the file being shared confidential?",
              value: false,
              useful: false,
            },
          },
        },
      },
    });
    const model = createScriptedModel({ replies: [answer("yes")] });
    const engine = createShieldEngine({ model, store });
    // Internal share: the answer cannot matter, so the model is not asked.
    const skipped = await engine.check({ policy, subject: subject([internal("plan2.txt")], "c") });
    expect(skipped.allowed).toBe(true);
    expect(model.requests).toHaveLength(0);
    expect(skipped.trace?.facts).toMatchObject({
      memory: { skipped: { is_confidential: expect.any(String) } },
    });
    // External share with a similar text: the verdict depends on it, so the model is asked after all.
    const asked = await engine.check({
      policy,
      subject: subject([{ action: "share", args: { file: "plan2.txt", to: "ann@corp.tes" } }], "d"),
    });
    expect(model.requests).toHaveLength(1);
    expect(asked.allowed).toBe(false);
    expect(asked.trace?.facts).toMatchObject({ memory: { askedAfterAll: ["is_confidential"] } });
  });
});

describe("shield Binary-Check through a loopback OpenAI-compatible server", () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startOpenAIServer({
      respond: ({ messages }) =>
        messages.at(-1)?.content.includes("salaries") ? answer("yes") : answer("no"),
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it("answers through the real client code path", async () => {
    const model = createModelClient({
      spec: "openai-compatible:test-model",
      baseUrl: server.url,
      maxRetries: 0,
      timeoutMs: 5_000,
    });
    const engine = createShieldEngine({ model });
    expect((await engine.check({ policy, subject: subject([external("salaries.xlsx")]) })).allowed).toBe(
      false,
    );
    expect((await engine.check({ policy, subject: subject([external("menu.pdf")]) })).allowed).toBe(true);
    expect(server.requests).toHaveLength(2);
  });
});
