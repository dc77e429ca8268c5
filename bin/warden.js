#!/usr/bin/env node
// In a checkout (the TypeScript sources are here) run them through tsx, so `npx warden` works straight
// after `npm ci` and never runs a stale build; in an installed package run the built CLI.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const source = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const built = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
if (existsSync(source) || !existsSync(built)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(source).href);
} else {
  await import(pathToFileURL(built).href);
}
