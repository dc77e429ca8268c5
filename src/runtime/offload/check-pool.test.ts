import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { Decision } from "../../core/decision.js";
import { WardenError } from "../../core/errors.js";
import { type Subject, SubjectSchema } from "../../core/subject.js";
import { createAutoEngine } from "../../engines/auto-engine.js";
import { createCompiledEngine } from "../../engines/compiled/compiled-engine.js";
import { loadPolicy } from "../../policies/load-policy.js";
import { packageRoot } from "../../policies/package-root.js";
import { checkWithin } from "../check-within.js";
import { createCheckPool } from "./check-pool.js";
import { exceedsSize } from "./subject-size.js";

const records: { id: string; policy: string; subject: unknown }[] = readFileSync(
  join(packageRoot(), "examples", "demo", "records.jsonl"),
  "utf8",
)
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l));

const hooks = new URL("./check-worker-hooks.test-support.mjs", import.meta.url);
const mcpTools = loadPolicy({ ref: "mcp-tools" }).policy;

/** The decision without its time, which differs between any two runs. */
function timeless(d: Decision): Decision {
  return { ...d, cost: { ...d.cost, ms: 0 } };
}

const shellCall = (command: string): Subject => ({
  input: "",
  output: JSON.stringify({ name: "shell.run", arguments: { command } }),
});

describe("check pool", () => {
  // Threshold 0: every check goes to a worker.
  const pool = createCheckPool({ workers: 2, thresholdBytes: 0 });
  afterAll(() => pool.close());

  it("gives the same decisions as the inline compiled engine", { timeout: 60_000 }, async () => {
    const inline = createCompiledEngine();
    const offloaded = createCompiledEngine({ offload: pool });
    const subjects = records.map((r) => ({
      policy: loadPolicy({ ref: r.policy }).policy,
      subject: SubjectSchema.parse(r.subject),
    }));
    // Beyond the demo: an undetermined call, a large one, and the fail-open mode.
    subjects.push({ policy: mcpTools, subject: shellCall("rm -rf $(cat list)") });
    subjects.push({ policy: mcpTools, subject: shellCall(`echo ${"a ".repeat(30_000)}`) });
    for (const { policy, subject } of subjects) {
      const [a, b] = await Promise.all([
        inline.check({ policy, subject }),
        offloaded.check({ policy, subject }),
      ]);
      expect(timeless(b)).toEqual(timeless(a));
    }
    const open = createCompiledEngine({ failMode: "open" });
    const openOffloaded = createCompiledEngine({ failMode: "open", offload: pool });
    const subject = shellCall("rm -rf $(cat list)");
    expect(timeless(await openOffloaded.check({ policy: mcpTools, subject }))).toEqual(
      timeless(await open.check({ policy: mcpTools, subject })),
    );
    expect(pool.stats().checks).toBeGreaterThanOrEqual(subjects.length);
  });

  it("gives the same assessments to the auto engine (undetermined facts included)", async () => {
    const inline = createAutoEngine({ compiled: createCompiledEngine() });
    const offloaded = createAutoEngine({ compiled: createCompiledEngine({ offload: pool }) });
    for (const record of records) {
      const policy = loadPolicy({ ref: record.policy }).policy;
      const subject = SubjectSchema.parse(record.subject);
      expect(timeless(await offloaded.check({ policy, subject }))).toEqual(
        timeless(await inline.check({ policy, subject })),
      );
    }
  });
});

