import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WardenError } from "../core/errors.js";
import { createQuickJsSandbox, openQuickJsSandbox, type QuickJsSandbox } from "./quickjs-sandbox.js";
import type { SandboxResult } from "./sandbox.js";

let sandbox: QuickJsSandbox;
beforeAll(async () => {
  sandbox = createQuickJsSandbox({ workers: 1, limits: { timeMs: 1_000 } });
  await sandbox.ready();
});
afterAll(async () => {
  await sandbox.close();
});

const TOOLBOX = Object.freeze(["function Triple(x) {\n  return 3 * x;\n}"]);

function output(result: SandboxResult): unknown {
  if (!result.ok) throw new Error(`run failed: ${result.error.code} ${result.error.message}`);
  return result.result.output;
}

describe("QuickJS sandbox pool", () => {
  it("runs a program against its data and toolbox", async () => {
    const result = await sandbox.run({
      code: 'print("n is", data.n);\nfinish({ label: 1, reasons: { why: "test" }, output: Triple(data.n) });',
      data: { n: 7 },
      prelude: TOOLBOX,
    });
    expect(result).toMatchObject({
      ok: true,
      result: { label: 1, reasons: { why: "test" }, output: 21 },
      log: "n is 7",
    });
    expect(result.ms).toBeGreaterThanOrEqual(0);
  });

  it("does not let a run's globals or prototype changes reach the next run or the host", async () => {
    const first = await sandbox.run({
      code: `globalThis.leaked = "secret";
Object.prototype.polluted = true;
Array.prototype.includes = function () { return "patched"; };
JSON.stringify = function () { return "hijacked"; };
String.prototype.trim = null;
finish({ label: 0, output: "done" });`,
      data: null,
    });
    expect(output(first)).toBe("done");
    const second = await sandbox.run({
      code: `finish({ label: 0, output: [
  typeof leaked, ({}).polluted, [1].includes(1), JSON.stringify({ a: 1 }), typeof " x ".trim
] });`,
      data: null,
    });
    expect(output(second)).toEqual(["undefined", null, true, '{"a":1}', "function"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect([1].includes(1)).toBe(true);
    expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
  });

  it("hands the program a copy of the data: the caller's object is untouched", async () => {
    const data = { items: [1, 2] };
    const result = await sandbox.run({
      code: "data.items.push(3); finish({ label: 0, output: data.items });",
      data,
    });
    expect(output(result)).toEqual([1, 2, 3]);
    expect(data.items).toEqual([1, 2]);
  });

  it("answers many concurrent runs, each with its own data", async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        sandbox.run({
          code: "finish({ label: data.n % 2, output: Triple(data.n) });",
          data: { n },
          prelude: TOOLBOX,
        }),
      ),
    );
    expect(results.map(output)).toEqual(Array.from({ length: 40 }, (_, n) => 3 * n));
    expect(results.map((r) => r.ok && r.result.label)).toEqual(Array.from({ length: 40 }, (_, n) => n % 2));
  });

  it("keeps working across more toolbox versions than a worker caches", async () => {
    const preludes = Array.from({ length: 12 }, (_, i) =>
      Object.freeze([`function Version() {\n  return ${i};\n}`]),
    );
    for (const round of [0, 1]) {
      const results = await Promise.all(
        preludes.map((prelude) =>
          sandbox.run({ code: "finish({ label: 0, output: Version() });", data: null, prelude }),
        ),
      );
      expect(results.map(output), `round ${round}`).toEqual(preludes.map((_, i) => i));
    }
  });

  it("applies per-run limits over the pool's", async () => {
    const result = await sandbox.run({ code: "for (;;) {}", data: null, limits: { timeMs: 50 } });
    expect(result.ok === false && result.error.code).toBe("SANDBOX_TIMEOUT");
    expect(result.ok === false && result.error.message).toContain("50 ms");
  });

  it("cancels a running program when the caller aborts", async () => {
    const controller = new AbortController();
    const running = sandbox.run({
      code: "for (;;) {}",
      data: null,
      signal: controller.signal,
      limits: { timeMs: 20_000 },
    });
    setTimeout(() => controller.abort(), 50);
    const result = await running;
    expect(result.ok === false && result.error.code).toBe("ABORTED");
    expect(output(await sandbox.run({ code: "finish({ label: 0, output: 'after' });", data: null }))).toBe(
      "after",
    );
  });

  it("drops a queued run when the caller aborts, and refuses an already aborted one", async () => {
    const blocker = sandbox.run({ code: "for (;;) {}", data: null, limits: { timeMs: 300 } });
    const blocker2 = sandbox.run({ code: "for (;;) {}", data: null, limits: { timeMs: 300 } });
    const controller = new AbortController();
    const queued = sandbox.run({ code: "finish({ label: 0 });", data: null, signal: controller.signal });
    controller.abort();
    const result = await queued;
    expect(result.ok === false && result.error.code).toBe("ABORTED");
    expect(result.ok === false && result.error.message).toContain("before it started");
    await Promise.all([blocker, blocker2]);
    const already = await sandbox.run({
      code: "finish({ label: 0 });",
      data: null,
      signal: AbortSignal.abort(),
    });
    expect(already.ok === false && already.error.code).toBe("ABORTED");
  });

  it("rejects bad options with an error naming the field", async () => {
    await expect(sandbox.run({ code: 42 as unknown as string, data: null })).rejects.toThrow(/code/);
    await expect(sandbox.run({ code: "", data: null, limits: { timeMs: -1 } })).rejects.toThrow(
      /limits\.timeMs/,
    );
    await expect(
      sandbox.run({ code: "", data: null, limits: { stackBytes: 64 * 1024 * 1024 } }),
    ).rejects.toThrow(/limits\.stackBytes/);
    const error = await sandbox.run({ code: "", data: { n: 1n } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WardenError);
    expect((error as WardenError).code).toBe("INVALID_INPUT");
    expect((error as WardenError).message).toContain("data");
    expect(() => createQuickJsSandbox({ workers: 0 })).toThrow(/workers/);
  });

  it("counts what it answered", () => {
    const stats = sandbox.stats();
    expect(stats.workers).toBe(1);
    expect(stats.runs).toBeGreaterThan(40);
    expect(stats.queued).toBe(0);
  });
});

