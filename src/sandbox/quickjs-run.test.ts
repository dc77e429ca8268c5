import { newQuickJSWASMModule, type QuickJSWASMModule } from "quickjs-emscripten";
import { beforeAll, describe, expect, it } from "vitest";
import { definedNames, preparePrelude, runProgram, selectPrelude } from "./quickjs-run.js";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits, type SandboxResult } from "./sandbox.js";

let module: QuickJSWASMModule;
beforeAll(async () => {
  module = await newQuickJSWASMModule();
});

const TOOLBOX = [
  "function Double(x) {\n  return x * 2;\n}",
  "function Boom() {\n  return null.field;\n}",
  "function Quad(x) {\n  return Double(Double(x));\n}",
];

function run(
  code: string,
  options: { data?: unknown; prelude?: readonly string[]; limits?: Partial<SandboxLimits> } = {},
): SandboxResult {
  const outcome = runProgram({
    module,
    code,
    dataJson: JSON.stringify(options.data ?? { answer: "42" }),
    prelude: preparePrelude({ prelude: options.prelude ?? TOOLBOX }),
    limits: { ...DEFAULT_SANDBOX_LIMITS, timeMs: 500, stackBytes: 128 * 1024, ...options.limits },
  });
  expect(outcome.poisoned).toBe(false);
  return outcome.result;
}

function error(result: SandboxResult): { code: string; message: string } {
  if (result.ok) throw new Error(`expected a failed run, got ${JSON.stringify(result)}`);
  return result.error;
}

