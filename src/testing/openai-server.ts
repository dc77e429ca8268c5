/**
 * A loopback server speaking the OpenAI chat-completions protocol (plain and SSE streaming), plus
 * /v1/embeddings and /v1/models, so clients are tested through their real HTTP code path with scripted
 * answers, tool calls, errors and delays. Usage is filled with word counts so accounting can be checked
 * exactly (a tool call counts the words of its name and arguments).
 */
import {
  type AssistantReply,
  asText,
  chunkText,
  contentText,
  countWords,
  hashEmbedding,
  type ModelServer,
  type Respond,
  type RouteContext,
  type ServerMessage,
  type ServerToolCall,
  scriptedReply,
  sendJson,
  startModelServer,
  writeEventStream,
} from "./model-server-common.js";

export type { ModelServer, Respond, RespondArgs, ScriptedServerReply } from "./model-server-common.js";

export interface OpenAIServerOptions {
  respond: Respond;
  /** When set, requests must carry "Authorization: Bearer <apiKey>" or get HTTP 401. */
  apiKey?: string;
  /** Ids listed by /v1/models. */
  models?: string[];
  /** Embedding of one input text (default: a deterministic 8-dimensional hash). */
  embed?: (text: string) => number[];
}

function openAIError(status: number, message: string) {
  const type =
    status === 401 ? "invalid_request_error" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, param: null, code: null } };
}

/** The calls of an assistant message (`tool_calls`), or undefined when it made none. */
function toolCallsOf(value: unknown): ServerToolCall[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.map((c) => {
    const call = (c ?? {}) as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    return {
      id: String(call.id ?? ""),
      name: String(call.function?.name ?? ""),
      arguments: asText(call.function?.arguments),
    };
  });
}

function toMessages(body: Record<string, unknown>): ServerMessage[] {
  const list = Array.isArray(body.messages) ? body.messages : [];
  return list.map((m) => {
    const message = (m ?? {}) as {
      role?: unknown;
      content?: unknown;
      tool_calls?: unknown;
      tool_call_id?: unknown;
    };
    const role = String(message.role ?? "user");
    const out: ServerMessage = { role, content: contentText(message.content) };
    const toolCalls = toolCallsOf(message.tool_calls);
    if (toolCalls) out.toolCalls = toolCalls;
    if (role === "tool") {
      out.toolResults = [{ toolCallId: String(message.tool_call_id ?? ""), content: out.content }];
    }
    return out;
  });
}

/** The words a message or reply is counted as: its text and its calls' names and arguments. */
function wordsOf(options: { content: string; toolCalls?: ServerToolCall[] }): number {
  const calls = options.toolCalls ?? [];
  return countWords(options.content) + calls.reduce((n, c) => n + countWords(`${c.name} ${c.arguments}`), 0);
}

/** The `tool_calls` of a reply in OpenAI's shape (plain answer; streaming adds `index`). */
function openAIToolCalls(reply: AssistantReply) {
  return reply.toolCalls.map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  }));
}

async function chatCompletion(ctx: RouteContext, options: OpenAIServerOptions): Promise<void> {
  const body = ctx.body ?? {};
  const messages = toMessages(body);
  const model = typeof body.model === "string" ? body.model : "unknown";
  const reply = await scriptedReply({
    ctx,
    respond: options.respond,
    messages,
    model,
    errorBody: (status) => openAIError(status, `scripted HTTP ${status}`),
  });
  if (reply === null) return;
  const { text } = reply;
  const calls = reply.toolCalls.length > 0;
  const finishReason = calls ? "tool_calls" : "stop";
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 10)}`;
  const created = Math.floor(Date.now() / 1000);
  const promptTokens = messages.reduce((sum, m) => sum + wordsOf(m), 0);
  const completionTokens = wordsOf({ content: text, toolCalls: reply.toolCalls });
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  if (body.stream !== true) {
    sendJson(ctx.res, 200, {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: calls && text === "" ? null : text,
            refusal: null,
            ...(calls ? { tool_calls: openAIToolCalls(reply) } : {}),
          },
          logprobs: null,
          finish_reason: finishReason,
        },
      ],
      usage,
      system_fingerprint: "warden-test",
    });
    return;
  }
  const includeUsage =
    (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const frame = (data: unknown) => ctx.res.write(`data: ${JSON.stringify(data)}\n\n`);
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  writeEventStream(ctx.res);
  frame(chunk({ role: "assistant", content: "" }, null));
  if (text !== "" || !calls) for (const piece of chunkText(text)) frame(chunk({ content: piece }, null));
  // Each call as OpenAI streams it: id and name first, then the arguments in pieces.
  openAIToolCalls(reply).forEach((call, index) => {
    const head = {
      index,
      id: call.id,
      type: "function",
      function: { name: call.function.name, arguments: "" },
    };
    frame(chunk({ tool_calls: [head] }, null));
    for (const piece of argumentPieces(call.function.arguments)) {
      frame(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
    }
  });
  frame(chunk({}, finishReason));
  if (includeUsage) frame({ id, object: "chat.completion.chunk", created, model, choices: [], usage });
  ctx.res.end("data: [DONE]\n\n");
}

/** JSON text in two pieces, so a streaming client really assembles the arguments. */
function argumentPieces(text: string): string[] {
  if (text.length < 2) return [text];
  const half = Math.floor(text.length / 2);
  return [text.slice(0, half), text.slice(half)];
}

function embeddings(ctx: RouteContext, options: OpenAIServerOptions): void {
  const body = ctx.body ?? {};
  const input = body.input;
  const values = Array.isArray(input) ? input.map(String) : typeof input === "string" ? [input] : [];
  const embed = options.embed ?? ((text: string) => hashEmbedding(text));
  const tokens = values.reduce((sum, v) => sum + countWords(v), 0);
  sendJson(ctx.res, 200, {
    object: "list",
    data: values.map((value, index) => ({ object: "embedding", index, embedding: embed(value) })),
    model: typeof body.model === "string" ? body.model : "unknown",
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

export function startOpenAIServer(options: OpenAIServerOptions): Promise<ModelServer> {
  return startModelServer({
    prefix: "/v1",
    async route(ctx) {
      if (options.apiKey !== undefined && ctx.headers.authorization !== `Bearer ${options.apiKey}`) {
        sendJson(ctx.res, 401, openAIError(401, "Incorrect API key provided"));
        return;
      }
      if (ctx.method === "POST" && ctx.path === "/v1/chat/completions") return chatCompletion(ctx, options);
      if (ctx.method === "POST" && ctx.path === "/v1/embeddings") return embeddings(ctx, options);
      if (ctx.method === "GET" && ctx.path === "/v1/models") {
        const ids = options.models ?? ["test-model"];
        sendJson(ctx.res, 200, {
          object: "list",
          data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "warden-test" })),
        });
        return;
      }
      sendJson(ctx.res, 404, openAIError(404, `no route ${ctx.method} ${ctx.path}`));
    },
  });
}
