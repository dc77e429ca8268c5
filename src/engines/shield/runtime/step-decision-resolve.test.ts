import { describe, expect, it } from "vitest";
import { WardenError } from "../../../core/errors.js";
import type { Step } from "../../../core/subject.js";
import { createScriptedModel } from "../../../testing/scripted-model.js";
import { createInMemoryStore } from "./in-memory-store.test-support.js";
import { DETECTORS, STAGES_POLICY, share, stageState } from "./step-decision.test-support.js";
import { assignStep } from "./step-decision-assign.js";
import { selectCircuits } from "./step-decision-circuits.js";
import {
  neededQuestions,
  type Resolution,
  rememberWorkflow,
  resolveOpenPredicates,
  resolveSkipped,
  workflowPlan,
} from "./step-decision-resolve.js";
import { stepQuery } from "./workflow-memory.js";

const external = share("bob@elsewhere.test");
const reply = (answers: Record<string, "yes" | "no" | "unknown">) =>
  JSON.stringify({ answers: Object.entries(answers).map(([predicate, answer]) => ({ predicate, answer })) });

/** The inputs of the resolve stage for the last of `steps`. */
function stage(steps: Step[]) {
  const state = stageState({ steps });
  const index = steps.length - 1;
  const assigned = assignStep({ state, steps, index, detectors: DETECTORS });
  const selection = selectCircuits({
    compiled: state.compiled,
    scoped: state.scoped,
    values: assigned,
    facts: assigned.facts,
    historyMatches: assigned.historyMatches,
  });
  const ask = { input: state.input, steps, index };
  const inputs = {
    memoryK: 3,
    policy: STAGES_POLICY,
    predicates: state.scoped.predicates,
    rules: state.scoped.rules,
    selection,
    values: assigned,
    query: stepQuery({ facts: assigned.facts }),
  };
  return { state, assigned, selection, inputs, ask };
}

