import { describe, expect, it } from "vitest";
import { benchMcpProxy } from "./mcp-proxy.js";

describe("benchMcpProxy (small run)", () => {
  it("calls the filesystem server directly, through the CLI proxy, the library and the two relay floors, and reports each", async () => {
    const result = await benchMcpProxy({ calls: 12, warmup: 2, rounds: 3 });
    expect(result.name).toBe("mcp-proxy");
    expect(result.transport).toBe("stdio");
    // Every call was allowed by the policy and answered with the file's text on every path.
    expect(result.allAnswered).toBe(true);
    for (const path of [result.direct, result.proxied, result.library, result.relayPipe, result.relayJson]) {
      expect(path.calls).toBe(12);
      expect(path.p50Ms).toBeGreaterThan(0);
      expect(path.p95Ms).toBeGreaterThanOrEqual(path.p50Ms);
      expect(path.meanMs).toBeGreaterThan(0);
    }
    expect(result.addedP50Ms).toBeCloseTo(result.proxied.p50Ms - result.direct.p50Ms, 3);
    expect(result.libraryAddedP50Ms).toBeCloseTo(result.library.p50Ms - result.direct.p50Ms, 3);
    expect(result.relayPipeAddedP50Ms).toBeCloseTo(result.relayPipe.p50Ms - result.direct.p50Ms, 3);
    expect(result.relayJsonAddedP50Ms).toBeCloseTo(result.relayJson.p50Ms - result.direct.p50Ms, 3);
    if (process.platform === "linux") expect(result.proxyCpuMsPerCall).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it("refuses options out of range", async () => {
    await expect(benchMcpProxy({ calls: 0 })).rejects.toThrow(/calls/);
  });
});
