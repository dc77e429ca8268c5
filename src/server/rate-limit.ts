/**
 * Per-key rate limit of the HTTP service: a token bucket per caller (the API key's id, else the caller's
 * name — every anonymous caller shares one bucket), refilled at the key's `ratePerSecond` (`warden keys
 * create --rate`) or the server's default (`warden serve --rate-limit`), holding at most one second's worth
 * (and at least one request). Without either rate a caller is not limited. A request over the limit is
 * refused before its body is read, with INVALID_INPUT reason "rate-limited" (429) and `details.retryAfter`
 * seconds, which the app sends as Retry-After.
 *
 * The buckets live in this process: instances behind one load balancer each grant the rate (say so to
 * operators). Memory is bounded: past MAX_BUCKETS callers, full (idle) buckets are dropped — a dropped
 * bucket is full again when it comes back, so dropping never grants more than an idle caller had.
 */
import type { Caller } from "../core/caller.js";
import { WardenError } from "../core/errors.js";

export const MAX_BUCKETS = 10_000;

export interface RateLimiter {
  /** Takes one request from the caller's bucket; throws the 429 error when it is empty. */
  take(options: { caller: Caller }): void;
}

interface Bucket {
  tokens: number;
  at: number;
  rate: number;
}

export function createRateLimiter(options: {
  /** Requests per second for callers whose key has no rate of its own; absent = those are not limited. */
  defaultPerSecond?: number;
  /** Clock in ms (tests). */
  now?: () => number;
}): RateLimiter {
  const now = options.now ?? (() => performance.now());
  const buckets = new Map<string, Bucket>();

  const refill = (bucket: Bucket, at: number) => {
    const capacity = Math.max(1, bucket.rate);
    bucket.tokens = Math.min(capacity, bucket.tokens + ((at - bucket.at) / 1000) * bucket.rate);
    bucket.at = at;
  };

  const evictIdle = (at: number) => {
    for (const [id, bucket] of buckets) {
      refill(bucket, at);
      if (bucket.tokens >= Math.max(1, bucket.rate)) buckets.delete(id);
    }
  };

  return {
    take({ caller }) {
      const rate = caller.ratePerSecond ?? options.defaultPerSecond;
      if (rate === undefined) return;
      const id = caller.keyId !== undefined ? `key:${caller.keyId}` : `caller:${caller.name}`;
      const at = now();
      let bucket = buckets.get(id);
      if (!bucket) {
        if (buckets.size >= MAX_BUCKETS) evictIdle(at);
        bucket = { tokens: Math.max(1, rate), at, rate };
        buckets.set(id, bucket);
      } else {
        refill(bucket, at);
        // A key's rate changed (or the default did): the new rate applies from now, the bucket's tokens stay.
        if (bucket.rate !== rate) bucket.rate = rate;
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return;
      }
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `caller "${caller.name}" is over its rate limit of ${rate} requests per second; retry after ${retryAfter} s`,
        details: { reason: "rate-limited", retryAfter, ratePerSecond: rate },
      });
    },
  };
}
