/**
 * Warden's server and library modules as users run them, for the service benchmarks (serve-target.ts,
 * serve-cpu.ts): the build (dist/) when it is fresh, as bin/warden.js decides, else the sources (through
 * tsx, which costs a little per request). The result says which.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
// @ts-expect-error -- plain JavaScript beside the bin script, without declarations.
import { chooseEntry } from "../../bin/fresh-build.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export interface WardenModules {
  from: "dist" | "source";
  server: typeof import("../../src/server/index.js");
  library: typeof import("../../src/index.js");
}

export async function wardenModules(): Promise<WardenModules> {
  const fresh =
    chooseEntry({
      built: join(root, "dist", "server", "index.js"),
      sourceEntry: join(root, "src", "server", "index.ts"),
      sourceDir: join(root, "src"),
    }) === "dist";
  const base = fresh ? join(root, "dist") : join(root, "src");
  const ext = fresh ? "js" : "ts";
  const server = (await import(
    pathToFileURL(join(base, "server", `index.${ext}`)).href
  )) as WardenModules["server"];
  const library = (await import(pathToFileURL(join(base, `index.${ext}`)).href)) as WardenModules["library"];
  return { from: fresh ? "dist" : "source", server, library };
}
