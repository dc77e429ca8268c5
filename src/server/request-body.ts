/**
 * A request's JSON body, read within the service's limits: at most `maxBodyBytes` (a declared
 * Content-Length over the limit is refused without keeping a byte; a chunked body is refused as soon as
 * it passes the limit), no deeper than `maxJsonDepth` (measured before parsing: see ./json-depth.ts),
 * decoded as UTF-8 the way fetch's `Request.text()` decodes (a leading BOM dropped, invalid bytes
 * replaced), then parsed. Under @hono/node-server the bytes come straight from Node's request stream:
 * going through the WHATWG Request instead (a wrapper stream, an AbortController and a Request object
 * per request) cost more than a compiled check. Elsewhere (`app.request()` in tests, another runtime)
 * the Request's body is turned into the same kind of stream and read by the same code.
 *
 * Before a body is refused as too large, the rest of it is read and dropped, within bounds (see
 * {@link discardRest}). Answering first and closing with bytes unread makes the kernel reset the
 * connection, and a reset can reach the client before the 413 does: the client sees a broken pipe, not
 * the answer. Servers call this a lingering close; here the lingering comes before the answer.
 */
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { WardenError } from "../core/errors.js";
import { assertJsonDepth } from "./json-depth.js";

/** Decodes as fetch's body mixins do: BOM dropped, invalid sequences replaced (one decoder, stateless use). */
const utf8 = new TextDecoder("utf-8");

function tooLarge(options: { maxBodyBytes: number }): WardenError {
  const { maxBodyBytes } = options;
  return new WardenError({
    code: "INVALID_INPUT",
    message: `the request body is larger than the limit of ${maxBodyBytes} bytes`,
    details: { reason: "body-too-large", limitBytes: maxBodyBytes },
  });
}

/** How much of a refused body is read and dropped before the answer, at most: bytes, and time. */
function discardBounds(options: { maxBodyBytes: number }): { maxBytes: number; maxMs: number } {
  return { maxBytes: Math.max(4 * options.maxBodyBytes, 16 * 1024 * 1024), maxMs: 5_000 };
}

/** The length a Content-Length (without Transfer-Encoding) declares; undefined when there is none. */
function declaredLength(options: {
  contentLength: string | undefined;
  transferEncoding: string | undefined;
}): number | undefined {
  const { contentLength, transferEncoding } = options;
  if (contentLength === undefined || transferEncoding !== undefined) return undefined;
  const length = Number.parseInt(contentLength, 10);
  return Number.isNaN(length) ? undefined : length;
}

/**
 * Reads and drops what is left of `stream` until it ends, closes or fails, or until `maxBytes` more came
 * or `maxMs` passed (then it is paused, never destroyed, so the answer can still be sent). Never rejects:
 * it only decides when the refusal goes out.
 */
export function discardRest(options: {
  stream: Readable | IncomingMessage;
  maxBytes: number;
  maxMs: number;
}): Promise<void> {
  const { stream, maxBytes, maxMs } = options;
  if (stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let size = 0;
    const stop = () => {
      clearTimeout(timer);
      stream.off("data", onData);
      stream.off("end", stop);
      stream.off("error", stop);
      stream.off("close", stop);
      if (!stream.readableEnded && !stream.destroyed) stream.pause();
      resolve();
    };
    const onData = (chunk: Buffer | Uint8Array) => {
      size += chunk.byteLength;
      if (size > maxBytes) stop();
    };
    const timer = setTimeout(stop, maxMs);
    timer.unref();
    stream.on("data", onData);
    stream.once("end", stop);
    stream.once("error", stop);
    stream.once("close", stop);
    stream.resume();
  });
}

/**
 * Every byte of `stream`, or body-too-large once more than `maxBodyBytes` came. On refusal the rest is
 * read and dropped within {@link discardBounds} first, and the stream is left paused, not destroyed, so
 * the answer can still be sent on the connection.
 */
export function readBytes(options: {
  stream: Readable | IncomingMessage;
  maxBodyBytes: number;
}): Promise<Buffer> {
  const { stream, maxBodyBytes } = options;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const detach = () => {
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", finish);
      stream.off("close", onClose);
    };
    const finish = (error?: unknown) => {
      detach();
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer | Uint8Array) => {
      size += chunk.byteLength;
      if (size > maxBodyBytes) {
        detach();
        void discardRest({ stream, ...discardBounds({ maxBodyBytes }) }).then(() =>
          reject(tooLarge({ maxBodyBytes })),
        );
        return;
      }
      chunks.push(
        Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
      );
    };
    const onEnd = () => finish();
    const onClose = () =>
      finish(
        new WardenError({
          code: "ABORTED",
          message: "the client closed the connection before the body ended",
        }),
      );
    stream.on("data", onData);
    stream.once("end", onEnd);
    stream.once("error", finish);
    stream.once("close", onClose);
  });
}

/** The body parsed as JSON within the limits, or a 400 (413 when too large) naming what is wrong. */
export async function readJsonBody(options: {
  /** Node's request under @hono/node-server; absent elsewhere. */
  incoming: IncomingMessage | undefined;
  /** The WHATWG request, read when there is no Node request. */
  request: Request;
  header: (name: string) => string | undefined;
  maxBodyBytes: number;
  maxJsonDepth: number;
}): Promise<unknown> {
  const { maxBodyBytes } = options;
  const declared = declaredLength({
    contentLength: options.header("content-length"),
    transferEncoding: options.header("transfer-encoding"),
  });
  const web = options.incoming ? undefined : options.request.body;
  const stream =
    options.incoming ?? (web ? Readable.fromWeb(web as import("node:stream/web").ReadableStream) : undefined);
  if (declared !== undefined && declared > maxBodyBytes) {
    // Refused from the header alone; the body is dropped first only when it is within the bounds, so a
    // declared 2 GB that never comes is answered at once.
    const bounds = discardBounds({ maxBodyBytes });
    if (stream && declared <= bounds.maxBytes) await discardRest({ stream, ...bounds });
    throw tooLarge({ maxBodyBytes });
  }
  const text = stream ? utf8.decode(await readBytes({ stream, maxBodyBytes })) : "";
  assertJsonDepth({ text, maxDepth: options.maxJsonDepth, what: "the request body" });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `the request body is not valid JSON: ${(error as Error).message}`,
      details: { fields: ["(body)"] },
    });
  }
}
