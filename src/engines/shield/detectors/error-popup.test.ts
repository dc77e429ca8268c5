import { describe, expect, it } from "vitest";
import { buildStepFacts } from "../assign/step-facts.js";
import { errorPopupDetector, findErrorIndicator } from "./error-popup.js";

const detect = (observation: string | undefined) =>
  errorPopupDetector.detect({
    facts: buildStepFacts({ step: { action: "click", args: {}, observation }, index: 0 }),
    params: {},
    field: undefined,
  });

describe("error-popup", () => {
  it("finds error pages and banners", () => {
    expect(detect("<div class='flash-alert'>500 Internal Server Error</div>")).toBe(true);
    expect(detect("404 Page Not Found")).toBe(true);
    expect(detect("<p>Something went wrong. Please try again later.</p>")).toBe(true);
    expect(detect("Error: the name has already been taken")).toBe(true);
    expect(detect("You don't have permission to access this project")).toBe(true);
  });

  it("ignores markup, scripts and numbers that only look like errors", () => {
    expect(detect('<div class="error-message hidden-error"></div><p>All good</p>')).toBe(false);
    expect(detect("<script>if (error) console.log('server error')</script><p>Saved.</p>")).toBe(false);
    expect(detect("Showing 404 results for 'error handling'")).toBe(false);
    expect(detect("Issue #500: improve error messages")).toBe(false);
  });

  it("cannot tell without an observation, and accepts extra phrases", () => {
    expect(detect(undefined)).toBeUndefined();
    expect(findErrorIndicator({ text: "Quota exceeded", extra: ["quota exceeded"] })).toBe("quota exceeded");
  });
});

describe("error-popup on adversarial pages", () => {
  it("reads a megabyte of white space and 100 000 nested elements without a RangeError", () => {
    expect(findErrorIndicator({ text: " \n".repeat(500_000) })).toBeNull();
    expect(findErrorIndicator({ text: `404${" ".repeat(1_000_000)}` })).toBeNull();
    const deep = `${"<div>".repeat(100_000)}Error: disk full${"</div>".repeat(100_000)}`;
    const facts = buildStepFacts({ step: { action: "click", args: {}, observation: deep }, index: 0 });
    expect(errorPopupDetector.detect({ facts, params: {}, field: undefined })).toBe(true);
  });

  it("keeps the labelled and coded forms", () => {
    expect(findErrorIndicator({ text: "ok\n  \n  Error: x" })).toBe("Error:");
    expect(findErrorIndicator({ text: "500 - internal server error" })).not.toBeNull();
    expect(findErrorIndicator({ text: "HTTP code: 404" })).toBe("HTTP code: 404");
  });
});
