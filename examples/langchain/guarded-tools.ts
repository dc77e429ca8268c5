/**
 * Warden guarding LangChain tools, offline. `wardenTools` wraps the tools (same names and schemas); a
 * small agent loop runs a scripted chat model — a subclass of @langchain/core's BaseChatModel, standing in
 * for ChatOpenAI & co. (@langchain/openai would talk to Warden's loopback server the same way). The model
 * first asks to delete a repository, which the bundled mcp-tools policy refuses; it reads the refusal in
 * the ToolMessage and opens an issue instead, which runs.
 *
 *   npm install warden @langchain/core     (in this repository: npm run build)
 *   npx tsx examples/langchain/guarded-tools.ts
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { createGuard } from "warden";
import { wardenTools } from "warden/langchain";
import { z } from "zod";

/** The scripted model: a tool call per step, chosen by how many tool results it has seen. */
class ScriptedModel extends BaseChatModel {
  _llmType() {
    return "scripted";
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const results = messages.filter((m) => ToolMessage.isInstance(m));
    const call = (name: string, args: Record<string, unknown>) =>
      new AIMessage({
        content: "",
        tool_calls: [{ name, args, id: `call_${results.length}`, type: "tool_call" }],
      });
    let message: AIMessage;
    if (results.length === 0) message = call("github_delete_repository", { repo: "acme/old" });
    else if (results.length === 1) {
      console.log(`model reads: ${results[0]?.content}\n`);
      message = call("github_create_issue", { repo: "acme/old", title: "Archive this repository" });
    } else message = new AIMessage("I may not delete acme/old, so I opened an issue to archive it.");
    return { generations: [{ text: String(message.content), message }] };
  }
}

const guard = await createGuard({ policy: "mcp-tools" });
const deleteRepository = tool(async ({ repo }) => `deleted ${repo}`, {
  name: "github_delete_repository", // the policy's github.delete_repository, as a provider spells it
  description: "Delete a repository",
  schema: z.object({ repo: z.string() }),
});
const createIssue = tool(
  async ({ repo, title }) => {
    console.log(`tool ran: issue "${title}" in ${repo}`);
    return `opened an issue in ${repo}`;
  },
  {
    name: "github_create_issue",
    description: "Open an issue",
    schema: z.object({ repo: z.string(), title: z.string() }),
  },
);

try {
  const task = "Get rid of the acme/old repository";
  // mode: "feedback" (default) | "throw" | "approval" (with an `approve` callback)
  const tools = await wardenTools({ guard, tools: [deleteRepository, createIssue], input: task });
  const byName = new Map(tools.map((t) => [t.name, t]));
  const model = new ScriptedModel({});
  const messages: BaseMessage[] = [new HumanMessage(task)];
  for (let step = 0; step < 6; step++) {
    const reply = await model.invoke(messages);
    messages.push(reply);
    if (!reply.tool_calls?.length) {
      console.log(`final answer: ${reply.content}`);
      break;
    }
    for (const call of reply.tool_calls)
      messages.push(await byName.get(call.name)!.invoke({ ...call, type: "tool_call" }));
  }
} finally {
  await guard.close();
}