describe("closing the pool", () => {
  it("answers pending runs and later runs as aborted", async () => {
    const pool = createQuickJsSandbox({ workers: 1 });
    const pending = [
      pool.run({ code: "for (;;) {}", data: null }),
      pool.run({ code: "finish({ label: 0 });", data: null }),
    ];
    await pool.close();
    const results = await Promise.all(pending);
    expect(results.map((r) => r.ok === false && r.error.code)).toEqual(["ABORTED", "ABORTED"]);
    const after = await pool.run({ code: "finish({ label: 0 });", data: null });
    expect(after.ok === false && after.error.code).toBe("ABORTED");
  });
});

describe("the sandbox without QuickJS installed", () => {
  it("fails every run with MISSING_DEPENDENCY naming the package, and starts no more workers", async () => {
    const name = "quickjs-emscripten-not-installed";
    const pool = openQuickJsSandbox({ options: { workers: 1 }, quickjsPackage: name });
    try {
      const first = await pool.run({ code: 'finish({ label: 0, reasons: {}, output: "x" })', data: null });
      expect(first).toMatchObject({ ok: false, error: { code: "MISSING_DEPENDENCY" } });
      expect(first.ok ? "" : first.error.message).toContain(`need the optional package ${name}`);
      expect(first.ok ? "" : first.error.message).toContain(`npm install ${name}`);
      const again = await pool.run({ code: "finish({})", data: null });
      expect(again).toMatchObject({ ok: false, error: { code: "MISSING_DEPENDENCY" } });
      expect(pool.stats()).toMatchObject({ workers: 0, queued: 0, replaced: 0 });
    } finally {
      await pool.close();
    }
  });
});
