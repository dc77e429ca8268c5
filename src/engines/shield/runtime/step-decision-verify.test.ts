import { describe, expect, it } from "vitest";
import type { Step } from "../../../core/subject.js";
import { DETECTORS, share, stageState } from "./step-decision.test-support.js";
import { assignStep, type StepValues, withAnswers } from "./step-decision-assign.js";
import { selectCircuits } from "./step-decision-circuits.js";
import {
  breachedActions,
  prepareVerification,
  ROBUST_LIMIT,
  settleUnanswered,
  usefulAnswers,
  verdictIsRobust,
  verifyStep,
} from "./step-decision-verify.js";

/** The verification of the last of `steps`, with its values (model answers as given). */
function prepared(steps: Step[], answers: Record<string, boolean> = {}, epsilon = 0) {
  const state = stageState({ steps });
  const index = steps.length - 1;
  const a = assignStep({ state, steps, index, detectors: DETECTORS });
  const values: StepValues = withAnswers({
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
  return { state, values, selection, verification };
}

const external = share("bob@elsewhere.test");
const internal = share("ann@corp.test");

describe("verify stage", () => {
  it("denies the action that breaks a rule and allows the one that does not", () => {
    const leak = prepared([external], { is_confidential: true, leaks_secret: false });
    expect(verifyStep(leak).result).toMatchObject({ allowed: false, method: "hard" });
    expect(verifyStep(leak).result.violated.map((v) => v.id)).toEqual(["conf"]);
    const fine = prepared([external], { is_confidential: false, leaks_secret: false });
    expect(verifyStep(fine).result.allowed).toBe(true);
  });

  it("marginalises what is open: ε = 0 denies the risk, a large ε tolerates it", () => {
    const open = prepared([external], { leaks_secret: false });
    const strict = verifyStep(open).result;
    expect(strict).toMatchObject({
      allowed: false,
      method: "exact",
      unassigned: { plus: ["is_confidential"] },
    });
    expect(verifyStep({ ...prepared([external], { leaks_secret: false }, 0.5) }).result.allowed).toBe(true);
  });

  it("answers what-ifs without touching the values", () => {
    const p = prepared([external], { leaks_secret: false });
    const snapshot = structuredClone({ values: p.values.values, open: p.values.open });
    expect(verifyStep({ ...p, fixed: { is_confidential: false } }).result.allowed).toBe(true);
    expect(verifyStep({ ...p, fixed: { is_confidential: true } }).result.allowed).toBe(false);
    expect([...verifyStep({ ...p, alsoOpen: ["internal_share"] }).result.unassigned.plus].sort()).toEqual([
      "internal_share",
      "is_confidential",
    ]);
    expect({ values: p.values.values, open: p.values.open }).toEqual(snapshot);
  });

  it("reads μ− with the invoked and the possibly invoked actions undone", () => {
    const p = prepared([external], { is_confidential: true });
    expect(p.verification.minusOverrides).toEqual({ shares_file: false, leaks_secret: false });
    expect(p.verification.mlnRules.map((r) => r.id)).toEqual(["conf", "no-leak"]);
    // Once the model said the step leaks nothing, its circuit is not verified.
    const answered = prepared([external], { is_confidential: true, leaks_secret: false });
    expect(answered.verification.minusOverrides).toEqual({ shares_file: false });
    expect(answered.verification.mlnRules.map((r) => r.id)).toEqual(["conf"]);
  });

  it("tells whether the verdict depends on a few predicates", () => {
    const ext = prepared([external], { leaks_secret: false });
    expect(verdictIsRobust({ ...ext, names: ["is_confidential"] })).toEqual({ robust: false, tried: 2 });
    const int = prepared([internal], { leaks_secret: false });
    expect(verdictIsRobust({ ...int, names: ["is_confidential"] })).toEqual({
      robust: true,
      verdict: true,
      tried: 2,
    });
    // Predicates no selected rule reads cannot matter.
    expect(verdictIsRobust({ ...ext, names: ["consented"] })).toEqual({ robust: true, tried: 0 });
    expect(ROBUST_LIMIT).toBeGreaterThan(0);
  });

  it("settles unanswered predicates: undecidable when the verdict depends on them", () => {
    const ext = prepared([external], { leaks_secret: false });
    const verdict = verifyStep(ext);
    expect(settleUnanswered({ ...ext, failed: ["is_confidential"], verdict })).toEqual({
      decidable: false,
      unanswered: ["is_confidential"],
    });
    const int = prepared([internal], { leaks_secret: false });
    const settled = settleUnanswered({ ...int, failed: ["is_confidential"], verdict: verifyStep(int) });
    expect(settled).toMatchObject({ decidable: true, verdict: { result: { allowed: true } } });
    expect(settled.decidable && settled.note).toContain("the verdict is the same whatever the answers");
    // A failure on a predicate that got a value after all (or is irrelevant) changes nothing.
    const none = settleUnanswered({ ...int, failed: ["consented"], verdict: verifyStep(int) });
    expect(none).toEqual({ decidable: true, verdict: verifyStep(int) });
  });

  it("finds which of the model's answers the verdict needed", () => {
    const ext = prepared([external], { is_confidential: false, leaks_secret: false });
    expect(usefulAnswers({ ...ext, allowed: true })).toEqual({ is_confidential: true });
    const int = prepared([internal], { is_confidential: false, leaks_secret: false });
    expect(usefulAnswers({ ...int, allowed: true })).toEqual({ is_confidential: false });
  });

  it("counts every further action under a rule the trajectory already broke as breaking it again", () => {
    const steps: Step[] = [
      { action: "delete", args: {} },
      { action: "delete", args: {} },
    ];
    const p = prepared(steps, { consented: true, leaks_secret: false });
    // Step 0 deleted without consent (committed as false) and without opening the settings first:
    // both rules are broken for good, so step 1's deletion breaks them again even with consent now.
    expect(p.selection.rules.map((r) => r.rule.id)).toEqual(["consent", "settings-first"]);
    expect(breachedActions({ ...p.state, rules: p.selection.rules, state: p.state })).toEqual([
      ["deletes"],
      ["deletes", "opened_settings"],
    ]);
    expect(verifyStep(p).result.violated.map((v) => v.id)).toEqual(["consent", "settings-first"]);
    expect(verifyStep(p).result.allowed).toBe(false);
  });
});
