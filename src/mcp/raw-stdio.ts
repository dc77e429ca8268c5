/**
 * The SDK's stdio transports without their per-message schema check. Each reads newline-delimited JSON
 * through a ReadBuffer that parses every line with JSON.parse and then the SDK's JSONRPCMessageSchema
 * (zod, about 35 µs a message): the guard proxy relays every message, both ways, so that check was most
 * of its cost. The proxy reads each message itself (json-rpc-message.ts decides what is a request, a
 * notification or a response, and refuses the rest), so its transports hand it JSON.parse's value as is.
 *
 * The SDK keeps its buffer in the private field `_readBuffer`; `rawStdio` swaps it for one with the same
 * three methods and says whether it could (`raw-stdio.test.ts` pins that it still can, so an SDK upgrade
 * that renames the field fails a test instead of quietly bringing the cost back). Either way the proxy
 * sees the same messages: the schema only rejects what the proxy refuses too.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** What the SDK's buffer holds at most (its default): past it the buffer is cleared and an error raised. */
const MAX_BUFFER_BYTES = 10 * 1024 * 1024;

/** ReadBuffer's interface: chunks in, one parsed message per complete line out. */
export class RawReadBuffer {
  private buffer: Buffer | undefined;

  append(chunk: Buffer): void {
    if ((this.buffer?.length ?? 0) + chunk.length > MAX_BUFFER_BYTES) {
      this.buffer = undefined;
      throw new Error(`stdio buffer exceeded ${MAX_BUFFER_BYTES} bytes`);
    }
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
  }

  readMessage(): JSONRPCMessage | null {
    if (!this.buffer) return null;
    const index = this.buffer.indexOf(10);
    if (index === -1) return null;
    const line = this.buffer.toString("utf8", 0, index);
    this.buffer = index + 1 < this.buffer.length ? this.buffer.subarray(index + 1) : undefined;
    // Not validated here: the proxy classifies every value (json-rpc-message.ts) before acting on it.
    return JSON.parse(line.endsWith("\r") ? line.slice(0, -1) : line) as JSONRPCMessage;
  }

  clear(): void {
    this.buffer = undefined;
  }
}

/** Transports given the RawReadBuffer: each message they deliver is a value JSON.parse has just read. */
const parsedJson = new WeakSet<Transport>();

/**
 * Whether every message `transport` delivers is fresh from JSON.parse (plain objects, arrays and
 * primitives nothing else holds): then a message is already its own JSON form, and the proxy need not
 * write and read it again (json-rpc-message.ts, `jsonForm`).
 */
export function deliversParsedJson(transport: Transport): boolean {
  return parsedJson.has(transport);
}

/** Gives an SDK stdio transport the RawReadBuffer; `raw` says whether its buffer could be swapped. */
export function rawStdio<T extends Transport>(transport: T): { transport: T; raw: boolean } {
  const holder = transport as unknown as { _readBuffer?: unknown };
  const current = holder._readBuffer as { readMessage?: unknown; append?: unknown } | undefined;
  if (typeof current?.readMessage !== "function" || typeof current.append !== "function") {
    return { transport, raw: false };
  }
  holder._readBuffer = new RawReadBuffer();
  parsedJson.add(transport);
  return { transport, raw: true };
}
