/**
 * The abuse suite: hostile or broken programs must be contained and answered as execution errors with the
 * right code, in bounded time, and the pool must run a good program right after each of them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorCode } from "../core/errors.js";
import { createQuickJsSandbox, type QuickJsSandbox } from "./quickjs-sandbox.js";
import type { SandboxLimits, SandboxResult } from "./sandbox.js";

let sandbox: QuickJsSandbox;
beforeAll(async () => {
  sandbox = createQuickJsSandbox({
    workers: 1,
    limits: { timeMs: 300, memoryBytes: 16 * 1024 * 1024, outputBytes: 64 * 1024 },
    watchdogMarginMs: 700,
  });
  await sandbox.ready();
});
afterAll(async () => {
  await sandbox.close();
});

const GOOD = 'print("fine");\nfinish({ label: 0, reasons: {}, output: data.answer });';

async function expectGoodRunAfter(): Promise<void> {
  const good = await sandbox.run({ code: GOOD, data: { answer: "ok" } });
  expect(good).toMatchObject({ ok: true, result: { label: 0, output: "ok" }, log: "fine" });
}

async function expectContained(
  code: string,
  codes: readonly ErrorCode[],
  limits?: Partial<SandboxLimits>,
): Promise<SandboxResult> {
  const result = await sandbox.run({ code, data: { answer: "ok" }, ...(limits ? { limits } : {}) });
  if (result.ok)
    throw new Error(`expected ${codes.join("/")}, the program succeeded: ${JSON.stringify(result)}`);
  expect(codes).toContain(result.error.code);
  expect(result.error.message.length).toBeGreaterThan(0);
  await expectGoodRunAfter();
  return result;
}

async function expectOutput(code: string): Promise<unknown> {
  const result = await sandbox.run({ code, data: { answer: "ok" } });
  if (!result.ok) throw new Error(`run failed: ${result.error.code} ${result.error.message}`);
  await expectGoodRunAfter();
  return result.result.output;
}

describe("escape attempts reach nothing of the host", () => {
  it("has no require, process, module loading, timers, network or wasm", async () => {
    const seen = await expectOutput(`finish({ label: 0, output: {
  require: typeof require, process: typeof process, module: typeof module, Buffer: typeof Buffer,
  setTimeout: typeof setTimeout, setInterval: typeof setInterval, queueMicrotask: typeof queueMicrotask,
  fetch: typeof fetch, XMLHttpRequest: typeof XMLHttpRequest, WebAssembly: typeof WebAssembly,
  SharedArrayBuffer: typeof SharedArrayBuffer, Atomics: typeof Atomics, console: typeof console,
  std: typeof std, os: typeof os,
} });`);
    expect(Object.values(seen as Record<string, string>).every((t) => t === "undefined")).toBe(true);
  });

  it("cannot call require", async () => {
    const result = await expectContained('const fs = require("fs");\nfinish({ label: 0 });', [
      "SANDBOX_RUNTIME",
    ]);
    expect(result.ok === false && result.error.message).toContain("require");
  });

  it("cannot import modules, statically or dynamically", async () => {
    await expectContained('import fs from "node:fs";\nfinish({ label: 0 });', ["SANDBOX_SYNTAX"]);
    const output = await expectOutput(`import("node:fs").then(
  () => finish({ label: 0, output: "escaped" }),
  (e) => finish({ label: 1, output: String(e) }),
);`);
    expect(output).not.toBe("escaped");
  });

  it("finds no host behind the Function constructor, eval or the global object", async () => {
    await expectContained('this.constructor.constructor("return process")();', ["SANDBOX_RUNTIME"]);
    const seen = await expectOutput(`const g = Function("return this")();
const viaEval = eval("typeof process");
const proto = Object.getPrototypeOf(globalThis);
finish({ label: 0, output: {
  sameGlobal: g === globalThis,
  viaEval,
  ownNames: Object.keys(g).sort(),
  protoIsObject: proto === Object.prototype,
  ctorProcess: (function () { return typeof this.constructor.constructor("return typeof process")(); })(),
} });`);
    expect(seen).toEqual({
      sameGlobal: true,
      viaEval: "undefined",
      ownNames: ["data"],
      protoIsObject: true,
      ctorProcess: "string",
    });
  });

  it("cannot pollute the host's prototypes, nor the next run's", async () => {
    await expectOutput(`Object.prototype.polluted = 1;
Object.prototype.toString = function () { return "pwned"; };
Array.prototype.push = function () { throw new Error("poisoned"); };
Function.prototype.call = null;
finish({ label: 0, output: "polluted" });`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.toString.call([])).toBe("[object Array]");
    const clean = await expectOutput(
      "const a = []; a.push(1); finish({ label: 0, output: [({}).polluted === undefined, String({}), a.length] });",
    );
    expect(clean).toEqual([true, "[object Object]", 1]);
  });
});

describe("runaway programs are stopped", () => {
  it.each([
    ["for (;;) {}", "for(;;)"],
    ["while (true) {}", "while(true)"],
    ["while (true) {\n  try {\n    for (;;) {}\n  } catch (e) {}\n}", "a loop whose errors are swallowed"],
    ["try {\n  for (;;) {}\n} finally {\n  finish({ label: 0 });\n}", "a finally that tries to finish"],
    ["function spin() { Promise.resolve().then(spin); }\nspin();", "an endless chain of promise jobs"],
    ["[3, 1, 2].sort(() => { for (;;) {} });", "a comparator that never returns"],
    ["/(a+)+$/.test('a'.repeat(40) + 'b');", "catastrophic regex backtracking"],
    ["finish({ get label() { for (;;) {} } });", "a getter finish reads"],
  ])("times out: %s (%s)", async (code) => {
    await expectContained(code, ["SANDBOX_TIMEOUT"]);
  });

  it("replaces a worker stuck in a long built-in call that never checks the deadline", async () => {
    const before = sandbox.stats().replaced;
    const result = await expectContained(
      "const hay = 'a'.repeat(400000);\nhay.indexOf('a'.repeat(20000) + 'b');\nfinish({ label: 0 });",
      ["SANDBOX_TIMEOUT"],
    );
    expect(result.ok === false && result.error.message).toContain("terminated");
    expect(sandbox.stats().replaced).toBe(before + 1);
  });

  it("answers a program whose promise never settles", async () => {
    const result = await expectContained(
      "(async () => { await new Promise(() => {}); finish({ label: 0 }); })();",
      ["SANDBOX_RUNTIME"],
    );
    expect(result.ok === false && result.error.message).toContain("never settled");
  });
});

describe("resource bombs are contained", () => {
  it.each([
    ["const a = [];\nfor (;;) a.push({ n: a.length, s: 'item ' + a.length });", "a growing array"],
    ["let s = 'x';\nfor (;;) s += s;", "a doubling string"],
    ["const s = 'x'.repeat(2 ** 29);", "one huge string"],
    ["const m = new Map();\nfor (let i = 0; ; i++) m.set(i, [i, i, i]);", "a growing map"],
    [
      "const parts = [];\nfor (;;) parts.push(JSON.stringify(parts.length) + 'x'.repeat(1000));",
      "many strings",
    ],
  ])("stops memory bombs: %s (%s)", async (code) => {
    // A generous time limit, so the memory limit is what stops them even on a slow machine.
    await expectContained(code, ["SANDBOX_MEMORY"], { memoryBytes: 4 * 1024 * 1024, timeMs: 20_000 });
  });

  it("stops deep recursion", async () => {
    await expectContained("function down(n) { return down(n + 1) + 1; }\ndown(0);", ["SANDBOX_LIMIT"]);
    await expectContained("const f = (n) => [n].map(() => f(n + 1));\nf(0);", ["SANDBOX_LIMIT"]);
  });

  it("stops nesting too deep to parse", async () => {
    await expectContained("JSON.parse('['.repeat(1e5));", ["SANDBOX_LIMIT"]);
  });

  it("refuses a result nested too deeply for the host", async () => {
    const result = await expectContained(
      "const deep = JSON.parse('['.repeat(1000) + ']'.repeat(1000));\nfinish({ label: 0, output: deep });",
      ["SANDBOX_LIMIT"],
    );
    expect(result.ok === false && result.error.message).toContain("nested");
  });

  it("stops gigantic output", async () => {
    const loop = await expectContained('for (;;) print("spam ".repeat(100));', ["SANDBOX_LIMIT"]);
    expect(loop.log.length).toBeLessThanOrEqual(64 * 1024);
    await expectContained('print("x".repeat(1e6));\nfinish({ label: 0 });', ["SANDBOX_LIMIT"]);
  });

  it("refuses a huge result through finish", async () => {
    const result = await expectContained('finish({ label: 0, output: "x".repeat(1e6) });', ["SANDBOX_LIMIT"]);
    expect(result.ok === false && result.error.message).toContain("finish");
  });
});

describe("strange throws are reported", () => {
  it.each([
    ["throw 42;", "42"],
    ['throw "plain string";', "plain string"],
    ["throw null;", "null"],
    ["throw undefined;", "undefined"],
    ['throw Symbol("sym");', "Symbol(sym)"],
    ['throw { code: 7, toString() { return "custom"; } };', '{"code":7}'],
  ])("%s", async (code, fragment) => {
    const result = await expectContained(code, ["SANDBOX_RUNTIME"]);
    expect(result.ok === false && result.error.message).toContain(fragment);
  });

  it("survives thrown values whose properties never return", async () => {
    await expectContained(
      'Object.defineProperty(Error.prototype, "message", { get() { for (;;) {} } });\nthrow new Error("x");',
      ["SANDBOX_RUNTIME", "SANDBOX_TIMEOUT"],
    );
    await expectContained("throw new Proxy({}, { get() { for (;;) {} } });", [
      "SANDBOX_RUNTIME",
      "SANDBOX_TIMEOUT",
    ]);
  });
});
