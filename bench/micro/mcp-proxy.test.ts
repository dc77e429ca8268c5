import { describe, expect, it } from "vitest";
import { benchMcpProxy } from "./mcp-proxy.js";

describe("benchMcpProxy (small run)", () => {
  it("calls the filesystem server directly, through the CLI proxy, the library and the two relay floors, and reports each", async () => {
    const result = await benchMcpProxy({ calls: 12, warmup: 2, rounds: 3, sessionCalls: 5, laterCalls: 6 });
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
    // Later in the session: the same proxy after 2 + 12 + 5 calls, compared again on three paths.
    const later = result.later!;
    expect(later.afterCalls).toBe(19);
    for (const path of [later.direct, later.proxied, later.relayJson]) expect(path.calls).toBe(6);
    expect(later.addedP50Ms).toBeCloseTo(later.proxied.p50Ms - later.direct.p50Ms, 3);
    expect(later.relayJsonAddedP50Ms).toBeCloseTo(later.relayJson.p50Ms - later.direct.p50Ms, 3);
  }, 120_000);

  it("leaves the later figure out when asked for no later calls", async () => {
    const result = await benchMcpProxy({ calls: 3, warmup: 1, rounds: 1, laterCalls: 0 });
    expect(result.later).toBeUndefined();
    expect(result.allAnswered).toBe(true);
  }, 120_000);

  it("refuses options out of range", async () => {
    await expect(benchMcpProxy({ calls: 0 })).rejects.toThrow(/calls/);
  });
});
