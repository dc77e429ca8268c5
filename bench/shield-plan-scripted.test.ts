import { describe, expect, it } from "vitest";
import { runShieldPlanScripted, shieldPlanScriptedMarkdown } from "./shield-plan-scripted.js";

describe("the report's shielding-plan section (scripted model)", () => {
  it("counts the calls per trajectory, shows exemplars and stored workflows, and claims no accuracy", async () => {
    const result = await runShieldPlanScripted();
    const row = (scenario: string, policy: "planned" | "bound") =>
      result.rows.find((r) => r.scenario === scenario && r.policy === policy)!;
    // Every predicate bound without a model: no call at all.
    expect(result.totals.bound).toBe(0);
    expect(result.rows.filter((r) => r.policy === "bound").every((r) => r.modelCalls === 0)).toBe(true);
    expect(row("share a menu outside", "planned")).toMatchObject({
      verdict: "allow",
      modelCalls: 1,
      planCalls: 1,
      operations: { is_confidential: "formal-verify", owner_approved: "search" },
      exemplarsShown: 0,
      workflowsStored: 1,
    });
    expect(row("share salaries outside", "planned")).toMatchObject({ verdict: "deny", workflowsStored: 0 });
    expect(row("approve, then share salaries outside", "planned").verdict).toBe("allow");
    expect(row("share a second menu outside", "planned").exemplarsShown).toBeGreaterThan(0);
    expect(row("share q3 figures outside", "planned")).toMatchObject({
      verdict: "deny",
      modelCalls: 2,
      binaryCheckCalls: 1,
    });
    expect(row("share a menu, unparseable plan", "planned")).toMatchObject({
      verdict: "deny",
      failure: "MODEL_OUTPUT_INVALID",
      exemplarsShown: 3,
    });
    // Each re-ask of an unparseable plan is counted as a call.
    for (const r of result.rows) expect(r.modelCalls).toBe(r.planCalls + r.binaryCheckCalls);
    expect(row("share inside, unparseable plan", "planned").verdict).toBe("allow");
    // The planned and bound policies agree wherever the plan was usable.
    for (const r of result.rows.filter(
      (x) => x.policy === "planned" && !x.failure && !x.scenario.includes("q3"),
    ))
      expect(r.verdict).toBe(row(r.scenario, "bound").verdict);
    const md = shieldPlanScriptedMarkdown({ result }).join("\n");
    expect(md).toContain("## Shielding plan, run with a scripted model (call counts, no accuracy)");
    expect(md).toContain(
      "| share a menu outside | planned | allow | 1 (1 + 0) | is_confidential: formal-verify, owner_approved: search | 0 | 1 |",
    );
    expect(md).not.toMatch(/accuracy:|recall|precision|\d+(\.\d+)?\s?%/i);
  });
});
