import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { type CassetteEntry, cassetteKey, embedCassetteKey, openCassette } from "./cassette.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "warden-cassette-"));
  dirs.push(dir);
  return join(dir, "c.jsonl");
}

const base = {
  modelId: "openai:gpt-4o",
  purpose: "plan",
  system: "sys",
  messages: [{ role: "user" as const, content: "hi" }],
  schema: { type: "object", properties: { a: { type: "string" } } },
};

describe("cassetteKey", () => {
  it("is stable and ignores property order in the schema", () => {
    const reordered = { properties: { a: { type: "string" } }, type: "object" };
    expect(cassetteKey(base)).toBe(cassetteKey({ ...base, schema: reordered }));
    expect(cassetteKey(base)).toMatch(/^[0-9a-f]{32}$/);
  });

  it("changes with every part of the request", () => {
    const keys = new Set([
      cassetteKey(base),
      cassetteKey({ ...base, modelId: "openai:gpt-4o-mini" }),
      cassetteKey({ ...base, purpose: "code" }),
      cassetteKey({ ...base, system: "other" }),
      cassetteKey({ ...base, messages: [{ role: "user", content: "hi!" }] }),
      cassetteKey({ ...base, messages: [{ role: "assistant", content: "hi" }] }),
      cassetteKey({ ...base, schema: undefined }),
      embedCassetteKey({ modelId: base.modelId, values: ["hi"] }),
    ]);
    expect(keys.size).toBe(8);
  });

  it("does not confuse a message boundary with content", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const split = cassetteKey({
          modelId: "m",
          messages: [
            { role: "user", content: a },
            { role: "user", content: b },
          ],
        });
        const joined = cassetteKey({ modelId: "m", messages: [{ role: "user", content: a + b }] });
        return split !== joined;
      }),
    );
  });
});

describe("openCassette", () => {
  const entry = (key: string, text: string): CassetteEntry => ({
    kind: "text",
    key,
    model: "m",
    text,
    usage: { inputTokens: 1, outputTokens: 2 },
  });

  it("appends entries and reads them back, the last recording of a key winning", async () => {
    const path = tempPath();
    const writer = openCassette({ path, mode: "record" });
    await Promise.all([
      writer.record({ entry: entry("k1", "first") }),
      writer.record({ entry: entry("k2", "two") }),
    ]);
    await writer.record({ entry: entry("k1", "second") });
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(3);
    const reader = openCassette({ path, mode: "replay" });
    expect(reader.size()).toBe(2);
    expect(reader.lookup({ key: "k1" })).toMatchObject({ text: "second" });
    expect(reader.lookup({ key: "missing" })).toBeUndefined();
  });

  it("treats a missing file as empty", () => {
    expect(openCassette({ path: tempPath(), mode: "replay" }).size()).toBe(0);
  });

  it("names the line of a damaged file", () => {
    const path = tempPath();
    writeFileSync(path, `${JSON.stringify(entry("k", "t"))}\n{not json\n`);
    expect(() => openCassette({ path, mode: "replay" }).lookup({ key: "k" })).toThrow(/line 2/);
    writeFileSync(path, `${JSON.stringify({ kind: "text", key: "k" })}\n`);
    expect(() => openCassette({ path, mode: "replay" }).size()).toThrow(/line 1 is not a cassette entry/);
  });
});
