import { defineConfig } from "tsdown";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "server/index": "src/server/index.ts",
    "mcp/index": "src/mcp/index.ts",
    "testing/index": "src/testing/index.ts",
    "cli/main": "src/cli/main.ts",
    // The sandbox starts its workers from this file, found beside the bundled module.
    "sandbox/quickjs-worker": "src/sandbox/quickjs-worker.ts",
    // The check pool starts its workers from this file, found under runtime/offload/ of the bundle.
    "runtime/offload/check-worker": "src/runtime/offload/check-worker.ts",
  },
  format: "esm",
  // Plain .js/.d.ts names: the package is "type": "module" and its exports map points at them.
  fixedExtension: false,
  platform: "node",
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
  external: ["node-llama-cpp", "better-sqlite3", "better-sqlite3-v13", "pg"],
});
