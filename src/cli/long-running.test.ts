/**
 * The long-running tuning's V8 flags: the bytecode budget on V8 11 (Node 20), invocation counts on V8 12
 * and later (Node 22, 24), nothing on a version whose flags are not known, so V8 never reports an
 * unknown flag on the proxy's stderr. The running Node must accept what it is given without a word.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { longRunningFlags } from "./long-running.js";

describe("longRunningFlags", () => {
  it("picks the flags each V8 knows", () => {
    expect(longRunningFlags({ v8Version: "11.3.244.8-node.38" })).toEqual(["--interrupt-budget=8192"]);
    expect(longRunningFlags({ v8Version: "12.4.254.21-node.57" })).toEqual([
      "--invocation-count-for-maglev=50",
      "--invocation-count-for-turbofan=400",
    ]);
    expect(longRunningFlags({ v8Version: "13.6.233.17-node.53" })).toHaveLength(2);
    expect(longRunningFlags({ v8Version: "10.2.154.26-node.26" })).toEqual([]);
  });

  it("gives the running Node flags it knows: nothing on stderr", () => {
    const flags = longRunningFlags({ v8Version: process.versions.v8 });
    const script = `const v8 = require("node:v8"); for (const f of ${JSON.stringify(flags)}) v8.setFlagsFromString(f);`;
    const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 30_000 });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe("");
  });
});
