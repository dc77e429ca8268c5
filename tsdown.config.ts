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
  },
]);
