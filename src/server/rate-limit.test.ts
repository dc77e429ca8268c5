import { describe, expect, it } from "vitest";
import type { Caller } from "../core/caller.js";
import { isWardenError, type WardenError } from "../core/errors.js";
import { createRateLimiter, MAX_BUCKETS } from "./rate-limit.js";

const key = (id: string, ratePerSecond?: number): Caller => ({
  name: id,
  scopes: ["check"],
  keyId: id,
  ...(ratePerSecond !== undefined ? { ratePerSecond } : {}),
});

const refusal = (run: () => void): WardenError | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(isWardenError(error)).toBe(true);
    return error as WardenError;
  }
};

describe("createRateLimiter", () => {
  it("grants a key its rate per second with a one-second burst, then refuses with retryAfter", () => {
    let now = 0;
    const limiter = createRateLimiter({ now: () => now });
    const caller = key("a", 3);
    for (let i = 0; i < 3; i++) limiter.take({ caller });
    const error = refusal(() => limiter.take({ caller }));
    expect(error?.details).toMatchObject({ reason: "rate-limited", retryAfter: 1, ratePerSecond: 3 });
    now += 1000 / 3;
    limiter.take({ caller });
    expect(refusal(() => limiter.take({ caller }))).toBeDefined();
  });

  it("rounds the wait up to whole seconds for slow rates", () => {
    let now = 0;
    const limiter = createRateLimiter({ now: () => now });
    const caller = key("slow", 0.2);
    limiter.take({ caller });
    expect(refusal(() => limiter.take({ caller }))?.details?.retryAfter).toBe(5);
    now += 4000;
    expect(refusal(() => limiter.take({ caller }))?.details?.retryAfter).toBe(1);
    now += 1000;
    limiter.take({ caller });
  });

  it("keeps one bucket per key; the default applies to keys without a rate, none means unlimited", () => {
    const limiter = createRateLimiter({ defaultPerSecond: 1, now: () => 0 });
    limiter.take({ caller: key("x") });
    expect(refusal(() => limiter.take({ caller: key("x") }))).toBeDefined();
    limiter.take({ caller: key("y") });
    // Two keys with the same name (a reused name) are still two buckets.
    limiter.take({ caller: { ...key("x"), keyId: "x2" } });
    // Anonymous callers share one bucket.
    limiter.take({ caller: { name: "anonymous", scopes: ["check"] } });
    expect(refusal(() => limiter.take({ caller: { name: "anonymous", scopes: ["check"] } }))).toBeDefined();
    const open = createRateLimiter({ now: () => 0 });
    for (let i = 0; i < 1000; i++) open.take({ caller: key("free") });
  });

  it("drops only idle (full) buckets past the bound, so a busy key keeps its empty bucket", () => {
    let now = 0;
    const limiter = createRateLimiter({ now: () => now });
    const busy = key("busy", 1);
    limiter.take({ caller: busy });
    for (let i = 0; i < MAX_BUCKETS; i++) limiter.take({ caller: key(`k${i}`, 1000) });
    now += 10;
    expect(refusal(() => limiter.take({ caller: busy }))).toBeDefined();
  });
});
