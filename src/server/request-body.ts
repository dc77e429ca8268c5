/**
 * A request's JSON body, read within the service's limits: at most `maxBodyBytes` (a declared
 * Content-Length over the limit is refused before a byte is read; a chunked body is refused as soon as
 * it passes the limit), no deeper than `maxJsonDepth` (measured before parsing: see ./json-depth.ts),
 * decoded as UTF-8 the way fetch's `Request.text()` decodes (a leading BOM dropped, invalid bytes
 * replaced), then parsed. Under @hono/node-server the bytes come straight from Node's request stream:
 * going through the WHATWG Request instead (a wrapper stream, an AbortController and a Request object
 * per request) cost more than a compiled check. Elsewhere (`app.request()` in tests, another runtime)
 * the Request's body is turned into the same kind of stream and read by the same code.
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

/** Throws body-too-large when a Content-Length (without Transfer-Encoding) declares more than the limit. */
export function assertDeclaredLength(options: {
  contentLength: string | undefined;
  transferEncoding: string | undefined;
  maxBodyBytes: number;
}): void {
  const { contentLength, transferEncoding, maxBodyBytes } = options;
  if (contentLength === undefined || transferEncoding !== undefined) return;
  if (Number.parseInt(contentLength, 10) > maxBodyBytes) throw tooLarge({ maxBodyBytes });
}

/**
 * Every byte of `stream`, or body-too-large once more than `maxBodyBytes` came. On refusal the stream is
 * paused, not destroyed, so the answer can still be sent on the connection (the server drains the rest).
 */
export function readBytes(options: {
  stream: Readable | IncomingMessage;
  maxBodyBytes: number;
}): Promise<Buffer> {
  const { stream, maxBodyBytes } = options;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: unknown) => {
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", finish);
      stream.off("close", onClose);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer | Uint8Array) => {
      size += chunk.byteLength;
      if (size > maxBodyBytes) {
        stream.pause();
        finish(tooLarge({ maxBodyBytes }));
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
  assertDeclaredLength({
    contentLength: options.header("content-length"),
    transferEncoding: options.header("transfer-encoding"),
    maxBodyBytes,
  });
  const web = options.incoming ? undefined : options.request.body;
  const stream =
    options.incoming ?? (web ? Readable.fromWeb(web as import("node:stream/web").ReadableStream) : undefined);
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
