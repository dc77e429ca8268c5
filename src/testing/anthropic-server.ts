/**
 * A loopback server speaking the Anthropic Messages protocol (/v1/messages, plain and SSE streaming)
 * with scripted answers, tool calls (`tool_use` blocks), errors and delays. The system prompt is handed
 * to `respond` as the first message so one script can drive both this and the OpenAI server.
 */
import {
  type AssistantReply,
  asText,
  chunkText,
  contentText,
  countWords,
  type ModelServer,
  type Respond,
  type RouteContext,
  type ServerMessage,
  type ServerToolCall,
  type ServerToolResult,
  scriptedReply,
  sendJson,
  startModelServer,
  writeEventStream,
} from "./model-server-common.js";

export type { ModelServer, Respond, RespondArgs, ScriptedServerReply } from "./model-server-common.js";

export interface AnthropicServerOptions {
  respond: Respond;
  /** When set, requests must carry "x-api-key: <apiKey>" or get HTTP 401. */
  apiKey?: string;
}

function anthropicError(status: number, message: string) {
  const type =
    status === 401
      ? "authentication_error"
      : status === 429
        ? "rate_limit_error"
        : status === 529
          ? "overloaded_error"
          : status >= 500
            ? "api_error"
            : "invalid_request_error";
  return { type: "error", error: { type, message } };
}

type Block = {
  type?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
};

/** One message with its `tool_use` blocks as calls and its `tool_result` blocks as results. */
function toMessage(options: { role: string; content: unknown }): ServerMessage {
  const { role, content } = options;
  const out: ServerMessage = { role, content: contentText(content) };
  const blocks: Block[] = Array.isArray(content) ? content.map((b) => (b ?? {}) as Block) : [];
  const calls: ServerToolCall[] = blocks
    .filter((b) => b.type === "tool_use")
    .map((b) => ({ id: String(b.id ?? ""), name: String(b.name ?? ""), arguments: asText(b.input ?? {}) }));
  const results: ServerToolResult[] = blocks
    .filter((b) => b.type === "tool_result")
    .map((b) => ({
      toolCallId: String(b.tool_use_id ?? ""),
      content: typeof b.content === "string" ? b.content : contentText(b.content),
    }));
  if (calls.length > 0) out.toolCalls = calls;
  if (results.length > 0) out.toolResults = results;
  return out;
}

function toMessages(body: Record<string, unknown>): ServerMessage[] {
  const messages: ServerMessage[] = [];
  const system = contentText(body.system);
  if (system !== "") messages.push({ role: "system", content: system });
  const list = Array.isArray(body.messages) ? body.messages : [];
  for (const m of list) {
    const message = (m ?? {}) as { role?: unknown; content?: unknown };
    messages.push(toMessage({ role: String(message.role ?? "user"), content: message.content }));
  }
  return messages;
}

/** A call's input as Anthropic sends it: an object; JSON text that is not one goes as it is (malformed). */
function toolInput(call: ServerToolCall): unknown {
  try {
    return JSON.parse(call.arguments) as unknown;
  } catch {
    return call.arguments;
  }
}

/** The words a reply is counted as: its text and its calls' names and arguments. */
function replyWords(reply: AssistantReply): number {
  return (
    countWords(reply.text) + reply.toolCalls.reduce((n, c) => n + countWords(`${c.name} ${c.arguments}`), 0)
  );
}

async function createMessage(ctx: RouteContext, options: AnthropicServerOptions): Promise<void> {
  const body = ctx.body ?? {};
  const messages = toMessages(body);
  const model = typeof body.model === "string" ? body.model : "unknown";
  const reply = await scriptedReply({
    ctx,
    respond: options.respond,
    messages,
    model,
    errorBody: (status) => anthropicError(status, `scripted HTTP ${status}`),
  });
  if (reply === null) return;
  const { text } = reply;
  const calls = reply.toolCalls.length > 0;
  const stopReason = calls ? "tool_use" : "end_turn";
  const id = `msg_${Math.random().toString(36).slice(2, 12)}`;
  const inputTokens = messages.reduce((sum, m) => sum + countWords(m.content), 0);
  const outputTokens = replyWords(reply);
  const toolBlocks = reply.toolCalls.map((call) => ({
    type: "tool_use",
    id: call.id,
    name: call.name,
    input: toolInput(call),
  }));
  if (body.stream !== true) {
    sendJson(ctx.res, 200, {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [...(text !== "" || !calls ? [{ type: "text", text }] : []), ...toolBlocks],
      stop_reason: stopReason,
      stop_sequence: null,
      usage: {
        input_tokens: inputTokens,
        output_tokens: outputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
    return;
  }
  const event = (name: string, data: unknown) =>
    ctx.res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  writeEventStream(ctx.res);
  event("message_start", {
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: inputTokens,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  });
  let index = 0;
  if (text !== "" || !calls) {
    event("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "text", text: "" },
    });
    for (const piece of chunkText(text)) {
      event("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: piece },
      });
    }
    event("content_block_stop", { type: "content_block_stop", index });
    index++;
  }
  for (const call of reply.toolCalls) {
    event("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
    });
    event("content_block_delta", {
      type: "content_block_delta",
      index,
      delta: { type: "input_json_delta", partial_json: call.arguments },
    });
    event("content_block_stop", { type: "content_block_stop", index });
    index++;
  }
  event("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
  event("message_stop", { type: "message_stop" });
  ctx.res.end();
}

export function startAnthropicServer(options: AnthropicServerOptions): Promise<ModelServer> {
  return startModelServer({
    prefix: "/v1",
    async route(ctx) {
      if (options.apiKey !== undefined && ctx.headers["x-api-key"] !== options.apiKey) {
        sendJson(ctx.res, 401, anthropicError(401, "invalid x-api-key"));
        return;
      }
      if (ctx.method === "POST" && ctx.path === "/v1/messages") return createMessage(ctx, options);
      sendJson(ctx.res, 404, anthropicError(404, `no route ${ctx.method} ${ctx.path}`));
    },
  });
}
