/**
 * Where a worker thread's entry module is, for the modules that start workers (the sandbox, the check
 * pool, the SQLite checkpointer). From the TypeScript sources (tests, tsx) it is the `<name>-dev.mjs`
 * beside the caller, which registers tsx in the worker's own thread (Node 20 cannot start a .ts worker,
 * and loader hooks are not inherited). In the compiled package it is `<name>.js` beside the caller, in
 * `<folder>/` when the caller was bundled into the library's root, or in the library's `<folder>/` when
 * it was bundled into the CLI's own build (dist/cli/, beside the library's dist/).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export function workerEntryUrl(options: {
  /** The caller's import.meta.url. */
  here: string;
  /** The entry's file name without extension, e.g. "check-worker". */
  name: string;
  /** The entry's folder in the build, relative to its root, e.g. "runtime/offload". */
  folder: string;
}): URL {
  const { here, name, folder } = options;
  if (here.endsWith(".ts")) return new URL(`./${name}-dev.mjs`, here);
  for (const candidate of [`./${name}.js`, `./${folder}/${name}.js`, `../${folder}/${name}.js`]) {
    const url = new URL(candidate, here);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return new URL(`./${name}.js`, here);
}
