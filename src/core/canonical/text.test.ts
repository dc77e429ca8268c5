import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compatibleText, joinedTexts, listReadings, textReadings } from "./text.js";

const read = (text: string) => textReadings({ text });

describe("textReadings", () => {
  it("reads printable ASCII without spaces at its ends as itself alone", () => {
    for (const text of ["", "admin", "release/2.0", "a b", "x"]) expect(read(text)).toEqual([text]);
  });

  it("adds the trimmed text, its compatibility form without invisible characters, and the part before a NUL", () => {
    expect(read("admin ")).toEqual(["admin ", "admin"]);
    expect(read("\tadmin")).toEqual(["\tadmin", "admin"]);
    expect(read("ａｄｍｉｎ")).toEqual(["ａｄｍｉｎ", "admin"]);
    expect(read("ad\u200bmin")).toEqual(["ad\u200bmin", "admin"]);
    expect(read("ad\u00admin")).toEqual(["ad\u00admin", "admin"]);
    expect(read("\u200fadmin")).toEqual(["\u200fadmin", "admin"]);
    expect(read("admin\u0000x")).toEqual(["admin\u0000x", "admin"]);
    expect(read("jeß")).toEqual(["jeß", "jess"]);
    expect(read("ROẞ")).toEqual(["ROẞ", "ROss"]);
    expect(read(" ａｄ\u200bmin\u0000rest")).toEqual([
      " ａｄ\u200bmin\u0000rest",
      "ａｄ\u200bmin\u0000rest",
      "admin\u0000rest",
      "admin",
    ]);
  });

  it("adds the text without accents, as accent-insensitive collations compare it", () => {
    expect(read("admín")).toEqual(["admín", "admin"]);
    expect(read("ADMİN")).toEqual(["ADMİN", "ADMIN"]);
    expect(read("admin\u0301")).toEqual(["admin\u0301", "admiń", "admin"]);
    // NFKC gives "!" and a space carrying two accents; without them the space is trimmed too.
    expect(read("!\u1fed")).toEqual(["!\u1fed", "! \u0308\u0300", "!"]);
  });

  it("always reads the text itself first, and every reading is trimmed or the text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        const readings = read(text);
        expect(readings[0]).toBe(text);
        expect(new Set(readings).size).toBe(readings.length);
        for (const r of readings.slice(1)) expect(r).toBe(r.trim());
      }),
      { numRuns: 3000 },
    );
  });
});

describe("listReadings", () => {
  it("reads a list of plain texts as itself, and otherwise adds the list under each reader", () => {
    expect(listReadings({ list: ["admin", 1] })).toEqual([["admin", 1]]);
    expect(listReadings({ list: ["ａｄｍíｎ ", 1] })).toEqual([
      ["ａｄｍíｎ ", 1],
      ["ａｄｍíｎ", 1],
      ["admín", 1],
      ["admin", 1],
      ["admin", 1],
    ]);
  });
});

describe("compatibleText", () => {
  it("is the text in NFKC form without invisible characters, and plain ASCII as it is", () => {
    expect(compatibleText({ text: "４１１１\u200b1111" })).toBe("41111111");
    expect(compatibleText({ text: "a  b" })).toBe("a  b");
    expect(compatibleText({ text: "" })).toBe("");
  });
});

describe("joinedTexts", () => {
  it("is the JSON text, then the leaves (keys and values, in order) as lines, as words and run together", () => {
    expect(joinedTexts({ value: ['say "hi"', 2, { k: true, n: null }] })).toEqual({
      ok: true,
      texts: [
        '["say \\"hi\\"",2,{"k":true,"n":null}]',
        'say "hi"\n2\nk\ntrue\nn',
        'say "hi" 2 k true n',
        'say "hi"2ktruen',
      ],
    });
    expect(joinedTexts({ value: [] })).toEqual({ ok: true, texts: ["[]", ""] });
  });

  it("says why for a value JSON cannot write: a cycle, a BigInt, nesting too deep", () => {
    const cycle: unknown[] = [];
    cycle.push(cycle);
    let deep: unknown = ["x"];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    for (const value of [cycle, [1n], deep as object]) {
      expect(joinedTexts({ value })).toMatchObject({ ok: false, reason: /cannot be read as text/ });
    }
  });

  it("has every string leaf, whole, in each joined text (property)", () => {
    const leaf = fc.string();
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.array(tie("node")),
        fc.dictionary(fc.string(), tie("node")),
      ),
    })).node;
    fc.assert(
      fc.property(fc.array(value), (list) => {
        const joined = joinedTexts({ value: list });
        if (!joined.ok) throw new Error(joined.reason);
        for (const text of joined.texts.slice(1)) {
          for (const s of collect(list)) expect(text.includes(s)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});

/** Every string in a value, keys included. */
function collect(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(collect);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => [k, ...collect(v)]);
  }
  return [];
}
