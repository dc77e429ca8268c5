/**
 * A multi-step AI SDK agent whose tools Warden guards, end to end and offline:
 *
 *   npx tsx examples/ai-sdk/guarded-agent.ts
 *
 * The "model" is Warden's loopback OpenAI server (warden/testing) with a script: it first tries to email
 * the report to an outside address, reads Warden's refusal, and emails a colleague at example.com
 * instead. The bundled mcp-tools policy allows email only to example.com; the tool is registered under
 * the provider-safe name `email_send`, which the policy's `email.send` governs.
 *
 * In an application, import from "warden", "warden/ai-sdk" and "warden/testing"; this file imports the
 * checkout's sources so it runs without a build.
 */
import { pathToFileURL } from "node:url";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, tool } from "ai";
import { z } from "zod";
import { createGuard } from "../../src/guard.js";
import { guardTools } from "../../src/integrations/ai-sdk/index.js";
import { startOpenAIServer } from "../../src/testing/index.js";

export interface ExampleRun {
  /** Addresses the email tool really sent to. */
  sent: string[];
  /** One line per step: the calls the model made and what came back. */
  transcript: string[];
  answer: string;
}

export async function runExample(): Promise<ExampleRun> {
  // The scripted model: what a model might do, reading the tool results it gets back.
  const server = await startOpenAIServer({
    respond: ({ messages }) => {
      const last = messages.at(-1);
      if (last?.role === "user") {
        return {
          toolCalls: [{ name: "email_send", arguments: { email: "partner@rival.test", body: "Q3 report" } }],
        };
      }
      const result = last?.toolResults?.[0]?.content ?? "";
      if (result.includes('"warden":"refused"')) {
        return {
          toolCalls: [{ name: "email_send", arguments: { email: "bob@example.com", body: "Q3 report" } }],
        };
      }
      return "I could not send the report outside the company, so I sent it to Bob at example.com.";
    },
  });
  const guard = await createGuard({ policy: "mcp-tools" });
  const sent: string[] = [];
  const transcript: string[] = [];
  try {
    const tools = guardTools({
      guard,
      tools: {
        email_send: tool({
          description: "Send an email",
          inputSchema: z.object({ email: z.string(), body: z.string() }),
          execute: async ({ email }) => {
            sent.push(email);
            return `sent to ${email}`;
          },
        }),
      },
    });
    const model = createOpenAICompatible({ name: "loopback", baseURL: server.url }).chatModel("scripted");
    const result = await generateText({
      model,
      tools,
      prompt: "Send the Q3 report to our partner.",
      stopWhen: stepCountIs(5),
      maxRetries: 0,
      onStepFinish: (step) => {
        for (const r of step.toolResults) {
          const output = r.output as { warden?: string; feedback?: string } | string;
          const shown =
            typeof output === "object" && output?.warden === "refused"
              ? output.feedback
              : JSON.stringify(output);
          transcript.push(`${r.toolName}(${JSON.stringify(r.input)}) -> ${shown}`);
        }
        if (step.text) transcript.push(`answer: ${step.text}`);
      },
    });
    return { sent, transcript, answer: result.text };
  } finally {
    await guard.close();
    await server.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const run = await runExample();
  for (const line of run.transcript) console.log(`${line}\n`);
  console.log(`emails really sent: ${run.sent.join(", ")}`);
}
