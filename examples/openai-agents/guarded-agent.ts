/**
 * Warden guarding an OpenAI Agents SDK agent, offline. The model is Warden's loopback OpenAI server with
 * a script: it first asks to delete a file outside /tmp, which the bundled mcp-tools policy refuses; the
 * refusal comes back as the tool's result, and the model deletes the scratch copy under /tmp instead,
 * which runs. The agent talks to the server through the SDK's own OpenAI provider (chat completions).
 *
 *   npm install warden @openai/agents      (in this repository: npm run build)
 *   npx tsx examples/openai-agents/guarded-agent.ts
 */
import { Agent, OpenAIProvider, Runner, tool } from "@openai/agents";
import { createGuard } from "warden";
import { wardenToolInputGuardrail } from "warden/openai-agents";
import { startOpenAIServer } from "warden/testing";
import { z } from "zod";

const guard = await createGuard({ policy: "mcp-tools" });

// The scripted model: each reply depends on how many tool results it has been sent back so far.
const server = await startOpenAIServer({
  respond: ({ messages }) => {
    const results = messages.flatMap((message) => message.toolResults ?? []);
    if (results.length === 0) {
      return { toolCalls: [{ name: "filesystem_delete_file", arguments: { path: "/home/me/notes.txt" } }] };
    }
    if (results.length === 1) {
      console.log(`model reads: ${results[0]?.content}\n`);
      return { toolCalls: [{ name: "filesystem_delete_file", arguments: { path: "/tmp/notes.txt" } }] };
    }
    return "Your notes stay where they are; I deleted the scratch copy under /tmp.";
  },
});

const deleteFile = tool({
  name: "filesystem_delete_file", // the policy's filesystem.delete_file, as a provider spells it
  description: "Delete a file",
  parameters: z.object({ path: z.string() }),
  inputGuardrails: [wardenToolInputGuardrail({ guard })], // mode: "feedback" (default) | "throw" | "approval"
  execute: async ({ path }) => {
    console.log(`tool ran: delete ${path}`);
    return `deleted ${path}`;
  },
});

try {
  const agent = new Agent({
    name: "files",
    instructions: "Tidy up files.",
    model: "scripted",
    tools: [deleteFile],
  });
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ baseURL: server.url, apiKey: "offline", useResponses: false }),
    tracingDisabled: true,
  });
  const result = await runner.run(agent, "Remove my notes", { maxTurns: 6 });
  console.log(`final answer: ${result.finalOutput}`);
} finally {
  await server.close();
  await guard.close();
}
