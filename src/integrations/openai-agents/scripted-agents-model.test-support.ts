/**
 * A scripted model for the OpenAI Agents SDK's runner: it implements the SDK's own public `Model`
 * interface, so the real runner, tools and guardrails run unchanged; only the model's answers are
 * scripted. Each step sees the request (including the tool results sent back) and returns function calls
 * or a final text. Bounded: a script that runs past its steps fails the test instead of looping.
 */
import { type Model, type ModelRequest, type ModelResponse, Usage } from "@openai/agents";

export type ScriptedStep =
  | { calls: Array<{ name: string; arguments: string | Record<string, unknown>; callId?: string }> }
  | { text: string };

/** The tool results in a request: call id → the output text the runner sent back. */
export function toolResults(request: ModelRequest): Map<string, string> {
  const results = new Map<string, string>();
  if (typeof request.input === "string") return results;
  for (const item of request.input) {
    const result = item as { type?: string; callId?: string; output?: unknown };
    if (result.type !== "function_call_result" || typeof result.callId !== "string") continue;
    const output = result.output as { type?: string; text?: string } | string;
    results.set(
      result.callId,
      typeof output === "string" ? output : (output?.text ?? JSON.stringify(output)),
    );
  }
  return results;
}

export class ScriptedAgentsModel implements Model {
  readonly requests: ModelRequest[] = [];
  #step = 0;

  constructor(private readonly script: (args: { request: ModelRequest; step: number }) => ScriptedStep) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const step = this.#step++;
    if (step >= 20) throw new Error("scripted model: more than 20 steps");
    this.requests.push(request);
    const answer = this.script({ request, step });
    const usage = new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 });
    if ("text" in answer) {
      return {
        usage,
        output: [
          {
            type: "message",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: answer.text }],
          },
        ],
      };
    }
    return {
      usage,
      output: answer.calls.map((call, position) => ({
        type: "function_call" as const,
        callId: call.callId ?? `call_${step}_${position}`,
        name: call.name,
        status: "completed" as const,
        arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
      })),
    };
  }

  // biome-ignore lint/correctness/useYield: the tests never stream; a streamed run fails loudly.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("scripted model: streaming is not scripted");
  }
}