describe("runProgram: the program's world", () => {
  it("returns what finish receives, with the printed log", () => {
    const result = run(
      'print("checking", { a: 1 }, [1, 2], 3, true, null, undefined);\nfinish({ label: 0, reasons: {}, output: data.answer });',
    );
    expect(result).toMatchObject({
      ok: true,
      result: { label: 0, reasons: {}, output: "42" },
      log: 'checking {"a":1} [1,2] 3 true null undefined',
    });
  });

  it("prints errors as name and message and survives unprintable values", () => {
    const result = run(
      'const c = {}; c.self = c;\nprint(new TypeError("bad"), c, () => 1);\nfinish({ label: 1 });',
    );
    expect(result.ok && result.log).toBe("TypeError: bad [object Object] [Function]");
  });

  it("exposes only data, print, finish and the toolbox: no host capabilities", () => {
    const result = run(
      'finish({ label: 0, output: [typeof require, typeof process, typeof setTimeout, typeof fetch, typeof console, typeof WebAssembly, typeof Uint8Array, typeof Double].join(",") });',
    );
    expect(result.ok && result.result.output).toBe(
      "undefined,undefined,undefined,undefined,undefined,undefined,undefined,function",
    );
  });

  it("gives the program its own copy of data", () => {
    const result = run("data.items.push(4); finish({ label: 0, output: data });", {
      data: { items: [1, 2, 3] },
    });
    expect(result.ok && result.result.output).toEqual({ items: [1, 2, 3, 4] });
  });

  it("drops undefined fields and functions from the result as JSON does", () => {
    const result = run("finish({ label: 1, reasons: { why: undefined, f() {} }, output: () => 1 });");
    expect(result).toMatchObject({ ok: true, result: { label: 1, reasons: {} } });
    expect(result.ok && "output" in result.result).toBe(false);
  });

  it("keeps a __proto__ key of the result inert", () => {
    const result = run(
      'finish({ label: 0, reasons: JSON.parse(\'{"__proto__": {"polluted": true}, "ok": 1}\') });',
    );
    expect(result.ok && result.result.reasons).toEqual({ ok: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("runs promise jobs, so async code can finish", () => {
    const result = run("(async () => { await null; finish({ label: 1, output: 'later' }); })();");
    expect(result).toMatchObject({ ok: true, result: { label: 1, output: "later" } });
  });

  it("loads only the toolbox sources the program mentions, and what they need", () => {
    const result = run('finish({ label: 0, output: [Quad(1), Object.keys(globalThis).sort().join(",")] });');
    expect(result.ok && result.result.output).toEqual([4, "Double,Quad,data"]);
  });
});

describe("runProgram: finish is checked", () => {
  it.each([
    ["finish({ label: 2 });", "label must be the number 0"],
    ['finish({ label: "1" });', 'got "1"'],
    ["finish();", "got nothing"],
    ["finish(null);", "got null"],
    ["finish(1);", "got number"],
  ])("%s is an execution error", (code, fragment) => {
    const e = error(run(code));
    expect(e.code).toBe("SANDBOX_RUNTIME");
    expect(e.message).toContain(fragment);
  });

  it("reports a wrong call even when the program catches the error", () => {
    const e = error(run("try { finish({ label: 3 }); } catch (e) {}\nfinish({ label: 1 });"));
    expect(e.message).toContain("label must be the number 0");
  });

  it("refuses a second call", () => {
    expect(error(run("finish({ label: 1 }); finish({ label: 0 });")).message).toContain("more than once");
  });

  it("says so when the program never calls it", () => {
    expect(error(run("const x = 1;")).message).toContain("ended without calling finish");
    expect(error(run("new Promise(() => {});")).message).toContain("never settled");
  });

  it("reports a result that cannot be serialised with the program line", () => {
    const e = error(run("const o = {};\no.self = o;\nfinish({ label: 1, reasons: o });"));
    expect(e.code).toBe("SANDBOX_RUNTIME");
    expect(e.message).toMatch(/circular/i);
    expect(e.message).toContain("line 3");
  });
});

describe("runProgram: errors a model can fix", () => {
  it("gives syntax errors with line and column", () => {
    const e = error(run("const a = 1;\nconst b = ;\nfinish({ label: 0 });"));
    expect(e.code).toBe("SANDBOX_SYNTAX");
    expect(e.message).toContain("SyntaxError");
    expect(e.message).toContain("line 2, column 11");
    expect(e.message).toContain("2 | const b = ;");
  });

  it("explains that modules are not available", () => {
    const e = error(run('import fs from "fs";\nfinish({ label: 0 });'));
    expect(e.code).toBe("SANDBOX_SYNTAX");
    expect(e.message).toContain("import, export and require are not available");
  });

  it("names a misspelt function, its line, and the likely intended name", () => {
    const e = error(run("const x = 1;\n\n\nconst r = Dobule(x);\nfinish({ label: 0 });"));
    expect(e.code).toBe("SANDBOX_RUNTIME");
    expect(e.message).toContain("ReferenceError");
    expect(e.message).toContain("Dobule");
    expect(e.message).toContain("line 4");
    expect(e.message).toContain("did you mean Double?");
  });

  it("locates errors inside toolbox functions at the program's call", () => {
    const e = error(run("const x = 1;\nBoom();"));
    expect(e.message).toContain("TypeError");
    expect(e.message).toContain("in Boom, called at line 2");
  });

  it("is a runtime error, not a syntax error, when JSON.parse fails at run time", () => {
    const e = error(run("JSON.parse('{bad');"));
    expect(e.code).toBe("SANDBOX_RUNTIME");
  });

  it("describes thrown values that are not errors", () => {
    expect(error(run("throw 42;")).message).toContain("threw 42");
    expect(error(run('throw { reason: "x" };')).message).toContain('{"reason":"x"}');
    expect(error(run("throw null;")).message).toContain("threw null");
  });

  it("reports an unhandled rejection of the program's promise", () => {
    const e = error(run("(async () => { await null; throw new Error('late failure'); })();"));
    expect(e.message).toContain("Unhandled promise rejection");
    expect(e.message).toContain("late failure");
  });

  it("keeps the log printed before the error", () => {
    const result = run('print("step 1");\nnull.x;');
    expect(result.log).toBe("step 1");
  });
});

describe("runProgram: limits", () => {
  it("stops endless loops at the time limit", () => {
    const e = error(run("let i = 0;\nwhile (true) {\n  i++;\n}", { limits: { timeMs: 50 } }));
    expect(e.code).toBe("SANDBOX_TIMEOUT");
    expect(e.message).toContain("50 ms");
  });

  it("stops runaway allocation at the memory limit", () => {
    const e = error(
      run("const parts = [];\nfor (;;) parts.push({ index: parts.length, text: 'item ' + parts.length });", {
        limits: { memoryBytes: 4 * 1024 * 1024, timeMs: 5000 },
      }),
    );
    expect(e.code).toBe("SANDBOX_MEMORY");
  });

  it("stops deep recursion at the stack limit", () => {
    const e = error(
      run("function down(n) { return down(n + 1) + 1; }\ndown(0);", { limits: { stackBytes: 64 * 1024 } }),
    );
    expect(e.code).toBe("SANDBOX_LIMIT");
    expect(e.message).toMatch(/repeated \d+ times/);
  });

  it("fails a run that prints more than the output limit and keeps what fit", () => {
    const result = run('for (let i = 0; i < 100000; i++) print("line " + i);\nfinish({ label: 0 });', {
      limits: { outputBytes: 1000 },
    });
    expect(error(result).code).toBe("SANDBOX_LIMIT");
    expect(result.log.length).toBeLessThanOrEqual(1000);
    expect(result.log.startsWith("line 0\nline 1")).toBe(true);
  });

  it("fails a result larger than the output limit", () => {
    const e = error(
      run('finish({ label: 0, output: "x".repeat(5000) });', { limits: { outputBytes: 1000 } }),
    );
    expect(e.code).toBe("SANDBOX_LIMIT");
    expect(e.message).toContain("finish");
  });

  it("stops when the caller aborts", () => {
    const outcome = runProgram({
      module,
      code: "for (;;) {}",
      dataJson: "null",
      prelude: preparePrelude({ prelude: [] }),
      limits: { ...DEFAULT_SANDBOX_LIMITS, timeMs: 10_000 },
      shouldAbort: () => true,
    });
    expect(outcome.result.ok === false && outcome.result.error.code).toBe("ABORTED");
  });

  it("reports a broken toolbox source as an internal error naming it", () => {
    const e = error(run("Broken();\nfinish({ label: 0 });", { prelude: ["function Broken( {"] }));
    expect(e.code).toBe("SANDBOX_INTERNAL");
    expect(e.message).toContain("toolbox-1.js");
  });
});

describe("runProgram: a damaged interpreter", () => {
  it("reports a host stack overflow inside the interpreter and flags the module as poisoned", async () => {
    // Its own module: after this run it must not be used again. A 4 MiB QuickJS stack on this thread's
    // much smaller native stack lets the host overflow first.
    const own = await newQuickJSWASMModule();
    const outcome = runProgram({
      module: own,
      code: "function down(n) { return down(n + 1) + 1; }\ndown(0);",
      dataJson: "null",
      prelude: preparePrelude({ prelude: [] }),
      limits: { ...DEFAULT_SANDBOX_LIMITS, stackBytes: 4 * 1024 * 1024 },
    });
    expect(outcome.result.ok === false && outcome.result.error.code).toBe("SANDBOX_LIMIT");
    expect(outcome.poisoned).toBe(true);
  });
});

describe("prelude selection", () => {
  it("finds names declared at the start of a line only", () => {
    expect(
      definedNames({ source: "function A() {\n  function inner() {}\n}\nconst B = 1;\nclass C {}" }),
    ).toEqual(["A", "B", "C"]);
  });

  it("always loads a source whose names it cannot find", () => {
    const prelude = preparePrelude({ prelude: ["function A() {}", "(() => {})();", "function B() {}"] });
    expect(selectPrelude({ prelude, code: "B();" })).toEqual([1, 2]);
    expect(selectPrelude({ prelude, code: "AB();" })).toEqual([1]);
  });
});
