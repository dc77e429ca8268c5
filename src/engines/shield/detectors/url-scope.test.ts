import { describe, expect, it } from "vitest";
import { buildStepFacts } from "../assign/step-facts.js";
import { urlScopeDetector } from "./url-scope.js";

const at = (
  step: Parameters<typeof buildStepFacts>[0]["step"],
  params: Record<string, unknown>,
  field?: string,
) => urlScopeDetector.detect({ facts: buildStepFacts({ step, index: 0 }), params, field });

describe("url-scope", () => {
  const params = {
    allow: ["http://gitlab.test:8023/byteblaze/", "crm.test", "*.docs.test"],
    deny: ["crm.test/#/admin"],
  };

  it("answers whether the visited URL is outside the allowed scope", () => {
    expect(at({ action: "click", args: {}, url: "http://gitlab.test:8023/byteblaze/planner" }, params)).toBe(
      false,
    );
    expect(at({ action: "click", args: {}, url: "http://gitlab.test:8023/byteblazers" }, params)).toBe(true);
    expect(at({ action: "click", args: {}, url: "https://gitlab.test:8023/byteblaze/x" }, params)).toBe(true);
    expect(at({ action: "click", args: {}, url: "https://crm.test/#/contacts" }, params)).toBe(false);
    expect(at({ action: "click", args: {}, url: "https://api.docs.test/v1" }, params)).toBe(false);
    expect(at({ action: "click", args: {}, url: "https://evil.test/docs.test" }, params)).toBe(true);
  });

  it("looks at a goto's target rather than the page it leaves", () => {
    expect(
      at(
        { action: "goto('https://facebook.com')", args: {}, url: "http://gitlab.test:8023/byteblaze/" },
        params,
      ),
    ).toBe(true);
  });

  it("can report inside instead, and cannot tell without a URL", () => {
    expect(at({ action: "click", args: {}, url: "https://crm.test/" }, { ...params, report: "inside" })).toBe(
      true,
    );
    expect(at({ action: "click", args: {} }, params)).toBeUndefined();
    expect(() => at({ action: "click", args: {}, url: "https://x.test" }, { allow: [] })).toThrow(
      /params\.allow/,
    );
  });
});
