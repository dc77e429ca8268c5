/**
 * Checkpointer thread entry used when Warden runs from its TypeScript sources (tests, tsx): Node 20 cannot
 * load a .ts file as a worker and loader hooks are not inherited by worker threads, so this plain module
 * registers tsx in the worker's own thread and then loads the real one (sqlite-checkpoint-worker.ts). The
 * compiled package starts sqlite-checkpoint-worker.js directly and never uses this file.
 */
import { tsImport } from "tsx/esm/api";

await tsImport("./sqlite-checkpoint-worker.ts", import.meta.url);
