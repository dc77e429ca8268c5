import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import { discardRest, readBytes, readJsonBody } from "./request-body.js";

type Body = NonNullable<ConstructorParameters<typeof Request>[1]>["body"];

const read = (body: Body, headers: Record<string, string> = {}, maxBodyBytes = 64) =>
  readJsonBody({
    incoming: undefined,
    request: new Request("http://127.0.0.1/v1/check", { method: "POST", body, headers }),
    header: (name) => headers[name],
    maxBodyBytes,
    maxJsonDepth: 4,
  });

const reasonOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return isWardenError(error) ? (error.details as { reason?: string } | undefined)?.reason : String(error);
};

describe("readJsonBody", () => {
  it("parses the body as fetch's text() decodes it: a leading BOM dropped, invalid bytes replaced", async () => {
    expect(await read('{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(await read(new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('{"b":true}')]))).toEqual({ b: true });
    expect(await read(new Uint8Array([...Buffer.from('{"c":"'), 0xff, ...Buffer.from('"}')]))).toEqual({
      c: "\ufffd",
    });
  });

  it("refuses a declared length over the limit before reading, and a longer body while reading", async () => {
    expect(await reasonOf(read("{}", { "content-length": "65" }))).toBe("body-too-large");
    // A chunked body (no length, or a length beside Transfer-Encoding) is counted as it comes.
    expect(await reasonOf(read(`{"x":"${"y".repeat(100)}"}`, { "transfer-encoding": "chunked" }))).toBe(
      "body-too-large",
    );
    expect(await reasonOf(read(`{"x":"${"y".repeat(100)}"}`))).toBe("body-too-large");
  });

  it("measures nesting before parsing and names a body that is not JSON", async () => {
    expect(await reasonOf(read("[[[[[1]]]]]"))).toBe("too-deep");
    const notJson = await read("{nope").catch((e: unknown) => e);
    expect(isWardenError(notJson) && notJson.message).toMatch(/not valid JSON/);
    expect(isWardenError(await read(null).catch((e: unknown) => e))).toBe(true);
  });
});

describe("readBytes", () => {
  it("reads the rest of a body over the limit before it refuses, so the answer is not met by a reset", async () => {
    const stream = Readable.from([Buffer.alloc(40), Buffer.alloc(40), Buffer.alloc(40)], {
      objectMode: false,
    });
    expect(await reasonOf(readBytes({ stream, maxBodyBytes: 64 }))).toBe("body-too-large");
    expect(stream.readableEnded).toBe(true);
  });

  it("answers ABORTED when the stream closes before it ends", async () => {
    const stream = new Readable({ read() {} });
    const reading = readBytes({ stream, maxBodyBytes: 64 });
    stream.push(Buffer.from("{"));
    stream.destroy();
    const error = await reading.catch((e: unknown) => e);
    expect(isWardenError(error) && error.code).toBe("ABORTED");
  });
});

describe("discardRest", () => {
  it("pauses (never destroys) a stream that passes its bounds, so the answer can still be sent", async () => {
    const stream = new Readable({ read() {} });
    const dropping = discardRest({ stream, maxBytes: 64, maxMs: 60_000 });
    stream.push(Buffer.alloc(40));
    stream.push(Buffer.alloc(40));
    await dropping;
    expect(stream.destroyed).toBe(false);
    expect(stream.isPaused()).toBe(true);
    const waiting = new Readable({ read() {} });
    await discardRest({ stream: waiting, maxBytes: 64, maxMs: 20 });
    expect(waiting.destroyed).toBe(false);
    expect(waiting.isPaused()).toBe(true);
  });
});
