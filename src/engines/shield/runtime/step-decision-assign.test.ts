import { describe, expect, it } from "vitest";
import type { Step } from "../../../core/subject.js";
import { DETECTORS, STAGES_POLICY, share, stageState } from "./step-decision.test-support.js";
import {
  assignStep,
  operationOf,
  reusablePendingAnswers,
  type StepValues,
  withAnswers,
} from "./step-decision-assign.js";

const assign = (steps: Step[], reused?: Record<string, boolean>) =>
  assignStep({
    state: stageState({ steps }),
    steps,
    index: steps.length - 1,
    detectors: DETECTORS,
    ...(reused ? { reused } : {}),
  });

describe("assign stage", () => {
  it("assigns what the step determines and leaves ask-bound and undeclared predicates open", () => {
    const a = assign([share("bob@elsewhere.test")]);
    expect(a.values).toMatchObject({ shares_file: true, deletes: false, internal_share: false });
    expect(a.open).toEqual(
      expect.arrayContaining(["leaks_secret", "is_confidential", "consented", "mystery"]),
    );
    expect(a.open).not.toContain("shares_file");
    // Undeclared atoms come after the declared ones the assignment left open.
    expect(a.open.at(-1)).toBe("mystery");
    expect(a.answers).toEqual({});
    expect(a.facts.actionType).toBe("share");
  });

  it("names the operation behind every predicate", () => {
    const a = assign([share("ann@corp.test")]);
    expect(a.operations).toMatchObject({
      shares_file: "binary-check",
      is_confidential: "binary-check",
      opened_settings: "search",
      mystery: "unassigned",
    });
    expect(
      operationOf({ predicate: STAGES_POLICY.rules!.predicates!.find((p) => p.name === "has_pii") }),
    ).toBe("detect");
    expect(operationOf({ predicate: undefined })).toBe("unassigned");
  });

  it("lists the history-bound actions the step itself performs", () => {
    const steps: Step[] = [{ action: "goto", args: {}, url: "https://x.test/settings" }];
    expect(assign(steps).historyMatches).toEqual(["opened_settings"]);
    expect(assign([share("a@corp.test")]).historyMatches).toEqual([]);
  });

  it("keeps the model answers it is given as answered by the model", () => {
    const a = assign([share("bob@elsewhere.test")], { is_confidential: false });
    expect(a.values.is_confidential).toBe(false);
    expect(a.open).not.toContain("is_confidential");
    expect(a.answers).toEqual({ is_confidential: false });
    expect(a.answeredBy).toEqual({ is_confidential: "model" });
  });
});

describe("withAnswers", () => {
  const before: StepValues = { values: { a: true }, open: ["x", "y", "z"], answers: {}, answeredBy: {} };

  it("returns new values with the answers assigned and the open order kept, leaving its input alone", () => {
    const after = withAnswers({
      values: before,
      answers: { y: { value: true, by: "memory:w1" }, x: { value: false, by: "model" } },
    });
    expect(after).toEqual({
      values: { a: true, y: true, x: false },
      open: ["z"],
      answers: { y: true, x: false },
      answeredBy: { y: "memory:w1", x: "model" },
    });
    expect(before).toEqual({ values: { a: true }, open: ["x", "y", "z"], answers: {}, answeredBy: {} });
  });

  it("returns its input when there is nothing to add", () => {
    expect(withAnswers({ values: before, answers: {} })).toBe(before);
  });
});

describe("reusablePendingAnswers", () => {
  const pending = {
    index: 2,
    fingerprint: "f",
    shown: "s",
    values: {},
    open: [],
    operations: {},
    answers: { consented: true },
    historyMatches: [],
    notes: [],
  };

  it("reuses the pending step's answers only for the same step showing the same thing", () => {
    expect(reusablePendingAnswers({ pending, index: 2, fingerprint: "f", shown: "s" })).toEqual({
      consented: true,
    });
    expect(reusablePendingAnswers({ pending, index: 2, fingerprint: "f", shown: "other" })).toEqual({});
    expect(reusablePendingAnswers({ pending, index: 2, fingerprint: "g", shown: "s" })).toEqual({});
    expect(reusablePendingAnswers({ pending, index: 3, fingerprint: "f", shown: "s" })).toEqual({});
    expect(reusablePendingAnswers({ pending: undefined, index: 2, fingerprint: "f", shown: "s" })).toEqual(
      {},
    );
  });
});
