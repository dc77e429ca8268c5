#!/usr/bin/env node
// Runs the built CLI when the package is built, else the TypeScript sources through tsx (a dependency),
// so `npx warden` works straight after `npm ci` on a fresh clone.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const built = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL("../src/cli/main.ts", import.meta.url).href);
}
