/**
 * End to end with a real Guard: the bundled mcp-tools policy guards LangChain tools named as a provider
 * spells them (`github_delete_repository` for the policy's `github.delete_repository`), in an agent loop
 * over a scripted chat model. The denied call never runs, the model reads the rule, and its next call
 * (an issue instead) is allowed and runs; in "throw" mode the same call ends the run.
 */
import { tool } from "@langchain/core/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGuard, type Guard } from "../../guard.js";
import { WardenToolDeniedError, wardenTools } from "./index.js";
import { runAgent, ScriptedChatModel, toolMessages } from "./scripted-chat-model.test-support.js";

let guard: Guard;

beforeAll(async () => {
  guard = await createGuard({ policy: "mcp-tools" });
});

afterAll(async () => {
  await guard?.close();
});

function githubTools() {
  const ran: string[] = [];
  const deleteRepository = tool(
    async ({ repo }: { repo: string }) => {
      ran.push(`delete ${repo}`);
      return `deleted ${repo}`;
    },
    {
      name: "github_delete_repository",
      description: "Delete a repository",
      schema: z.object({ repo: z.string() }),
    },
  );
  const createIssue = tool(
    async ({ repo, title }: { repo: string; title: string }) => {
      ran.push(`issue ${repo}: ${title}`);
      return `opened an issue in ${repo}`;
    },
    {
      name: "github_create_issue",
      description: "Open an issue",
      schema: z.object({ repo: z.string(), title: z.string() }),
    },
  );
  return { ran, list: [deleteRepository, createIssue] };
}

function deleteThenIssue(seen: string[]) {
  return new ScriptedChatModel(({ messages, step }) => {
    const results = toolMessages(messages);
    if (step === 0)
      return { calls: [{ name: "github_delete_repository", args: { repo: "acme/old" }, id: "c1" }] };
    if (step === 1) {
      seen.push(String(results.get("c1")?.content));
      return {
        calls: [
          { name: "github_create_issue", args: { repo: "acme/old", title: "Archive this repo" }, id: "c2" },
        ],
      };
    }
    seen.push(String(results.get("c2")?.content));
    return { text: "Opened an issue to archive acme/old." };
  });
}

describe("wardenTools with a real Guard", () => {
  it("a denied call never runs; the model reads why and its next call runs", async () => {
    const { ran, list } = githubTools();
    const tools = await wardenTools({ guard, tools: list, input: "Get rid of acme/old" });
    const seen: string[] = [];
    const result = await runAgent({ model: deleteThenIssue(seen), tools, task: "Get rid of acme/old" });
    expect(ran).toEqual(["issue acme/old: Archive this repo"]);
    expect(seen[0]).toContain("tool.no-repo-deletion");
    expect(seen[0]).toContain("Deleting a repository is never allowed");
    expect(seen[1]).toBe("opened an issue in acme/old");
    expect(result.text).toBe("Opened an issue to archive acme/old.");
  });

  it("throw: the denied call ends the run", async () => {
    const { ran, list } = githubTools();
    const tools = await wardenTools({ guard, tools: list, mode: "throw" });
    const error = await runAgent({ model: deleteThenIssue([]), tools, task: "Get rid of acme/old" }).catch(
      (e: unknown) => e,
    );
    expect(WardenToolDeniedError.is(error)).toBe(true);
    expect((error as WardenToolDeniedError).decision.violations[0]?.ruleId).toBe("tool.no-repo-deletion");
    expect(ran).toEqual([]);
  });
});
