#!/usr/bin/env node
// The `warden` command. From an installed package it runs the build (dist/), which needs no
// TypeScript tooling and starts fast. In a checkout it runs the build only while it is fresh — newer
// than every file under src/ (./fresh-build.js) — and otherwise the sources through tsx (a
// devDependency), so an edit is seen at once and nothing ever runs a stale build. `npm ci` builds
// (the "prepare" script), so a fresh checkout starts as fast as the package.
import nodeModule from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chooseEntry } from "./fresh-build.js";

const at = (path) => fileURLToPath(new URL(path, import.meta.url));
const source = at("../src/cli/main.ts");
const built = at("../dist/cli/main.js");
const entry = chooseEntry({ built, sourceEntry: source, sourceDir: at("../src/") });
if (entry === "dist") {
  // Node 22.1+ keeps the compiled code of the build's modules on disk, so the next start skips
  // parsing them (NODE_DISABLE_COMPILE_CACHE=1 turns it off); Node 20 has no such cache.
  nodeModule.enableCompileCache?.();
  await import(pathToFileURL(built).href);
} else if (entry === "source") {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(source).href);
} else {
  process.stderr.write(`warden: no build at ${built}: run \`npm run build\`\n`);
  process.exitCode = 2;
}
