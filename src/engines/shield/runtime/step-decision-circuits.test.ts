import { describe, expect, it } from "vitest";
import type { Step } from "../../../core/subject.js";
import { DETECTORS, share, stageState } from "./step-decision.test-support.js";
import { assignStep } from "./step-decision-assign.js";
import { selectCircuits } from "./step-decision-circuits.js";

const select = (steps: Step[], scopes: string[] = []) => {
  const state = stageState({ steps, scopes });
  const a = assignStep({ state, steps, index: steps.length - 1, detectors: DETECTORS });
  return selectCircuits({
    compiled: state.compiled,
    scoped: state.scoped,
    values: a,
    facts: a.facts,
    historyMatches: a.historyMatches,
  });
};
const ids = (s: ReturnType<typeof select>) => s.rules.map((r) => r.rule.id);

describe("select-circuits stage", () => {
  it("selects the step rules of the invoked action's circuit, and the open action that may be invoked", () => {
    const s = select([share("bob@elsewhere.test")]);
    expect(s.invoked).toEqual(["shares_file"]);
    // No model assigned leaks_secret: the step may leak, so its circuit is checked too.
    expect(s.possible).toEqual(["leaks_secret"]);
    expect(s.circuitActions).toEqual(["shares_file", "leaks_secret"]);
    expect(ids(s)).toEqual(["conf", "no-leak"]);
    expect([...s.relevant].sort()).toEqual([
      "internal_share",
      "is_confidential",
      "leaks_secret",
      "shares_file",
    ]);
  });

  it("never selects end rules, and selects scoped rules only in their scope", () => {
    const del = select([{ action: "delete", args: {} }]);
    expect(del.invoked).toEqual(["deletes"]);
    expect(ids(del)).toEqual(["consent", "settings-first", "no-leak"]);
    expect(ids(del)).not.toContain("end-consent");
    expect(ids(select([share("x@corp.test")], ["mail"]))).toEqual(["conf", "no-leak", "mail-pii"]);
  });

  it("selects a history-bound action when the step performs it", () => {
    const s = select([{ action: "goto", args: {}, url: "https://x.test/settings" }]);
    expect(s.invoked).toEqual(["opened_settings"]);
    expect(ids(s)).toContain("settings-first");
  });

  it("treats a history-bound action whose condition the step cannot evaluate as possibly invoked", () => {
    const s = select([{ action: "write", args: { path: "~/notes.txt" } }]);
    expect(s.invoked).not.toContain("touches_tmp");
    expect(s.possible).toContain("touches_tmp");
    expect(ids(s)).toContain("tmp");
    expect(select([{ action: "write", args: { path: "/srv/notes.txt" } }]).possible).not.toContain(
      "touches_tmp",
    );
  });

  it("selects nothing for a step that surely invokes no action", () => {
    const steps: Step[] = [{ action: "idle", args: {} }];
    const open = select(steps);
    expect(open.invoked).toEqual([]);
    expect(ids(open)).toEqual(["no-leak"]);
    // Once the model said the step leaks nothing, no circuit applies.
    const state = stageState({ steps });
    const a = assignStep({ state, steps, index: 0, detectors: DETECTORS, reused: { leaks_secret: false } });
    const none = selectCircuits({
      compiled: state.compiled,
      scoped: state.scoped,
      values: a,
      facts: a.facts,
      historyMatches: a.historyMatches,
    });
    expect(none).toMatchObject({ invoked: [], possible: [], circuitActions: [], rules: [] });
    expect(none.relevant.size).toBe(0);
  });
});
