/**
 * A check worker for tests, with hooks a real subject cannot reach deterministically: an input of
 * "__spin__" never answers (a check that outlives its time limit), "__crash__" ends the thread, "__oom__"
 * allocates until the heap limit kills it. Every other job is answered by the real answer-check.ts.
 */
import { parentPort } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

const { answerCheck } = await tsImport("./answer-check.ts", import.meta.url);

parentPort.on("message", (job) => {
  const input = job?.options?.subject?.input;
  if (input === "__spin__") for (;;);
  if (input === "__crash__") process.exit(7);
  if (input === "__oom__") {
    const hoard = [];
    for (;;) hoard.push(new Array(1_000_000).fill(hoard.length));
  }
  parentPort.postMessage(answerCheck(job));
});
