import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractJson } from "./json-extract.js";

const prose = fc.string().map((s) => s.replace(/[{}[\]`"]/g, ""));
const container = fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue()));
const normalise = (v: unknown) => JSON.parse(JSON.stringify(v));

describe("extractJson", () => {
  it("reads plain JSON of any kind", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = extractJson({ text: JSON.stringify(value) });
        expect(result).toEqual({ ok: true, value: normalise(value) });
      }),
    );
  });

  it("finds an object or array inside prose and code fences", () => {
    fc.assert(
      fc.property(prose, container, prose, fc.boolean(), (before, value, after, fenced) => {
        const json = JSON.stringify(value, null, fenced ? 2 : 0);
        const text = fenced
          ? `${before}\n\`\`\`json\n${json}\n\`\`\`\n${after}`
          : `${before} ${json} ${after}`;
        expect(extractJson({ text })).toEqual({ ok: true, value: normalise(value) });
      }),
    );
  });

  it("skips reasoning blocks that contain braces", () => {
    const text = '<think>maybe {"allowed": true}? no</think>\n{"allowed": false}';
    expect(extractJson({ text })).toEqual({ ok: true, value: { allowed: false } });
  });

  it("takes the outermost value, not an inner one", () => {
    expect(extractJson({ text: 'Result: {"a": {"b": [1, {"c": 2}]}} done' })).toEqual({
      ok: true,
      value: { a: { b: [1, { c: 2 }] } },
    });
  });

  it("handles braces inside strings", () => {
    expect(extractJson({ text: 'x {"s": "a } ] \\" {"} y' })).toEqual({
      ok: true,
      value: { s: 'a } ] " {' },
    });
  });

  it("says why when there is nothing to take", () => {
    expect(extractJson({ text: "   " })).toMatchObject({
      ok: false,
      error: expect.stringContaining("empty"),
    });
    expect(extractJson({ text: "no json here" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("no parseable"),
    });
    expect(extractJson({ text: '{"reason": "cut off' })).toMatchObject({
      ok: false,
      error: expect.stringContaining("incomplete"),
    });
  });

  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const result = extractJson({ text });
        expect(typeof result.ok).toBe("boolean");
      }),
    );
  });
});
