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
