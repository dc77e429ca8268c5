import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCases } from "./runner.js";
import { seededOrder } from "./seeded-order.js";

const cases = Array.from({ length: 20 }, (_, i) => ({ id: `c${i}`, value: i }));
type Row = { id: string; doubled: number; error?: string };

function options(
  resultsPath: string,
  extra: Partial<Parameters<typeof runCases<(typeof cases)[number], Row>>[0]> = {},
) {
  return {
    cases,
    resultsPath,
    run: async (c: (typeof cases)[number]) => ({ id: c.id, doubled: c.value * 2 }),
    onError: (c: (typeof cases)[number], e: unknown) => ({ id: c.id, doubled: -1, error: String(e) }),
    ...extra,
  };
}

describe("benchmark runner", () => {
  it("orders cases deterministically for a seed", () => {
    const a = seededOrder({ items: cases, seed: 7 }).map((c) => c.id);
    expect(seededOrder({ items: cases, seed: 7 }).map((c) => c.id)).toEqual(a);
    expect(seededOrder({ items: cases, seed: 8 }).map((c) => c.id)).not.toEqual(a);
    expect(seededOrder({ items: cases }).map((c) => c.id)).toEqual(cases.map((c) => c.id));
  });

  it("appends results and resumes without recomputing finished ids", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-run-"));
    const path = join(dir, "results.jsonl");
    const first = await runCases(options(path, { limit: 8, concurrency: 3 }));
    expect(first.ran).toBe(8);
    let calls = 0;
    const second = await runCases(
      options(path, {
        run: async (c) => {
          calls++;
          return { id: c.id, doubled: c.value * 2 };
        },
      }),
    );
    expect(second.resumed).toBe(8);
    expect(calls).toBe(12);
    expect(second.rows.map((r) => r.id)).toEqual(cases.map((c) => c.id));
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(20);
  });

  it("turns a thrown error into a failure row", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-run-"));
    const out = await runCases(
      options(join(dir, "r.jsonl"), {
        run: async (c) => {
          if (c.value === 3) throw new Error("boom");
          return { id: c.id, doubled: c.value * 2 };
        },
      }),
    );
    expect(out.rows.find((r) => r.id === "c3")).toMatchObject({ doubled: -1, error: "Error: boom" });
  });

  it("stops dispatching on interrupt and leaves a consistent file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-run-"));
    const path = join(dir, "results.jsonl");
    const controller = new AbortController();
    const out = await runCases(
      options(path, {
        concurrency: 2,
        run: async (c) => {
          if (c.value === 4) controller.abort();
          await new Promise((r) => setTimeout(r, 1));
          return { id: c.id, doubled: c.value * 2 };
        },
        signal: controller.signal,
      }),
    );
    expect(out.interrupted).toBe(true);
    expect(out.ran).toBeLessThan(cases.length);
    const lines = readFileSync(path, "utf8").trim().split("\n");
    expect(lines.every((l) => JSON.parse(l).id)).toBe(true);
    const resumed = await runCases(options(path));
    expect(resumed.resumed).toBe(lines.length);
    expect(resumed.rows).toHaveLength(cases.length);
  });

  it("drops a torn last line when resuming", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-run-"));
    const path = join(dir, "results.jsonl");
    writeFileSync(path, `${JSON.stringify({ id: "c0", doubled: 0 })}\n{"id":"c1","dou`);
    const out = await runCases(options(path));
    expect(out.resumed).toBe(1);
    const lines = readFileSync(path, "utf8").trim().split("\n");
    expect(lines).toHaveLength(20);
    expect(lines.every((l) => JSON.parse(l).id)).toBe(true);
  });
});
