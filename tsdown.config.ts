import { defineConfig } from "tsdown";

const common = {
  format: "esm",
  // Plain .js/.d.ts names: the package is "type": "module" and its exports map points at them.
  fixedExtension: false,
  platform: "node",
  target: "node20",
  sourcemap: true,
} as const;

/**
 * Where the build goes: dist/ unless WARDEN_BUILD_DIR names another folder (the package test builds into
 * a temporary one, so the checkout's dist/ stays as other tests use it). Both builds follow it.
 */
const out = process.env.WARDEN_BUILD_DIR ?? "dist";

const natives = ["node-llama-cpp", "better-sqlite3", "better-sqlite3-v13", "pg"];
/** Pure-JavaScript packages every `warden check` loads, bundled into the CLI build. */
const inlined = ["zod", "commander", "re2js"];

/**
 * commander requires node:child_process at its top (only to run executable subcommands, which Warden
 * has none of), and with it net, dgram and their streams: a few ms on every `warden check`. In the CLI
 * bundle that require answers a stand-in that loads the real module on first use.
 */
const LAZY_CHILD_PROCESS = "\0warden:lazy-child-process";
const lazyChildProcess = {
  name: "warden:lazy-child-process",
  resolveId(id: string, importer?: string) {
    if (id === "node:child_process" && importer?.includes("/node_modules/commander/"))
      return LAZY_CHILD_PROCESS;
    return undefined;
  },
  load(id: string) {
    if (id !== LAZY_CHILD_PROCESS) return undefined;
    return 'let real;\nmodule.exports = new Proxy({}, { get: (_, key) => (real ??= require("node:child_process"))[key] });\n';
  },
};

export default defineConfig([
  {
    ...common,
    entry: {
      index: "src/index.ts",
      "server/index": "src/server/index.ts",
      "mcp/index": "src/mcp/index.ts",
      "testing/index": "src/testing/index.ts",
      // warden/ai-sdk: imports only types from `ai` (an optional peer), so nothing of it is bundled.
      "integrations/ai-sdk/index": "src/integrations/ai-sdk/index.ts",
      "integrations/openai-agents/index": "src/integrations/openai-agents/index.ts",
      "integrations/langchain/index": "src/integrations/langchain/index.ts",
      // The sandbox starts its workers from this file, found beside the bundled module.
      "sandbox/quickjs-worker": "src/sandbox/quickjs-worker.ts",
      // The check pool starts its workers from this file, found under runtime/offload/ of the bundle.
      "runtime/offload/check-worker": "src/runtime/offload/check-worker.ts",
      // A SQLite store's background checkpointer starts its thread from this file (store/ of the bundle).
      "store/sqlite-checkpoint-worker": "src/store/sqlite-checkpoint-worker.ts",
    },
    dts: true,
    // Everything but the CLI's own folder, which the second build writes.
    outDir: out,
    clean: [`${out}/**`, `!${out}/cli/**`],
    deps: { neverBundle: natives },
  },
  {
    ...common,
    // The CLI is built on its own, with the pure-JavaScript packages every `warden check` loads
    // bundled in: a pre-tool hook starts on every action, and resolving and compiling ~100 separate
    // module files (zod alone is 95, most of them locales no message uses) costs more than the check.
    // The library above keeps them as dependencies, so an application shares its own zod with ours.
    entry: { main: "src/cli/main.ts" },
    outDir: `${out}/cli`,
    dts: false,
    clean: true,
    // onlyBundle lists the same packages: the build fails if anything else would be bundled.
    deps: { neverBundle: natives, alwaysBundle: inlined, onlyBundle: inlined },
    plugins: [lazyChildProcess],
    // Minified: V8 parses every byte of each module a check loads (~0.9 MB) and fully compiles the
    // functions it calls, and Node 20 keeps no compile cache. Names stay (keepNames), so stack traces
    // (WARDEN_DEBUG=1) still name the functions; the .map files beside the bundle give the source lines.
    minify: { compress: true, mangle: { keepNames: true }, codegen: { removeWhitespace: true } },
  },
]);
