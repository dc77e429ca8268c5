/**
 * Shared plumbing of the loopback model servers used in tests: a node:http server on 127.0.0.1 port 0
 * that records every request, lets the test script each reply (text, tool calls, HTTP error, slow
 * answer), and shuts down without leaving sockets or timers behind. The protocol-specific servers build
 * on it. Tool calls are scripted so an agent loop (the AI SDK's multi-step `generateText`, an agents SDK)
 * can be driven end to end: the script sees the tool results the client sent back and picks the next step.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A tool call as a message carries it: the arguments as the JSON text the protocol sent. */
export interface ServerToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A tool's result as the client sent it back, its content as text. */
export interface ServerToolResult {
  toolCallId: string;
  content: string;
}

export interface ServerMessage {
  role: string;
  content: string;
  /** The calls an assistant message made (absent when none). */
  toolCalls?: ServerToolCall[];
  /** The tool results a message carries (OpenAI: one per "tool" message; Anthropic: a user message's blocks). */
  toolResults?: ServerToolResult[];
}

/**
 * A tool call the script asks the model to make. `arguments` is an object, or JSON text (send malformed
 * text to test a client's repair path). `id` defaults to `call_<request>_<position>`.
 */
export interface ScriptedToolCall {
  name: string;
  arguments?: Record<string, unknown> | string;
  id?: string;
}

export interface RespondArgs {
  /** The conversation with text content only; a system prompt (wherever the protocol puts it) comes first. */
  messages: ServerMessage[];
  model: string;
  /** The raw request body. */
  body: Record<string, unknown>;
  /** 0-based number of this completion request on this server. */
  index: number;
}

/**
 * A reply: the assistant's text; tool calls (with optional text before them); an HTTP error; any of
 * them after a delay (a slow server).
 */
export type ScriptedServerReply =
  | string
  | { text: string; delayMs?: number }
  | { toolCalls: ScriptedToolCall[]; text?: string; delayMs?: number }
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number };

export type Respond = (args: RespondArgs) => ScriptedServerReply | Promise<ScriptedServerReply>;

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | undefined;
}

export interface ModelServer {
  /** Base URL of the API (ends in /v1, or /api for Ollama). */
  url: string;
  /** Bodies of every POST request, in arrival order. */
  requests: Record<string, unknown>[];
  /** Every request with method, path and headers. */
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** Usage numbers for tests: whitespace-separated words, so expected counts are easy to compute. */
export function countWords(text: string): number {
  const trimmed = text.trim();
  return trimmed === "" ? 0 : trimmed.split(/\s+/).length;
}

/** A deterministic unit-free embedding of a text, so similarity tests have stable numbers. */
export function hashEmbedding(text: string, dimensions = 8): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (let i = 0; i < text.length; i++) {
    const slot = i % dimensions;
    vector[slot] = ((vector[slot] ?? 0) * 31 + text.charCodeAt(i)) % 1000;
  }
  return vector.map((v) => v / 1000);
}

/** Text of a message content in either protocol: a string or a list of typed parts. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string"
          ? (part as { text: string }).text
          : "",
      )
      .join("");
  }
  return "";
}

/** Most tool calls one scripted reply may make (a script bug, not a test, would ask for more). */
export const MAX_SCRIPTED_TOOL_CALLS = 64;

/** What the server sends back for a successful reply: text, and the tool calls with ids and JSON text. */
export interface AssistantReply {
  text: string;
  toolCalls: ServerToolCall[];
}

export type ResolvedReply =
  | ({ kind: "reply"; delayMs: number } & AssistantReply)
  | { kind: "error"; status: number; body: unknown; headers: Record<string, string>; delayMs: number };

function resolveToolCalls(options: { calls: ScriptedToolCall[]; index: number }): ServerToolCall[] {
  const { calls, index } = options;
  if (calls.length > MAX_SCRIPTED_TOOL_CALLS) {
    throw new Error(`a scripted reply makes ${calls.length} tool calls; at most ${MAX_SCRIPTED_TOOL_CALLS}`);
  }
  return calls.map((call, position) => ({
    id: call.id ?? `call_${index}_${position}`,
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
  }));
}

