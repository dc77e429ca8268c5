import { afterEach, describe, expect, it } from "vitest";
import { allowDecision, type Decision } from "../core/decision.js";
import { isWardenError, WardenError } from "../core/errors.js";
import type { CheckOptions, Engine } from "../engines/engine.js";
import { withInlineCheck } from "../engines/inline-check.js";
import { loadPolicy } from "../policies/load-policy.js";
import type { EngineProvider } from "./engine-pool.js";
import { createEnginePool } from "./engine-pool.js";
import { createGuardService, type GuardService } from "./guard-service.js";

const policy = loadPolicy({ ref: "mcp-tools" }).policy;
const subject = { input: "Open an issue", output: "" };

/** An engine whose check is `check`, remembering the options each call received. */
function fakeEngine(check: (options: CheckOptions) => Promise<Decision>) {
  const calls: CheckOptions[] = [];
  const engine: Engine = {
    name: "fake",
    check: (options) => {
      calls.push(options);
      return check(options);
    },
  };
  const engines: EngineProvider = { defaultEngine: "compiled", get: async () => engine };
  return { engines, calls };
}

const never = () => new Promise<Decision>(() => undefined);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("createGuardService check time limit", () => {
  let service: GuardService | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  it("denies a check whose engine never settles, aborts the engine's signal and counts the timeout", async () => {
    const { engines, calls } = fakeEngine(never);
    service = createGuardService({ policies: [policy], engines, checkTimeoutMs: 50 });
    const decision = await service.check({ policy: "mcp-tools", subject });
    expect(decision).toMatchObject({
      allowed: false,
      verdict: "deny",
      label: 1,
      output: null,
      engine: "fake",
      policy: { name: "mcp-tools", version: policy.version },
      failure: { code: "CHECK_TIMEOUT", mode: "closed" },
    });
    expect(decision.failure?.message).toMatch(/did not finish within 50 ms; nothing was allowed/);
    const signal = calls[0]?.signal;
    expect(signal?.aborted).toBe(true);
    expect(isWardenError(signal?.reason) && signal.reason.code).toBe("CHECK_TIMEOUT");
    const stats = service.stats();
    expect(stats.checks).toMatchObject({ total: 1, deny: 1, failures: 1, timeouts: 1 });
    expect(stats.errors.total).toBe(0);
  }, 2000);

  it("drops the rejection of an engine that fails after the limit (no unhandled rejection)", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      let rejected!: () => void;
      const lateRejection = new Promise<void>((resolve) => {
        rejected = resolve;
      });
      const { engines } = fakeEngine(
        ({ signal }) =>
          new Promise<Decision>((_resolve, reject) => {
            // Ignores the abort and fails later, as a hung provider call finally timing out would.
            signal?.addEventListener("abort", () =>
              setTimeout(() => {
                reject(new WardenError({ code: "MODEL_UNAVAILABLE", message: "late failure" }));
                rejected();
              }, 20),
            );
          }),
      );
      service = createGuardService({ policies: [policy], engines, checkTimeoutMs: 30 });
      const decision = await service.check({ policy: "mcp-tools", subject });
      expect(decision.failure?.code).toBe("CHECK_TIMEOUT");
      await lateRejection;
      // unhandledRejection is emitted after the microtasks of the tick that rejected; give it a turn.
      await sleep(10);
      expect(unhandled).toEqual([]);
      expect(service.stats().errors.total).toBe(0);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  }, 2000);

  it("with 0 sets no limit: a slow engine that finishes is answered with its own decision", async () => {
    const { engines, calls } = fakeEngine(async () => {
      await sleep(100);
      return allowDecision({ engine: "fake", output: "done" });
    });
    service = createGuardService({ policies: [policy], engines, checkTimeoutMs: 0 });
    const decision = await service.check({ policy: "mcp-tools", subject });
    expect(decision).toMatchObject({ allowed: true, verdict: "allow", output: "done" });
    expect(decision.failure).toBeUndefined();
    // No limit and no caller signal: the engine gets no signal at all, as before the limit existed.
    expect(calls[0]?.signal).toBeUndefined();
    expect(service.stats().checks).toMatchObject({ total: 1, allow: 1, timeouts: 0 });
  }, 2000);

  it("answers an engine that finishes within the limit with its decision and a live signal", async () => {
    const { engines, calls } = fakeEngine(async () => allowDecision({ engine: "fake", output: "ok" }));
    service = createGuardService({ policies: [policy], engines, checkTimeoutMs: 1000 });
    const decision = await service.check({ policy: "mcp-tools", subject });
    expect(decision).toMatchObject({ allowed: true, output: "ok" });
    expect(calls[0]?.signal?.aborted).toBe(false);
  });

  it("passes an engine's error through as before", async () => {
    const { engines } = fakeEngine(async () => {
      throw new WardenError({ code: "MODEL_CONFIG", message: "no model" });
    });
    service = createGuardService({ policies: [policy], engines, checkTimeoutMs: 1000 });
    await expect(service.check({ policy: "mcp-tools", subject })).rejects.toMatchObject({
      code: "MODEL_CONFIG",
    });
    expect(service.stats().errors.byCode).toEqual({ MODEL_CONFIG: 1 });
  });

  it("keeps the caller's abort a cancellation: the engine sees it and its answer stands", async () => {
    const { engines, calls } = fakeEngine(
      ({ signal }) =>
        new Promise<Decision>((_resolve, reject) => {
          const aborted = () => reject(new WardenError({ code: "ABORTED", message: "The call was aborted" }));
          if (signal?.aborted) aborted();
          else signal?.addEventListener("abort", aborted);
        }),
    );
    service = createGuardService({ policies: [policy], engines, checkTimeoutMs: 1000 });
    const caller = new AbortController();
    const pending = service.check({ policy: "mcp-tools", subject, signal: caller.signal });
    await sleep(5);
    caller.abort();
    await expect(pending).rejects.toMatchObject({ code: "ABORTED" });
    expect(calls[0]?.signal?.aborted).toBe(true);
    expect(service.stats().errors.byCode).toEqual({ ABORTED: 1 });
    expect(service.stats().checks.timeouts).toBe(0);
  }, 2000);

  it("ends a cancelled check whose engine ignores the abort at the limit, as a cancellation", async () => {
    const { engines } = fakeEngine(never);
    service = createGuardService({ policies: [policy], engines, checkTimeoutMs: 30 });
    const caller = new AbortController();
    const pending = service.check({ policy: "mcp-tools", subject, signal: caller.signal });
    caller.abort();
    await expect(pending).rejects.toMatchObject({ code: "ABORTED" });
    expect(service.stats().checks.timeouts).toBe(0);
  }, 2000);

  it.each([1000, 0])(
    "takes a cancellation instead of a signal (limit %s ms): the engine's signal aborts, the listener goes",
    async (checkTimeoutMs) => {
      const { engines, calls } = fakeEngine(
        ({ signal }) =>
          new Promise<Decision>((_resolve, reject) => {
            signal?.addEventListener("abort", () => reject(signal.reason));
          }),
      );
      service = createGuardService({ policies: [policy], engines, checkTimeoutMs });
      let cancel: ((reason: unknown) => void) | undefined;
      let unlinked = false;
      const pending = service.check({
        policy: "mcp-tools",
        subject,
        cancellation: (c) => {
          cancel = c;
          return () => {
            unlinked = true;
          };
        },
      });
      await sleep(5);
      cancel?.(new WardenError({ code: "ABORTED", message: "the client closed the connection" }));
      await expect(pending).rejects.toMatchObject({ code: "ABORTED" });
      expect(calls[0]?.signal?.aborted).toBe(true);
      expect(unlinked).toBe(true);
      expect(service.stats().checks.timeouts).toBe(0);
    },
    2000,
  );

  it("ends a check cancelled through a cancellation whose engine ignores it at the limit, as a cancellation", async () => {
    const { engines } = fakeEngine(never);
    service = createGuardService({ policies: [policy], engines, checkTimeoutMs: 30 });
    const pending = service.check({
      policy: "mcp-tools",
      subject,
      cancellation: (cancel) => {
        cancel(new Error("gone"));
        return () => undefined;
      },
    });
    await expect(pending).rejects.toMatchObject({ code: "ABORTED" });
    expect(service.stats().checks.timeouts).toBe(0);
  }, 2000);

  it("unlinks the cancellation once the engine answered", async () => {
    const { engines } = fakeEngine(async () => allowDecision({ engine: "fake", output: "ok" }));
    service = createGuardService({ policies: [policy], engines, checkTimeoutMs: 1000 });
    let unlinked = false;
    const decision = await service.check({
      policy: "mcp-tools",
      subject,
      cancellation: () => () => {
        unlinked = true;
      },
    });
    expect(decision.allowed).toBe(true);
    expect(unlinked).toBe(true);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, "100"])(
    "rejects checkTimeoutMs %s naming the field",
    (value) => {
      const { engines } = fakeEngine(never);
      let thrown: unknown;
      try {
        createGuardService({ policies: [policy], engines, checkTimeoutMs: value as number });
      } catch (error) {
        thrown = error;
      }
      expect(isWardenError(thrown)).toBe(true);
      const error = thrown as WardenError;
      expect(error.code).toBe("INVALID_INPUT");
      expect(error.message).toContain("checkTimeoutMs");
      expect(error.details?.fields).toEqual(["checkTimeoutMs"]);
    },
  );

  it("answers a check that needs no waiting with the ready engine's inline check; else checks within the limit", async () => {
    const { engines, calls } = fakeEngine(async () => allowDecision({ engine: "fake", output: "checked" }));
    const engine = await engines.get({});
    let inlineAnswer: Decision | undefined = allowDecision({ engine: "fake", output: "inline" });
    withInlineCheck({ engine, inline: () => inlineAnswer });
    service = createGuardService({
      policies: [policy],
      engines: { ...engines, ready: () => engine },
      checkTimeoutMs: 1000,
    });
    expect((await service.check({ policy: "mcp-tools", subject })).output).toBe("inline");
    expect(calls).toHaveLength(0);
    inlineAnswer = undefined;
    expect((await service.check({ policy: "mcp-tools", subject })).output).toBe("checked");
    expect(calls[0]?.signal?.aborted).toBe(false);
  });

  it("gets the same decisions from the real compiled engine, inline once it is built", async () => {
    const pool = createEnginePool({ setup: {}, defaultEngine: "compiled" });
    service = createGuardService({ policies: [policy], engines: pool, checkTimeoutMs: 1000 });
    const call = (name: string, args: unknown) => ({
      input: "tidy up",
      output: JSON.stringify({ method: "tools/call", params: { name, arguments: args } }),
    });
    const subjects = [
      call("filesystem.read_file", { path: "/home/me/project/README.md" }),
      call("filesystem.delete_file", { path: "/home/me/project" }),
      call("shell.run", { command: "rm -rf / --no-preserve-root" }),
    ];
    expect(pool.ready({})).toBeUndefined();
    const first = await Promise.all(subjects.map((s) => service!.check({ policy: "mcp-tools", subject: s })));
    expect(pool.ready({})).toBeDefined();
    const again = await Promise.all(subjects.map((s) => service!.check({ policy: "mcp-tools", subject: s })));
    const verdicts = (ds: Decision[]) => ds.map((d) => [d.verdict, d.violations.map((v) => v.ruleId)]);
    expect(verdicts(again)).toEqual(verdicts(first));
    expect(first.map((d) => d.verdict)).toEqual(["allow", "deny", "deny"]);
    await pool.close();
    expect(pool.ready({})).toBeUndefined();
  });
});
