import { describe, expect, it } from "vitest";
import { denyDecision } from "../core/decision.js";
import { refusalText } from "./refusal.js";

describe("refusalText", () => {
  it("says the call did not run, which rules it broke, why, and what to do instead", () => {
    const decision = denyDecision({
      engine: "compiled",
      violations: [
        {
          ruleId: "tool.no-repo-deletion",
          message: "Deleting a repository is never allowed",
          source: "requests.md rule 1",
          countermeasure: "Archive the repository instead",
        },
      ],
      explanation: "denied",
    });
    const text = refusalText({ decision, tool: "github_delete_repository" });
    expect(text).toContain("github_delete_repository");
    expect(text).toContain("did not run");
    expect(text).toContain(
      "tool.no-repo-deletion: Deleting a repository is never allowed (requests.md rule 1)",
    );
    expect(text).toContain("Instead: Archive the repository instead");
  });

  it("stays bounded however many rules a call breaks", () => {
    const violations = Array.from({ length: 500 }, (_, i) => ({ ruleId: `r${i}`, message: "x".repeat(100) }));
    const text = refusalText({ decision: denyDecision({ engine: "compiled", violations }), tool: "t" });
    expect(text.length).toBeLessThanOrEqual(4000);
  });
});