/** A scripted reply in one shape; `index` (the request's number) makes tool-call ids deterministic. */
export function resolveReply(reply: ScriptedServerReply, index = 0): ResolvedReply {
  if (typeof reply === "string") return { kind: "reply", text: reply, toolCalls: [], delayMs: 0 };
  if ("status" in reply) {
    return {
      kind: "error",
      status: reply.status,
      body: reply.body,
      headers: reply.headers ?? {},
      delayMs: reply.delayMs ?? 0,
    };
  }
  if ("toolCalls" in reply) {
    return {
      kind: "reply",
      text: reply.text ?? "",
      toolCalls: resolveToolCalls({ calls: reply.toolCalls, index }),
      delayMs: reply.delayMs ?? 0,
    };
  }
  return { kind: "reply", text: reply.text, toolCalls: [], delayMs: reply.delayMs ?? 0 };
}

export interface RouteContext {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown> | undefined;
  res: ServerResponse;
  /** Resolves after `ms`, or never when the client went away or the server closed. */
  wait(ms: number): Promise<boolean>;
  /** Next completion index (counts only completion requests). */
  nextIndex(): number;
}

/**
 * The part of answering a completion request that every protocol shares: asks the script for the reply,
 * waits out its delay, and sends a scripted HTTP error (its own body, or `errorBody(status)` in the
 * protocol's error shape). Resolves to the reply (text and tool calls), or null when nothing is left to
 * send (the error went out, or the client went away during the delay).
 */
export async function scriptedReply(options: {
  ctx: RouteContext;
  respond: Respond;
  messages: ServerMessage[];
  model: string;
  errorBody: (status: number) => unknown;
}): Promise<AssistantReply | null> {
  const { ctx, messages, model } = options;
  const body = ctx.body ?? {};
  const index = ctx.nextIndex();
  const reply = resolveReply(await options.respond({ messages, model, body, index }), index);
  if (reply.delayMs > 0 && !(await ctx.wait(reply.delayMs))) return null;
  if (reply.kind === "error") {
    sendJson(ctx.res, reply.status, reply.body ?? options.errorBody(reply.status), reply.headers);
    return null;
  }
  return { text: reply.text, toolCalls: reply.toolCalls };
}

/** A value as text for a script to read: strings as they are, anything else as JSON. */
export function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  if (res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function writeEventStream(res: ServerResponse, contentType = "text/event-stream") {
  res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache", connection: "keep-alive" });
}

/** Splits a reply into a few chunks so streaming clients really assemble pieces. */
export function chunkText(text: string): string[] {
  if (text === "") return [""];
  const pieces = text.match(/\S+\s*|\s+/g) ?? [text];
  return pieces;
}

export async function startModelServer(options: {
  /** Path prefix of the API, "/v1" or "/api". */
  prefix: string;
  route: (ctx: RouteContext) => Promise<void>;
}): Promise<ModelServer> {
  const requests: Record<string, unknown>[] = [];
  const received: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const pendingWaits = new Set<(value: boolean) => void>();
  let closed = false;
  let index = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: Record<string, unknown> | undefined;
      if (raw.trim() !== "") {
        try {
          body = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          sendJson(res, 400, { error: { message: "request body is not JSON" } });
          return;
        }
      }
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const method = req.method ?? "GET";
      received.push({ method, path, headers: req.headers, body });
      if (method === "POST" && body) requests.push(body);
      const wait = (ms: number) =>
        new Promise<boolean>((resolve) => {
          if (closed || res.destroyed) {
            resolve(false);
            return;
          }
          const finish = (value: boolean) => {
            clearTimeout(timer);
            timers.delete(timer);
            pendingWaits.delete(finish);
            res.off("close", onClose);
            resolve(value);
          };
          const onClose = () => finish(false);
          const timer = setTimeout(() => finish(true), ms);
          timers.add(timer);
          pendingWaits.add(finish);
          res.on("close", onClose);
        });
      const ctx: RouteContext = {
        method,
        path,
        headers: req.headers,
        body,
        res,
        wait,
        nextIndex: () => index++,
      };
      options.route(ctx).catch((error: unknown) => {
        sendJson(res, 500, { error: { message: `test server failed: ${(error as Error).message}` } });
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${options.prefix}`,
    requests,
    received,
    async close() {
      if (closed) return;
      closed = true;
      for (const finish of [...pendingWaits]) finish(false);
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