describe("resolve stage", () => {
  it("asks what the circuits read, plus what rules looking back or judged at the end need every step", () => {
    const { assigned, selection, state } = stage([external]);
    const questions = neededQuestions({
      predicates: state.scoped.predicates,
      rules: state.scoped.rules,
      open: assigned.open,
      relevant: selection.relevant,
    });
    // `consented` is read by no selected rule, but the end rule needs its value at every step.
    expect(questions.map((q) => q.predicate)).toEqual(["is_confidential", "consented", "leaks_secret"]);
    expect(questions[0]).toEqual({
      predicate: "is_confidential",
      question: "Is the file being shared confidential?",
    });
    // A predicate that has a value is not asked.
    expect(
      neededQuestions({
        predicates: state.scoped.predicates,
        rules: state.scoped.rules,
        open: assigned.open.filter((n) => n !== "consented"),
        relevant: selection.relevant,
      }).map((q) => q.predicate),
    ).not.toContain("consented");
  });

  it("without a model leaves the questions open and says so", async () => {
    const { inputs, assigned, ask } = stage([external]);
    const r = await resolveOpenPredicates({ ...inputs, ask: { ...ask, model: undefined }, store: undefined });
    expect(r.values).toBe(assigned);
    expect(r).toMatchObject({ asked: 0, failed: [], cost: { llmCalls: 0 } });
    expect(r.notes).toEqual([
      "no model configured: left open (marginalised): is_confidential, consented, leaks_secret",
    ]);
    expect(r.memory).toBeUndefined();
  });

  it("applies the model's answers in one call and leaves what it could not tell open", async () => {
    const { inputs, assigned, ask } = stage([external]);
    const model = createScriptedModel({
      replies: [reply({ leaks_secret: "no", is_confidential: "yes", consented: "unknown" })],
    });
    const r = await resolveOpenPredicates({ ...inputs, ask: { ...ask, model }, store: undefined });
    expect(model.requests).toHaveLength(1);
    expect(r.values.values).toMatchObject({ leaks_secret: false, is_confidential: true });
    expect(r.values.open).toContain("consented");
    expect(r.values.answeredBy).toEqual({ leaks_secret: "model", is_confidential: "model" });
    expect(r.asked).toBe(3);
    expect(r.cost.llmCalls).toBe(1);
    expect(r.notes).toEqual(["the model could not tell: consented"]);
    // The stage's input is not changed.
    expect(assigned.open).toContain("is_confidential");
  });

  it("records a model failure instead of throwing", async () => {
    const { inputs, ask } = stage([external]);
    const down = new WardenError({ code: "MODEL_UNAVAILABLE", message: "connection refused" });
    const r = await resolveOpenPredicates({
      ...inputs,
      ask: { ...ask, model: createScriptedModel({ replies: [down] }) },
      store: undefined,
    });
    expect(r.failed).toEqual(["is_confidential", "consented", "leaks_secret"]);
    expect(r.failure?.code).toBe("MODEL_UNAVAILABLE");
    expect(r.notes[0]).toMatch(/^binary-check failed \(MODEL_UNAVAILABLE\)/);
    expect(r.values.open).toEqual(expect.arrayContaining(["is_confidential", "consented", "leaks_secret"]));
  });

  it("remembers an allowed step's workflow and reuses its answers for the identical question", async () => {
    const store = createInMemoryStore();
    const first = stage([external]);
    const model = createScriptedModel({
      replies: [reply({ leaks_secret: "no", is_confidential: "no", consented: "no" })],
    });
    const asked = await resolveOpenPredicates({ ...first.inputs, ask: { ...first.ask, model }, store });
    expect(asked.memory).toEqual({
      retrieved: [],
      reusedAnswers: {},
      skipped: {},
      askedAfterAll: [],
      stored: [],
    });
    expect(Object.keys(asked.keys)).toEqual(["is_confidential", "consented", "leaks_secret"]);
    const plan = workflowPlan({
      rules: first.selection.rules,
      relevant: first.selection.relevant,
      operations: first.assigned.operations,
      predicates: first.state.compiled.predicates,
      resolution: asked,
      useful: { is_confidential: true, leaks_secret: true },
    });
    expect(plan.predicates.is_confidential).toEqual({
      operation: "binary-check",
      question: "Is the file being shared confidential?",
      key: asked.keys.is_confidential,
      value: false,
      useful: true,
    });
    expect(plan.predicates.shares_file).toEqual({ operation: "binary-check", value: true });
    const memory = await rememberWorkflow({
      store,
      policy: "stages",
      actions: first.selection.circuitActions,
      query: first.inputs.query,
      plan,
      memory: asked.memory!,
    });
    expect(memory.stored).toHaveLength(2);
    expect(asked.memory!.stored).toEqual([]);

    const again = stage([external]);
    const silent = createScriptedModel({ replies: [reply({ consented: "no" })] });
    const reused = await resolveOpenPredicates({
      ...again.inputs,
      ask: { ...again.ask, model: silent },
      store,
    });
    expect(reused.values.answeredBy.is_confidential).toMatch(/^memory:/);
    expect(reused.memory?.reusedAnswers).toMatchObject({ is_confidential: store.workflows[0]!.id });
    // `consented` is read by no circuit rule, so it is not in the stored plan: the model is asked.
    expect(silent.requests).toHaveLength(1);
    expect(reused.asked).toBe(1);
  });

  it("asks held-back questions only when the verdict needs them", async () => {
    const { assigned, selection, ask: shown } = stage([external]);
    const q = { predicate: "is_confidential", question: "Is the file being shared confidential?" };
    const held: Resolution = {
      values: assigned,
      questions: [q],
      keys: {},
      skipped: [q],
      failed: [],
      asked: 0,
      notes: [],
      cost: { llmCalls: 0, inputTokens: 0, outputTokens: 0, ms: 0 },
      memory: {
        retrieved: [],
        reusedAnswers: {},
        skipped: { is_confidential: "w1" },
        askedAfterAll: [],
        stored: [],
      },
    };
    const model = createScriptedModel({ replies: [reply({ is_confidential: "yes" })] });
    const ask = { ...shown, model };
    const kept = await resolveSkipped({
      ask,
      resolution: held,
      needed: false,
      relevant: selection.relevant,
    });
    expect(kept.notes).toEqual([
      "skipped binary-check of is_confidential: the verdict does not depend on them",
    ]);
    expect(model.requests).toHaveLength(0);
    const after = await resolveSkipped({
      ask,
      resolution: held,
      needed: true,
      relevant: selection.relevant,
    });
    expect(model.requests).toHaveLength(1);
    expect(after.values.values.is_confidential).toBe(true);
    expect(after.skipped).toEqual([]);
    expect(after.memory).toMatchObject({ skipped: {}, askedAfterAll: ["is_confidential"] });
    expect(held.memory?.skipped).toEqual({ is_confidential: "w1" });
  });
});
