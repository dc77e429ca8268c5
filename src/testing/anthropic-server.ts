/**
 * A loopback server speaking the Anthropic Messages protocol (/v1/messages, plain and SSE streaming)
 * with scripted answers, errors and delays. The system prompt is handed to `respond` as the first
 * message so one script can drive both this and the OpenAI server.
 */
import {
  chunkText,
  contentText,
  countWords,
  type ModelServer,
  type Respond,
  type RouteContext,
  type ServerMessage,
  scriptedReplyText,
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

function toMessages(body: Record<string, unknown>): ServerMessage[] {
  const messages: ServerMessage[] = [];
  const system = contentText(body.system);
  if (system !== "") messages.push({ role: "system", content: system });
  const list = Array.isArray(body.messages) ? body.messages : [];
  for (const m of list) {
    const message = (m ?? {}) as { role?: unknown; content?: unknown };
    messages.push({ role: String(message.role ?? "user"), content: contentText(message.content) });
  }
  return messages;
}

async function createMessage(ctx: RouteContext, options: AnthropicServerOptions): Promise<void> {
  const body = ctx.body ?? {};
  const messages = toMessages(body);
  const model = typeof body.model === "string" ? body.model : "unknown";
  const text = await scriptedReplyText({
    ctx,
    respond: options.respond,
    messages,
    model,
    errorBody: (status) => anthropicError(status, `scripted HTTP ${status}`),
  });
  if (text === null) return;
  const id = `msg_${Math.random().toString(36).slice(2, 12)}`;
  const inputTokens = messages.reduce((sum, m) => sum + countWords(m.content), 0);
  const outputTokens = countWords(text);
  if (body.stream !== true) {
    sendJson(ctx.res, 200, {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [{ type: "text", text: text }],
      stop_reason: "end_turn",
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
  event("content_block_start", {
    type: "content_block_start",
    index: 0,
    content_block: { type: "text", text: "" },
  });
  for (const piece of chunkText(text)) {
    event("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: piece },
    });
  }
  event("content_block_stop", { type: "content_block_stop", index: 0 });
  event("message_delta", {
    type: "message_delta",
    delta: { stop_reason: "end_turn", stop_sequence: null },
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
