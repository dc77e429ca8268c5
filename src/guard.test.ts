import { describe, expect, it } from "vitest";
import { createGuard } from "./guard.js";

describe("createGuard", () => {
  it("guards tool calls with a bundled policy and no model", async () => {
    const guard = await createGuard({ policy: "mcp-tools" });
    try {
      const deny = await guard.check({
        input: "Clean up the old prototype repository.",
        output: JSON.stringify({
          method: "tools/call",
          params: { name: "github.delete_repository", arguments: { repo: "acme/proto" } },
        }),
      });
      expect(deny).toMatchObject({ allowed: false, verdict: "deny", engine: "auto/compiled" });
      expect(deny.violations[0]?.ruleId).toBe("tool.no-repo-deletion");
      expect(deny.violations[0]?.source).toContain("Never delete a repository");
      const allow = await guard.check({
        input: "File a bug.",
        output: JSON.stringify({
          name: "github.create_issue",
          arguments: { repo: "acme/web", title: "bug" },
        }),
      });
      expect(allow.allowed).toBe(true);
    } finally {
      await guard.close();
    }
  });

  it("checks a tool call by name and arguments, with the provider's name for the policy's tool", async () => {
    const guard = await createGuard({ policy: "mcp-tools" });
    try {
      const deny = await guard.checkToolCall({
        name: "github_delete_repository",
        arguments: { repo: "acme/x" },
      });
      expect(deny).toMatchObject({ allowed: false, verdict: "deny" });
      expect(deny.violations[0]?.ruleId).toBe("tool.no-repo-deletion");
      const ask = await guard.checkToolCall({ name: "github.merge_pull_request", arguments: { number: 7 } });
      expect(ask.verdict).toBe("ask");
      const allow = await guard.checkToolCall({
        name: "github_create_issue",
        arguments: { repo: "acme/web", title: "bug" },
        input: "File a bug.",
        history: [{ action: "github.comment", args: { body: "looking" }, observation: "ok" }],
      });
      expect(allow.allowed).toBe(true);
      await expect(guard.checkToolCall({ name: "x", arguments: "rm -rf /" } as never)).rejects.toThrow(
        /call\.arguments/,
      );
    } finally {
      await guard.close();
    }
  });

  it("rejects a bad subject naming the field", async () => {
    const guard = await createGuard({ policy: "mcp-tools" });
    try {
      await expect(guard.check({ input: 3 } as never)).rejects.toThrow(/subject\.input/);
    } finally {
      await guard.close();
    }
  });
});
