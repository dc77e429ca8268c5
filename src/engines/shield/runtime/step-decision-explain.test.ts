import { describe, expect, it } from "vitest";
import { WardenError } from "../../../core/errors.js";
import type { Step } from "../../../core/subject.js";
import type { MlnResult } from "../mln/index.js";
import { DETECTORS, share, stageState } from "./step-decision.test-support.js";
import { assignStep, withAnswers } from "./step-decision-assign.js";
import { selectCircuits } from "./step-decision-circuits.js";
import { explainStep, type StepExplanation, stepTraceFacts } from "./step-decision-explain.js";
import { prepareVerification, verifyStep } from "./step-decision-verify.js";

/** The explain stage's input for the last of `steps`, verified with the given model answers. */
function explanation(steps: Step[], answers: Record<string, boolean>, epsilon = 0): StepExplanation {
  const state = stageState({ steps });
  const index = steps.length - 1;
  const a = assignStep({ state, steps, index, detectors: DETECTORS });
  const values = withAnswers({
    values: a,
    answers: Object.fromEntries(
      Object.entries(answers).map(([n, value]) => [n, { value, by: "model" as const }]),
    ),
  });
  const selection = selectCircuits({
    compiled: state.compiled,
    scoped: state.scoped,
    values,
    facts: a.facts,
    historyMatches: a.historyMatches,
  });
  const verification = prepareVerification({ state, selection, index, sampling: {}, epsilon });
  return {
    policy: { name: "stages", version: "1.0.0" },
    step: steps[index]!,
    index,
    action: a.facts.actionType,
    selection,
    values,
    operations: a.operations,
    notes: ["from earlier stages"],
    cost: { llmCalls: 1, inputTokens: 10, outputTokens: 2, ms: 0 },
    result: verifyStep({ verification, values }).result,
    epsilon,
  };
}

const external = share("bob@elsewhere.test");

describe("explain stage", () => {
  it("denies with one violation per violated rule, its clause and countermeasure", () => {
    const d = explainStep(explanation([external], { is_confidential: true, leaks_secret: false }));
    expect(d).toMatchObject({ allowed: false, verdict: "deny", engine: "shield", cost: { llmCalls: 1 } });
    expect(d.violations).toEqual([
      expect.objectContaining({
        ruleId: "conf",
        source: "files policy §1",
        countermeasure: "Share a redacted copy",
        details: expect.objectContaining({
          step: 0,
          phase: "step",
          predicates: expect.objectContaining({
            is_confidential: { value: true, operation: "binary-check" },
          }),
        }),
      }),
    ]);
    expect(d.explanation).toBe(
      "Step 0 (share) breaks a rule: Do not share confidential files outside the company (instead: Share a redacted copy)",
    );
    expect(d.trace?.notes).toEqual(["from earlier stages"]);
  });

  it("asks for confirmation when every violated rule only asks", () => {
    const d = explainStep(
      explanation([{ action: "delete", args: {}, url: "https://x.test/settings" }], {
        consented: false,
        leaks_secret: false,
      }),
    );
    expect(d).toMatchObject({ allowed: false, verdict: "ask", violations: [{ ruleId: "consent" }] });
  });

  it("allows, noting the rules tolerated within ε", () => {
    const ok = explainStep(explanation([external], { is_confidential: false, leaks_secret: false }));
    expect(ok.allowed).toBe(true);
    expect(ok.trace?.notes).toEqual(["from earlier stages"]);
    const tolerated = explainStep(explanation([external], { is_confidential: true, leaks_secret: false }, 5));
    expect(tolerated.allowed).toBe(true);
    expect(tolerated.trace?.notes?.[1]).toMatch(/^tolerated within ε = 5: conf \(Δ = -1\.0000\)$/);
  });

  it("allows a step that invokes no action, saying why", () => {
    const d = explainStep(explanation([{ action: "idle", args: {} }], { leaks_secret: false }));
    expect(d.allowed).toBe(true);
    expect(d.trace?.notes).toEqual([
      "from earlier stages",
      "no action predicate of the policy is invoked by this step",
    ]);
  });

  it("fails closed (or open) when the verdict depends on what the model could not answer", () => {
    const base = explanation([external], { leaks_secret: false });
    const failure = new WardenError({ code: "MODEL_TIMEOUT", message: "too slow" });
    const closed = explainStep({
      ...base,
      undecidable: { unanswered: ["is_confidential"], failure, failMode: "closed" },
    });
    expect(closed).toMatchObject({ allowed: false, failure: { code: "MODEL_TIMEOUT", mode: "closed" } });
    expect(closed.failure?.message).toBe(
      "the model could not answer is_confidential for step 0 (share), and the verdict depends on it (too slow)",
    );
    const open = explainStep({ ...base, undecidable: { unanswered: ["is_confidential"], failMode: "open" } });
    expect(open).toMatchObject({ allowed: true, failure: { code: "MODEL_UNAVAILABLE", mode: "open" } });
  });

  it("blames the circuit when the score drops with no single rule to blame", () => {
    const base = explanation([external], { is_confidential: true, leaks_secret: false });
    const result: MlnResult = { ...base.result, allowed: false, violated: [], delta: -0.25 };
    const d = explainStep({ ...base, result });
    expect(d.violations).toEqual([
      {
        ruleId: "shield.circuit",
        message:
          "The step lowers the policy score by 0.2500 (more than ε = 0) without a single rule to blame",
        details: { delta: -0.25, rules: ["conf"] },
      },
    ]);
  });

  it("traces what every stage did", () => {
    const facts = stepTraceFacts(explanation([external], { is_confidential: false, leaks_secret: false }));
    expect(facts).toMatchObject({
      step: 0,
      action: "share",
      invoked: ["shares_file"],
      possiblyInvoked: [],
      circuits: ["shares_file"],
      rules: ["conf"],
      answeredBy: { is_confidential: "model", leaks_secret: "model" },
      operationsUsed: ["binary-check", "formal-verify", "search"],
      formalVerify: { conf: { withAction: 1, withoutAction: 1 } },
      mln: { allowed: true, epsilon: 0, method: "hard" },
    });
    expect(facts.assignment).toMatchObject({
      shares_file: true,
      internal_share: false,
      is_confidential: false,
    });
    expect(facts).not.toHaveProperty("memory");
  });
});
