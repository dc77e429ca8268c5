/**
 * Shared plumbing of the loopback model servers used in tests: a node:http server on 127.0.0.1 port 0
 * that records every request, lets the test script each reply (text, HTTP error, slow answer), and shuts
 * down without leaving sockets or timers behind. The protocol-specific servers build on it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ServerMessage {
  role: string;
  content: string;
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

/** A reply: the assistant's text; an HTTP error; or text after a delay (a slow server). */
export type ScriptedServerReply =
  | string
  | { text: string; delayMs?: number }
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

export type ResolvedReply =
  | { kind: "text"; text: string; delayMs: number }
  | { kind: "error"; status: number; body: unknown; headers: Record<string, string>; delayMs: number };

export function resolveReply(reply: ScriptedServerReply): ResolvedReply {
  if (typeof reply === "string") return { kind: "text", text: reply, delayMs: 0 };
  if ("status" in reply) {
    return {
      kind: "error",
      status: reply.status,
      body: reply.body,
      headers: reply.headers ?? {},
      delayMs: reply.delayMs ?? 0,
    };
  }
  return { kind: "text", text: reply.text, delayMs: reply.delayMs ?? 0 };
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
 * protocol's error shape). Resolves to the reply's text, or null when nothing is left to send (the error
 * went out, or the client went away during the delay).
 */
export async function scriptedReplyText(options: {
  ctx: RouteContext;
  respond: Respond;
  messages: ServerMessage[];
  model: string;
  errorBody: (status: number) => unknown;
}): Promise<string | null> {
  const { ctx, messages, model } = options;
  const body = ctx.body ?? {};
  const reply = resolveReply(await options.respond({ messages, model, body, index: ctx.nextIndex() }));
  if (reply.delayMs > 0 && !(await ctx.wait(reply.delayMs))) return null;
  if (reply.kind === "error") {
    sendJson(ctx.res, reply.status, reply.body ?? options.errorBody(reply.status), reply.headers);
    return null;
  }
  return reply.text;
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
