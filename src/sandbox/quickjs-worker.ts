/**
 * The sandbox worker thread: loads the QuickJS wasm module once, then runs guardrail programs one at a
 * time as the pool sends them, each in a fresh QuickJS runtime. If a run damaged the wasm instance (the
 * host stack overflowed inside it), a new instance is loaded before the next run.
 *
 * quickjs-emscripten is an optional peer dependency: it is imported here, dynamically, and when it is
 * absent the worker reports a MISSING_DEPENDENCY fatal error naming it (the pool then fails every run
 * with it) instead of dying on a module that cannot be found.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { QuickJSWASMModule } from "quickjs-emscripten";
import { isWardenError } from "../core/errors.js";
import { importOptional } from "../core/optional-import.js";
import type { PreparedPrelude } from "./quickjs-run.js";
import type { FromWorkerMessage, RunJobMessage, ToWorkerMessage, WorkerInit } from "./worker-protocol.js";

const port = parentPort;
if (!port) throw new Error("quickjs-worker must run in a worker thread");

const init = workerData as WorkerInit;
const control = new Int32Array(init.control);
const preludes = new Map<number, PreparedPrelude>();

/** QuickJS and the code that drives it (which imports QuickJS itself), once the package is known to load. */
async function loadQuickJs() {
  const name = init.quickjsPackage;
  const quickjs = await importOptional<typeof import("quickjs-emscripten")>({
    packageName: name ?? "quickjs-emscripten",
    feature: "Guardrail programs (the QuickJS sandbox)",
    load: name ? () => import(name) : () => import("quickjs-emscripten"),
  });
  const run = await import("./quickjs-run.js");
  return { newQuickJSWASMModule: quickjs.newQuickJSWASMModule, ...run };
}

const engine = loadQuickJs();
let module: Promise<QuickJSWASMModule> = engine.then((e) => e.newQuickJSWASMModule());

function send(message: FromWorkerMessage): void {
  port?.postMessage(message);
}

async function handle(job: RunJobMessage): Promise<void> {
  const { preparePrelude, runProgram, newQuickJSWASMModule } = await engine;
  if (job.prelude) preludes.set(job.preludeId, preparePrelude({ prelude: job.prelude }));
  for (const id of job.evict ?? []) preludes.delete(id);
  const prelude = preludes.get(job.preludeId);
  if (!prelude) {
    send({
      type: "result",
      id: job.id,
      result: {
        ok: false,
        error: {
          code: "SANDBOX_INTERNAL",
          message: `The sandbox worker lost toolbox sources #${job.preludeId}.`,
        },
        log: "",
        ms: 0,
      },
    });
    return;
  }
  const aborted = () => Atomics.load(control, job.control) === job.id;
  if (aborted()) {
    send({
      type: "result",
      id: job.id,
      result: {
        ok: false,
        error: { code: "ABORTED", message: "The run was cancelled by the caller." },
        log: "",
        ms: 0,
      },
    });
    return;
  }
  const outcome = runProgram({
    module: await module,
    code: job.code,
    dataJson: job.dataJson,
    prelude,
    limits: job.limits,
    shouldAbort: aborted,
  });
  if (outcome.poisoned) module = newQuickJSWASMModule();
  send({ type: "result", id: job.id, result: outcome.result });
}

// Jobs are handled strictly one after another, even while a replacement module is loading.
let queue: Promise<void> = Promise.resolve();
port.on("message", (message: ToWorkerMessage) => {
  if (message.type !== "run") return;
  queue = queue.then(() =>
    handle(message).catch((error: unknown) => {
      send({
        type: "result",
        id: message.id,
        result: {
          ok: false,
          error: {
            code: "SANDBOX_INTERNAL",
            message: `The sandbox worker failed: ${error instanceof Error ? error.message : String(error)}`,
          },
          log: "",
          ms: 0,
        },
      });
    }),
  );
});

module.then(
  () => send({ type: "ready" }),
  (error: unknown) =>
    send({
      type: "fatal",
      message: error instanceof Error ? error.message : String(error),
      ...(isWardenError(error) ? { code: error.code } : {}),
    }),
);
