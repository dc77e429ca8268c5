import { describe, expect, it } from "vitest";
import { createDetectorRegistry } from "./registry.js";

describe("createDetectorRegistry", () => {
  it("holds the shipped detectors by default", () => {
    expect(createDetectorRegistry().names()).toEqual([
      "element-match",
      "error-popup",
      "fuzzy-text",
      "pii",
      "program-html",
      "secret",
      "url-scope",
    ]);
  });

  it("registers user detectors and refuses silent shadowing", () => {
    const registry = createDetectorRegistry({ detectors: [] });
    const detector = { name: "always", description: "always true", detect: () => true };
    registry.register({ detector });
    expect(registry.get({ name: "always" })).toBe(detector);
    expect(() => registry.register({ detector })).toThrow(/already registered/);
    registry.register({ detector: { ...detector, detect: () => false }, replace: true });
    expect(registry.get({ name: "always" })?.detect({} as never)).toBe(false);
    expect(() => registry.register({ detector: { name: "", description: "", detect: () => true } })).toThrow(
      /detector\.name/,
    );
  });
});
