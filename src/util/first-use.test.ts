import { describe, expect, it } from "vitest";
import { onFirstUse } from "./first-use.js";

describe("onFirstUse", () => {
  it("builds on the first call only, and hands out the same value after", () => {
    let builds = 0;
    const get = onFirstUse(() => {
      builds++;
      return { n: builds };
    });
    expect(builds).toBe(0);
    const first = get();
    expect(get()).toBe(first);
    expect(builds).toBe(1);
  });

  it("keeps an undefined value too", () => {
    let builds = 0;
    const get = onFirstUse(() => {
      builds++;
      return undefined;
    });
    get();
    get();
    expect(builds).toBe(1);
  });
});
