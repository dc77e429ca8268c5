import { describe, expect, it } from "vitest";
import { serverOptionsFor, socketLimitsFrom } from "./socket-limits.js";

describe("socket limits", () => {
  it("defaults to finite header, request, keep-alive and idle timeouts and a connection cap", () => {
    const limits = socketLimitsFrom({});
    expect(limits).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      idleTimeoutMs: 30_000,
      maxConnections: 256,
    });
    expect(serverOptionsFor({ limits })).toMatchObject({ headersTimeout: 10_000, requestTimeout: 30_000 });
  });

  it("refuses limits that would mean none, and checks short ones often enough to matter", () => {
    for (const bad of [{ headersTimeoutMs: 0 }, { maxConnections: 0 }, { requestTimeoutMs: 1.5 }]) {
      expect(() => socketLimitsFrom({ limits: bad }), JSON.stringify(bad)).toThrow(/connection limits/);
    }
    const short = serverOptionsFor({
      limits: socketLimitsFrom({ limits: { headersTimeoutMs: 200, requestTimeoutMs: 100 } }),
    });
    expect(short.requestTimeout).toBe(200);
    expect(short.connectionsCheckingInterval).toBeLessThanOrEqual(50);
  });
});
