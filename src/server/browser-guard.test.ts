import { describe, expect, it } from "vitest";
import { assertSameSiteOrAllowed, corsOriginsFrom, isJsonContentType } from "./browser-guard.js";

describe("browser guard", () => {
  it("accepts application/json with at most a UTF-8 charset", () => {
    for (const type of [
      "application/json",
      "Application/JSON; charset=UTF-8",
      'application/json;charset="utf-8"',
    ]) {
      expect(isJsonContentType({ contentType: type }), type).toBe(true);
    }
    for (const type of [
      undefined,
      "",
      "text/plain",
      "application/json-seq",
      "application/json; charset=latin1",
      "text/plain; application/json",
    ]) {
      expect(isJsonContentType({ contentType: type }), String(type)).toBe(false);
    }
  });

  it("refuses a foreign page's request, and lets through clients that are not browsers", () => {
    const allowed = corsOriginsFrom({ origins: ["https://console.example"] });
    const passes = (origin: string | undefined, fetchSite: string | undefined) => {
      try {
        assertSameSiteOrAllowed({ origin, fetchSite, allowed });
        return true;
      } catch {
        return false;
      }
    };
    expect(passes(undefined, undefined)).toBe(true);
    expect(passes(undefined, "none")).toBe(true);
    expect(passes("https://console.example", "cross-site")).toBe(true);
    expect(passes("https://evil.example", undefined)).toBe(false);
    expect(passes("null", undefined)).toBe(false);
    expect(passes(undefined, "cross-site")).toBe(false);
    expect(passes(undefined, "same-site")).toBe(false);
    // The service's own origin (the review page calling its API) is not a foreign page.
    const own = (origin: string) => {
      try {
        assertSameSiteOrAllowed({ origin, fetchSite: "same-origin", allowed, self: "http://127.0.0.1:8787" });
        return true;
      } catch {
        return false;
      }
    };
    expect(own("http://127.0.0.1:8787")).toBe(true);
    expect(own("http://127.0.0.1:8788")).toBe(false);
    expect(own("https://127.0.0.1:8787")).toBe(false);
  });

  it("takes exact origins only", () => {
    expect([...corsOriginsFrom({ origins: ["https://console.example/", "http://localhost:3000"] })]).toEqual([
      "https://console.example",
      "http://localhost:3000",
    ]);
    for (const bad of ["*", "console.example", "https://console.example/app", "null", "file:///x"]) {
      expect(() => corsOriginsFrom({ origins: [bad] }), bad).toThrow(/not an origin/);
    }
  });
});
