/**
 * A check worker thread of the check pool (check-pool.ts): answers one compiled check at a time
 * (answer-check.ts), off the main thread's event loop.
 */
import { parentPort } from "node:worker_threads";
import { answerCheck } from "./answer-check.js";
import type { AssessJobMessage } from "./check-protocol.js";

const port = parentPort;
if (!port) throw new Error("check-worker must run in a worker thread");

port.on("message", (job: AssessJobMessage) => {
  if (job.type === "assess") port.postMessage(answerCheck(job));
});
