/**
 * One run of a guardrail program in QuickJS, synchronously, on the calling thread (the pool calls it
 * inside a worker). Every run gets a fresh QuickJS runtime and context, so nothing a program does (globals,
 * patched prototypes, garbage) survives into the next run, and the memory limit measures this run alone.
 * Anything that goes wrong comes back as a SandboxResult error; `poisoned` tells the caller that the wasm
 * instance itself may be damaged (the host stack overflowed inside it) and must be replaced.
 *
 * Parsing is most of the cost of a run, so the globals are built natively (quickjs-globals.ts) and only the
 * prelude sources that define a name the program mentions are evaluated (see selectPrelude).
 */
import {
  DefaultIntrinsics,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from "quickjs-emscripten";
import type { ErrorCode } from "../core/errors.js";
import {
  classifyThrown,
  formatBytes,
  parseStack,
  sourceExcerpt,
  type ThrownValue,
} from "./quickjs-errors.js";
import { PROGRAM_FILE, preludeFile } from "./quickjs-files.js";
import { capturePristine, installGlobals, type Pristine, readThrown } from "./quickjs-globals.js";
import type { GuardResult, SandboxLimits, SandboxResult } from "./sandbox.js";

/** A prelude analysed once: its sources and the global names each defines. */
export interface PreparedPrelude {
  sources: readonly string[];
  /** Names each source defines (empty when none could be found: such a source is always loaded). */
  names: readonly (readonly string[])[];
  /** Every name the program may call, for "did you mean" hints. */
  allNames: readonly string[];
  /** Per source, a test for a mention of one of its names in a text. */
  mentions: readonly (RegExp | undefined)[];
}

export interface ProgramRunOptions {
  module: QuickJSWASMModule;
  code: string;
  /** The case data as JSON text (`data` inside the program). */
  dataJson: string;
  prelude: PreparedPrelude;
  limits: SandboxLimits;
  /** Polled while the program runs; returning true stops it (the caller's abort). */
  shouldAbort?: () => boolean;
}

export interface ProgramOutcome {
  result: SandboxResult;
  /** The wasm instance may be damaged: do not run anything else in this module. */
  poisoned: boolean;
}

/** Extra heap and time granted after the program stopped, to read what it threw. */
const DESCRIBE_MEMORY_BYTES = 4 * 1024 * 1024;
const DESCRIBE_TIME_MS = 100;

const GLOBAL_NAMES = ["print", "finish", "data"];

/**
 * Typed arrays are left out of the program's world: guardrail code has no use for them and they are a
 * third of the cost of creating a context.
 */
const INTRINSICS = { ...DefaultIntrinsics, TypedArrays: false };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Global names one source defines: declarations that start a line (function, const, let, var, class).
 * Indented declarations are taken as nested helpers, not globals.
 */
export function definedNames(options: { source: string }): string[] {
  const names = new Set<string>();
  const { source } = options;
  for (const m of source.matchAll(/^(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(/gm))
    names.add(m[1]!);
  for (const m of source.matchAll(/^(?:const|let|var|class)\s+([A-Za-z_$][\w$]*)/gm)) names.add(m[1]!);
  return [...names];
}

export function preparePrelude(options: { prelude: readonly string[] }): PreparedPrelude {
  const names = options.prelude.map((source) => definedNames({ source }));
  const mentions = names.map((list) =>
    list.length === 0
      ? undefined
      : new RegExp(`(?<![\\w$])(?:${list.map(escapeRegExp).join("|")})(?![\\w$])`),
  );
  return {
    sources: options.prelude,
    names,
    allNames: [...new Set([...GLOBAL_NAMES, ...names.flat()])],
    mentions,
  };
}

/**
 * Indices of the prelude sources a program needs: those defining a name the program mentions, then those
 * the chosen sources mention in turn, plus every source whose names could not be found. A program that
 * reaches a toolbox function only through a computed name (globalThis["Check" + "Access"]) will not find it.
 */
export function selectPrelude(options: { prelude: PreparedPrelude; code: string }): number[] {
  const { prelude } = options;
  const chosen = new Set<number>();
  const texts = [options.code];
  while (texts.length > 0) {
    const text = texts.pop()!;
    for (const [index, mention] of prelude.mentions.entries()) {
      if (chosen.has(index)) continue;
      if (mention === undefined || mention.test(text)) {
        chosen.add(index);
        texts.push(prelude.sources[index]!);
      }
    }
  }
  return [...chosen].sort((a, b) => a - b);
}

/** Bytes the runtime has allocated, read from QuickJS's usage report (only on the error path: it walks the heap). */
function allocatedBytes(runtime: QuickJSRuntime): number | undefined {
  try {
    const match = /memory allocated\s+\d+\s+(\d+)/.exec(runtime.dumpMemoryUsage());
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

type StopReason = "time" | "output" | "result" | "depth" | "abort";

/** Deepest nesting accepted in a finish(...) result; deeper values break hosts that walk them recursively. */
export const MAX_RESULT_DEPTH = 64;

/** Nesting depth of a JSON text (brackets outside strings). */
export function jsonDepth(options: { text: string }): number {
  const { text } = options;
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 93 || c === 125) depth--;
  }
  return max;
}

export function runProgram(options: ProgramRunOptions): ProgramOutcome {
  const { limits, code } = options;
  const started = performance.now();
  const deadline = started + limits.timeMs;
  let stop: StopReason | undefined;
  let describing = false;
  let describeDeadline = 0;

  const lines: string[] = [];
  let logBytes = 0;
  let resultText: string | undefined;
  let misuse: string | undefined;

  let runtime: QuickJSRuntime | undefined;
  let context: QuickJSContext | undefined;
  let pristine: Pristine | undefined;
  const held: QuickJSHandle[] = [];
  let poisoned = false;

  const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
  const fail = (errorCode: ErrorCode, message: string): SandboxResult => ({
    ok: false,
    error: { code: errorCode, message },
    log: lines.join("\n"),
    ms: elapsed(),
  });

  const stopped = (reason: StopReason, where: ThrownValue | undefined): SandboxResult => {
    const frame = where?.isError
      ? parseStack({ stack: where.stack }).find((f) => f.file === PROGRAM_FILE)
      : undefined;
    const located = frame
      ? ` It was running near line ${frame.line}:\n${sourceExcerpt({ code, line: frame.line })}`
      : "";
    switch (reason) {
      case "time":
        return fail(
          "SANDBOX_TIMEOUT",
          `Time limit exceeded: the program ran for more than ${limits.timeMs} ms (an endless loop, or far too much work).${located}`,
        );
      case "output":
        return fail(
          "SANDBOX_LIMIT",
          `Output limit exceeded: the program printed more than ${formatBytes(limits.outputBytes)}; print less (for example not inside a loop).`,
        );
      case "result":
        return fail(
          "SANDBOX_LIMIT",
          `Result too large: the value passed to finish(...) is larger than ${formatBytes(limits.outputBytes)} as JSON; return only the label, the reasons and the output.`,
        );
      case "depth":
        return fail(
          "SANDBOX_LIMIT",
          `Result too deep: the value passed to finish(...) is nested more than ${MAX_RESULT_DEPTH} levels deep; return flat reasons and output.`,
        );
      case "abort":
        return fail("ABORTED", "The run was cancelled by the caller.");
    }
  };

  function finalize(outcome: SandboxResult): ProgramOutcome {
    try {
      for (const handle of held) if (handle.alive) handle.dispose();
      pristine?.dispose();
      context?.dispose();
      runtime?.dispose();
    } catch {
      poisoned = true;
    }
    return { result: outcome, poisoned };
  }

  try {
    const rt = options.module.newRuntime();
    runtime = rt;
    rt.setMemoryLimit(limits.memoryBytes);
    rt.setMaxStackSize(limits.stackBytes);
    rt.setInterruptHandler(() => {
      if (describing) return performance.now() > describeDeadline;
      if (stop !== undefined) return true;
      if (options.shouldAbort?.()) stop = "abort";
      else if (performance.now() > deadline) stop = "time";
      return stop !== undefined;
    });
    const vm = rt.newContext({ intrinsics: INTRINSICS });
    context = vm;
    const pure = capturePristine(vm);
    pristine = pure;

    const read = (handle: QuickJSHandle): ThrownValue => {
      describing = true;
      describeDeadline = performance.now() + DESCRIBE_TIME_MS;
      rt.setMemoryLimit(limits.memoryBytes + DESCRIBE_MEMORY_BYTES);
      try {
        return readThrown(vm, pure, handle);
      } finally {
        describing = false;
        rt.setMemoryLimit(limits.memoryBytes);
      }
    };

    const installed = installGlobals({
      vm,
      pristine: pure,
      dataJson: options.dataJson,
      hooks: {
        onLine: (line) => {
          if (stop !== undefined) return;
          const bytes = Buffer.byteLength(line, "utf8") + 1;
          if (logBytes + bytes > limits.outputBytes) {
            stop = "output";
            return;
          }
          logBytes += bytes;
          lines.push(line);
        },
        onFinish: (text) => {
          if (Buffer.byteLength(text, "utf8") > limits.outputBytes) stop ??= "result";
          else if (jsonDepth({ text }) > MAX_RESULT_DEPTH) stop ??= "depth";
          else resultText = text;
        },
        onMisuse: (message) => {
          misuse ??= message;
        },
      },
    });
    if (installed.error) {
      const thrown = read(installed.error);
      installed.error.dispose();
      if (stop) return finalize(stopped(stop, undefined));
      const classified = classifyThrown({ thrown, code: "", limits });
      const errorCode = classified.code === "SANDBOX_RUNTIME" ? "SANDBOX_INTERNAL" : classified.code;
      return finalize(
        fail(errorCode, `The case data could not be loaded into the sandbox: ${classified.message}`),
      );
    }

    for (const index of selectPrelude({ prelude: options.prelude, code })) {
      const source = options.prelude.sources[index]!;
      const loaded = vm.evalCode(source, preludeFile(index), { type: "global" });
      if (loaded.error) {
        const thrown = read(loaded.error);
        loaded.error.dispose();
        if (stop) return finalize(stopped(stop, thrown));
        const classified = classifyThrown({ thrown, code: source, limits });
        const errorCode =
          classified.code === "SANDBOX_MEMORY" || classified.code === "SANDBOX_LIMIT"
            ? classified.code
            : "SANDBOX_INTERNAL";
        return finalize(
          fail(
            errorCode,
            `Toolbox source #${index + 1} (${preludeFile(index)}) failed to load, so no program can run with this toolbox: ${classified.message}`,
          ),
        );
      }
      loaded.value.dispose();
    }

    const evaluated = vm.evalCode(code, PROGRAM_FILE, { type: "global" });
    let thrown: ThrownValue | undefined;
    let rejected = false;
    let pendingCompletion = false;
    if (evaluated.error) {
      thrown = read(evaluated.error);
      evaluated.error.dispose();
    } else {
      held.push(evaluated.value);
      // Promise jobs (async functions, .then) run here; the interrupt handler bounds them like sync code.
      while (stop === undefined && rt.hasPendingJob()) {
        const jobs = rt.executePendingJobs(-1);
        if (jobs.error) {
          thrown = read(jobs.error);
          jobs.error.dispose();
          break;
        }
      }
      if (thrown === undefined && stop === undefined && vm.typeof(evaluated.value) === "object") {
        const state = vm.getPromiseState(evaluated.value);
        if (state.type === "rejected") {
          thrown = read(state.error);
          state.error.dispose();
          rejected = true;
        } else if (state.type === "pending") {
          pendingCompletion = true;
        } else if (!state.notAPromise) {
          state.value.dispose();
        }
      }
    }

    let result: SandboxResult;
    if (stop) {
      result = stopped(stop, thrown);
    } else if (misuse !== undefined) {
      result = fail("SANDBOX_RUNTIME", misuse);
    } else if (thrown !== undefined) {
      // When the heap is exhausted QuickJS may fail to allocate the error itself and throw null instead.
      if (!thrown.isError && (allocatedBytes(rt) ?? 0) >= 0.9 * limits.memoryBytes) {
        thrown = { isError: true, name: "InternalError", message: "out of memory", stack: "" };
      }
      const classified = classifyThrown({ thrown, code, names: options.prelude.allNames, limits });
      result = fail(
        classified.code,
        rejected ? `Unhandled promise rejection: ${classified.message}` : classified.message,
      );
    } else if (resultText === undefined) {
      result = fail(
        "SANDBOX_RUNTIME",
        pendingCompletion
          ? "The program ended without calling finish(...): its promise never settled (nothing can resolve it: there are no timers or I/O). Call finish({ label, reasons, output }) exactly once."
          : "The program ended without calling finish(...). Call finish({ label, reasons, output }) exactly once, with label 0 (satisfied) or 1 (violated).",
      );
    } else {
      result = { ok: true, result: parseResult(resultText), log: lines.join("\n"), ms: elapsed() };
    }
    return finalize(result);
  } catch (error) {
    // An exception from the host side of the wasm boundary: the instance's state is unknown.
    poisoned = true;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof RangeError && /call stack/i.test(message)) {
      return {
        result: fail("SANDBOX_LIMIT", "Stack limit exceeded: recursion or nesting is too deep."),
        poisoned,
      };
    }
    return { result: fail("SANDBOX_INTERNAL", `The sandbox failed: ${message}`), poisoned };
  }
}

/** JSON text from finish(...) to a GuardResult; keys named __proto__ are dropped so they stay inert. */
function parseResult(text: string): GuardResult {
  return text.includes('"__proto__"')
    ? (JSON.parse(text, (key, v) => (key === "__proto__" ? undefined : v)) as GuardResult)
    : (JSON.parse(text) as GuardResult);
}
