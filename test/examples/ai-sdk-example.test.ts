/**
 * The AI SDK example runs as the README says (offline, through the loopback server): the outside
 * address is refused with feedback, and the model's corrected call is the only email sent.
 */
import { describe, expect, it } from "vitest";
import { runExample } from "../../examples/ai-sdk/guarded-agent.js";

describe("examples/ai-sdk/guarded-agent.ts", () => {
  it("refuses the outside email, and the agent sends the corrected one", async () => {
    const run = await runExample();
    expect(run.sent).toEqual(["bob@example.com"]);
    expect(run.transcript[0]).toContain("tool.email-internal-only");
    expect(run.answer).toContain("Bob");
  });
});
