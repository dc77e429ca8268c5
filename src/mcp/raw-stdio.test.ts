/**
 * The stdio transports' read buffer swap: pinned against the SDK's own transports (a renamed private
 * field must fail here, not quietly bring back the per-message schema check), and the buffer's reading
 * of lines split across chunks, CRLF endings, values the SDK's schema would have refused (the proxy
 * classifies them itself) and its size bound.
 */
import { PassThrough } from "node:stream";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { describe, expect, it } from "vitest";
import { deliversParsedJson, RawReadBuffer, rawStdio } from "./raw-stdio.js";

describe("rawStdio", () => {
  it("swaps the read buffer of the SDK's stdio server and client transports", () => {
    expect(rawStdio(new StdioServerTransport(new PassThrough(), new PassThrough())).raw).toBe(true);
    expect(rawStdio(new StdioClientTransport({ command: "true" })).raw).toBe(true);
  });

  it("delivers what JSON.parse reads, batches included, for the proxy to classify", async () => {
    const stdin = new PassThrough();
    const { transport } = rawStdio(new StdioServerTransport(stdin, new PassThrough()));
    const received: unknown[] = [];
    transport.onmessage = (message) => received.push(message);
    await transport.start();
    stdin.write('[{"jsonrpc":"2.0","id":1,"method":"tools/call"}]\n{"jsonrpc":"2.0","id":null}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toEqual([
      [{ jsonrpc: "2.0", id: 1, method: "tools/call" }],
      { jsonrpc: "2.0", id: null },
    ]);
    await transport.close();
  });

  it("leaves a transport without the field as it is", () => {
    const other = { start: async () => undefined, send: async () => undefined, close: async () => undefined };
    expect(rawStdio(other).raw).toBe(false);
    expect(deliversParsedJson(other)).toBe(false);
  });

  it("marks the transports it swapped as delivering values fresh from JSON.parse, and only those", () => {
    const plain = new StdioServerTransport(new PassThrough(), new PassThrough());
    expect(deliversParsedJson(plain)).toBe(false);
    const { transport } = rawStdio(new StdioServerTransport(new PassThrough(), new PassThrough()));
    expect(deliversParsedJson(transport)).toBe(true);
  });
});

describe("RawReadBuffer", () => {
  it("reads lines split across chunks and CRLF endings", () => {
    const buffer = new RawReadBuffer();
    buffer.append(Buffer.from('{"a":'));
    expect(buffer.readMessage()).toBeNull();
    buffer.append(Buffer.from('1}\r\n{"b":"é"}\n{"c"'));
    expect(buffer.readMessage()).toEqual({ a: 1 });
    expect(buffer.readMessage()).toEqual({ b: "é" });
    expect(buffer.readMessage()).toBeNull();
    buffer.clear();
    expect(buffer.readMessage()).toBeNull();
  });

  it("throws on a line that is not JSON, and goes on with the next", () => {
    const buffer = new RawReadBuffer();
    buffer.append(Buffer.from('not json\n{"ok":true}\n'));
    expect(() => buffer.readMessage()).toThrow();
    expect(buffer.readMessage()).toEqual({ ok: true });
  });

  it("refuses to hold more than 10 MiB", () => {
    const buffer = new RawReadBuffer();
    expect(() => buffer.append(Buffer.alloc(10 * 1024 * 1024 + 1, 0x20))).toThrow(/exceeded/);
    expect(buffer.readMessage()).toBeNull();
  });
});
