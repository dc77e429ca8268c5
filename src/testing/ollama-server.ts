/**
 * A loopback server speaking Ollama's native API (/api/chat plain and NDJSON streaming, /api/embed,
 * /api/tags), so the `ollama:` provider is tested through its real HTTP path. Token counts are word
 * counts, reported where Ollama reports them (prompt_eval_count, eval_count).
 */
import {
  chunkText,
  contentText,
  countWords,
  hashEmbedding,
  type ModelServer,
  type Respond,
  type RouteContext,
  type ServerMessage,
  scriptedReply,
  sendJson,
  startModelServer,
  writeEventStream,
} from "./model-server-common.js";

export type { ModelServer, Respond, RespondArgs, ScriptedServerReply } from "./model-server-common.js";

export interface OllamaServerOptions {
  respond: Respond;
  /** Names listed by /api/tags. */
  models?: string[];
  embed?: (text: string) => number[];
}

function toMessages(body: Record<string, unknown>): ServerMessage[] {
  const list = Array.isArray(body.messages) ? body.messages : [];
  return list.map((m) => {
    const message = (m ?? {}) as { role?: unknown; content?: unknown };
    return { role: String(message.role ?? "user"), content: contentText(message.content) };
  });
}

async function chat(ctx: RouteContext, options: OllamaServerOptions): Promise<void> {
  const body = ctx.body ?? {};
  const messages = toMessages(body);
  const model = typeof body.model === "string" ? body.model : "unknown";
  const reply = await scriptedReply({
    ctx,
    respond: options.respond,
    messages,
    model,
    errorBody: (status) => ({ error: `scripted HTTP ${status}` }),
  });
  if (reply === null) return;
  // Tool calls are scripted on the OpenAI and Anthropic servers; here a script asking for them is a bug.
  if (reply.toolCalls.length > 0) throw new Error("the Ollama loopback server does not script tool calls");
  const { text } = reply;
  const createdAt = new Date().toISOString();
  const final = {
    model,
    created_at: createdAt,
    done: true,
    done_reason: "stop",
    total_duration: 1_000_000,
    load_duration: 1_000,
    prompt_eval_count: messages.reduce((sum, m) => sum + countWords(m.content), 0),
    prompt_eval_duration: 1_000,
    eval_count: countWords(text),
    eval_duration: 1_000,
  };
  // Ollama streams unless told otherwise.
  if (body.stream === false) {
    sendJson(ctx.res, 200, { ...final, message: { role: "assistant", content: text } });
    return;
  }
  writeEventStream(ctx.res, "application/x-ndjson");
  for (const piece of chunkText(text)) {
    ctx.res.write(
      `${JSON.stringify({ model, created_at: createdAt, message: { role: "assistant", content: piece }, done: false })}\n`,
    );
  }
  ctx.res.end(`${JSON.stringify({ ...final, message: { role: "assistant", content: "" } })}\n`);
}

function embed(ctx: RouteContext, options: OllamaServerOptions): void {
  const body = ctx.body ?? {};
  const input = body.input;
  const values = Array.isArray(input) ? input.map(String) : typeof input === "string" ? [input] : [];
  const toVector = options.embed ?? ((text: string) => hashEmbedding(text));
  sendJson(ctx.res, 200, {
    model: typeof body.model === "string" ? body.model : "unknown",
    embeddings: values.map(toVector),
    total_duration: 1_000,
    load_duration: 1_000,
    prompt_eval_count: values.reduce((sum, v) => sum + countWords(v), 0),
  });
}

export function startOllamaServer(options: OllamaServerOptions): Promise<ModelServer> {
  return startModelServer({
    prefix: "/api",
    async route(ctx) {
      if (ctx.method === "POST" && ctx.path === "/api/chat") return chat(ctx, options);
      if (ctx.method === "POST" && ctx.path === "/api/embed") return embed(ctx, options);
      if (ctx.method === "GET" && ctx.path === "/api/tags") {
        const names = options.models ?? ["test-model"];
        sendJson(ctx.res, 200, {
          models: names.map((name) => ({
            name,
            model: name,
            modified_at: new Date(0).toISOString(),
            size: 0,
          })),
        });
        return;
      }
      sendJson(ctx.res, 404, { error: `no route ${ctx.method} ${ctx.path}` });
    },
  });
}