describe("check pool under time limits and failures", () => {
  it("terminates the worker of a check past its limit; the next check gets a fresh one", async () => {
    const pool = createCheckPool({ workers: 1, thresholdBytes: 0, workerUrl: hooks });
    try {
      const engine = createCompiledEngine({ offload: pool });
      const decision = await checkWithin({
        policy: mcpTools,
        subject: { input: "__spin__", output: "" },
        getEngine: async () => engine,
        engineName: "compiled",
        limitMs: 300,
        started: performance.now(),
      });
      expect(decision.allowed).toBe(false);
      expect(decision.failure?.code).toBe("CHECK_TIMEOUT");
      expect(pool.stats()).toMatchObject({ replaced: 1, busy: 0, workers: 0 });
      const next = await engine.check({ policy: mcpTools, subject: shellCall("ls") });
      expect(next.failure).toBeUndefined();
      expect(pool.stats()).toMatchObject({ workers: 1, busy: 0 });
    } finally {
      await pool.close();
    }
  });

  it("rejects a check whose caller cancels it, queued or running", async () => {
    const pool = createCheckPool({ workers: 1, thresholdBytes: 0, workerUrl: hooks });
    try {
      const running = new AbortController();
      const queued = new AbortController();
      const reason = new WardenError({ code: "ABORTED", message: "gone" });
      const first = pool.assess({
        policy: mcpTools,
        subject: { input: "__spin__", output: "" },
        failMode: "closed",
        signal: running.signal,
      });
      const second = pool.assess({
        policy: mcpTools,
        subject: { input: "x", output: "" },
        failMode: "closed",
        signal: queued.signal,
      });
      expect(pool.stats().queued).toBe(1);
      queued.abort(reason);
      await expect(second).rejects.toBe(reason);
      running.abort(reason);
      await expect(first).rejects.toBe(reason);
      expect(pool.stats()).toMatchObject({ busy: 0, queued: 0, replaced: 1 });
    } finally {
      await pool.close();
    }
  });

  it("answers a crashed or out-of-memory worker's check with a fail-closed decision and recovers", async () => {
    const pool = createCheckPool({ workers: 1, thresholdBytes: 0, workerUrl: hooks, memoryMb: 64 });
    try {
      // Fail-open engines too: a failed worker is never an allow.
      const engine = createCompiledEngine({ failMode: "open", offload: pool });
      for (const input of ["__crash__", "__oom__"]) {
        const d = await engine.check({ policy: mcpTools, subject: { input, output: "" } });
        expect(d.allowed).toBe(false);
        expect(d.failure).toMatchObject({ code: "CHECK_WORKER_FAILED", mode: "closed" });
      }
      expect(pool.stats().replaced).toBe(2);
      const next = await engine.check({ policy: mcpTools, subject: shellCall("ls") });
      expect(next.failure).toBeUndefined();
    } finally {
      await pool.close();
    }
  }, 60_000);

  it("after close, refuses new checks and cancels those in hand", async () => {
    const pool = createCheckPool({ workers: 1, thresholdBytes: 0, workerUrl: hooks });
    const inHand = pool.assess({
      policy: mcpTools,
      subject: { input: "__spin__", output: "" },
      failMode: "closed",
    });
    const cancelled = expect(inHand).rejects.toMatchObject({ code: "ABORTED" });
    await pool.close();
    await cancelled;
    await expect(
      pool.assess({ policy: mcpTools, subject: { input: "", output: "" }, failMode: "closed" }),
    ).rejects.toMatchObject({ code: "ABORTED" });
    expect(pool.stats()).toMatchObject({ workers: 0, busy: 0 });
  });

  it("wants only subjects over its threshold", async () => {
    const pool = createCheckPool({ thresholdBytes: 1024 });
    expect(pool.wants({ subject: { input: "short", output: "" } })).toBe(false);
    expect(pool.wants({ subject: { input: "", output: "x".repeat(2000) } })).toBe(true);
    await pool.close();
  });
});

describe("exceedsSize", () => {
  it("measures strings, keys, arrays and nesting, and stops early on a deep value", () => {
    expect(exceedsSize({ value: "abc", bytes: 10 })).toBe(false);
    expect(exceedsSize({ value: { key: "x".repeat(20) }, bytes: 10 })).toBe(true);
    expect(exceedsSize({ value: new Array(100).fill(1), bytes: 50 })).toBe(true);
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(exceedsSize({ value: deep, bytes: 32 * 1024 })).toBe(true);
    expect(exceedsSize({ value: { a: [1, 2, { b: null }] }, bytes: 1000 })).toBe(false);
  });

  it("answers whether the value's whole measure passes the budget, counted as the header says", () => {
    // The measure written plainly (recursion, no early stop): 1 per value, plus a string's length, 8
    // for a number, and a key's length plus 3 per property.
    const measure = (value: unknown): number => {
      if (typeof value === "string") return 1 + value.length;
      if (typeof value === "number") return 9;
      if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + measure(item), 1);
      if (typeof value === "object" && value !== null)
        return Object.entries(value).reduce((sum, [key, item]) => sum + key.length + 3 + measure(item), 1);
      return 1;
    };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.integer({ min: 0, max: 400 }), (value, bytes) => {
        expect(exceedsSize({ value, bytes })).toBe(measure(value) > bytes);
        const frozen = Object.freeze({ a: Object.freeze([value]) });
        expect(exceedsSize({ value: [frozen, value], bytes })).toBe(2 * measure(value) + 7 > bytes);
      }),
      { numRuns: 500 },
    );
  });

  it("answers alike for a value frozen all the way down (whose size it remembers) and a changeable copy", () => {
    const deepFreeze = (value: unknown): unknown => {
      if (typeof value === "object" && value !== null) {
        for (const item of Object.values(value)) deepFreeze(item);
        Object.freeze(value);
      }
      return value;
    };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.integer({ min: 0, max: 400 }), (value, bytes) => {
        const open = exceedsSize({ value, bytes });
        const frozen = deepFreeze(structuredClone(value));
        expect(exceedsSize({ value: frozen, bytes })).toBe(open);
        // Measured again from what it remembered, and inside a value that can change.
        expect(exceedsSize({ value: frozen, bytes })).toBe(open);
        expect(exceedsSize({ value: { a: frozen }, bytes: bytes + 6 })).toBe(
          exceedsSize({ value: { a: value }, bytes: bytes + 6 }),
        );
      }),
      { numRuns: 500 },
    );
  });

  it("walks a frozen value with a part that can change, and sees that part change", () => {
    const inner = { text: "x" };
    const step = Object.freeze({ action: "read", args: inner });
    expect(exceedsSize({ value: step, bytes: 100 })).toBe(false);
    inner.text = "x".repeat(200);
    expect(exceedsSize({ value: step, bytes: 100 })).toBe(true);
  });
});
