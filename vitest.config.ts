import { defineConfig } from "vitest/config";

// Tests sit beside the code. Servers in tests bind to 127.0.0.1; nothing reaches the internet.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "bench/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default", "json"],
    outputFile: { json: ".vitest-report.json" },
  },
});
