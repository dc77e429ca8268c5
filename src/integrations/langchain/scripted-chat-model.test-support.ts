/**
 * A scripted chat model for LangChain tests: a small subclass of @langchain/core's real BaseChatModel
 * (the package's testing models replay one fixed answer and cannot make a different tool call per step).
 * Each step sees the messages so far (including the ToolMessages sent back) and answers text or tool
 * calls; bounded, so a script that runs past its steps fails instead of looping. `runAgent` is the
 * smallest agent loop over it: model → tool calls through the given tools → ToolMessages → model.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { StructuredToolInterface } from "@langchain/core/tools";

export type ScriptedAnswer =
  | { calls: Array<{ name: string; args: unknown; id?: string }> }
  | { text: string };

export class ScriptedChatModel extends BaseChatModel {
  readonly seen: BaseMessage[][] = [];
  #step = 0;

  constructor(private readonly script: (args: { messages: BaseMessage[]; step: number }) => ScriptedAnswer) {
    super({});
  }

  _llmType(): string {
    return "scripted";
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const step = this.#step++;
    if (step >= 20) throw new Error("scripted chat model: more than 20 steps");
    this.seen.push([...messages]);
    const answer = this.script({ messages, step });
    const message =
      "text" in answer
        ? new AIMessage({ content: answer.text })
        : new AIMessage({
            content: "",
            tool_calls: answer.calls.map((call, position) => ({
              name: call.name,
              args: call.args as Record<string, unknown>,
              id: call.id ?? `call_${step}_${position}`,
              type: "tool_call" as const,
            })),
          });
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}

/** The ToolMessages in a conversation: tool call id → content text. */
export function toolMessages(messages: readonly BaseMessage[]): Map<string, ToolMessage> {
  const out = new Map<string, ToolMessage>();
  for (const message of messages) if (ToolMessage.isInstance(message)) out.set(message.tool_call_id, message);
  return out;
}

/** A bounded agent loop: at most `maxSteps` model calls; returns the final text and the conversation. */
export async function runAgent(options: {
  model: BaseChatModel;
  tools: readonly StructuredToolInterface[];
  task: string;
  maxSteps?: number;
}): Promise<{ text: string; messages: BaseMessage[] }> {
  const messages: BaseMessage[] = [new HumanMessage(options.task)];
  const byName = new Map(options.tools.map((t) => [t.name, t]));
  for (let step = 0; step < (options.maxSteps ?? 8); step++) {
    const reply = await options.model.invoke(messages);
    messages.push(reply);
    const calls = reply.tool_calls ?? [];
    if (calls.length === 0) return { text: String(reply.content), messages };
    for (const call of calls) {
      const tool = byName.get(call.name);
      if (!tool) throw new Error(`no tool ${call.name}`);
      messages.push((await tool.invoke({ ...call, type: "tool_call" })) as ToolMessage);
    }
  }
  throw new Error("agent loop: too many steps");
}
