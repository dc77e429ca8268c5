import { describe, expect, it } from "vitest";
import { buildStepFacts } from "../assign/step-facts.js";
import { elementMatchDetector } from "./element-match.js";

const detect = (step: Parameters<typeof buildStepFacts>[0]["step"], params: Record<string, unknown>) =>
  elementMatchDetector.detect({ facts: buildStepFacts({ step, index: 0 }), params, field: undefined });

describe("element-match", () => {
  it("matches a selector the step carries", () => {
    expect(
      detect(
        { action: "fill", args: { selector: "#project_name_edit" } },
        { selector: "#project_name_edit" },
      ),
    ).toBe(true);
  });

  it("tests CSS selectors on the element's HTML", () => {
    const step = {
      action: "fill",
      args: {},
      element: "Password",
      meta: { elementHtml: '<input type="password" name="pw">' },
    };
    expect(detect(step, { selector: "[type='password']" })).toBe(true);
    expect(detect(step, { selector: ".js-label-select" })).toBe(false);
    expect(detect(step, { selector: "form [type='password']" })).toBeUndefined();
  });

  it("reads the XPath shapes from tag and text", () => {
    const save = {
      action: "click",
      args: {},
      element: "Save",
      meta: { elementHtml: "<button>Save</button>" },
    };
    expect(
      detect(save, {
        selectors: ["//button[contains(text(), 'Delete')]", "//button[contains(text(), 'Save')]"],
      }),
    ).toBe(true);
    expect(detect(save, { selector: "//a[contains(text(), 'Save')]" })).toBe(false);
    expect(detect(save, { selector: "//button[contains(text(), 'save')]" })).toBe(false);
    const input = {
      action: "fill",
      args: {},
      element: "Job Title",
      meta: { elementHtml: '<input type="text">' },
    };
    expect(detect(input, { selector: "//label[contains(., 'JOB TITLE')]/following::input[1]" })).toBe(true);
    expect(
      detect(
        { action: "click", args: {}, element: "Save" },
        { selector: "//button[contains(text(), 'Save')]" },
      ),
    ).toBeUndefined();
    expect(
      detect(
        { action: "click", args: {}, meta: { elementHtml: '<input title="Save">' } },
        { selector: "//input[@title='Save']" },
      ),
    ).toBe(true);
  });

  it("cannot tell without anything about the element", () => {
    expect(detect({ action: "click('a12')", args: {} }, { selector: ".js-assignee-search" })).toBeUndefined();
    expect(() => detect({ action: "click", args: {} }, {})).toThrow(/selector or selectors/);
  });
});
