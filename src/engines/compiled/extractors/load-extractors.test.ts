/** The extractors load only for the policies that need them, and a use before the load fails, not allows. */
import { describe, expect, it } from "vitest";
import type { Policy } from "../../../core/policy.js";
import {
  extractorsLoaded,
  extractorsNeeded,
  loadExtractors,
  loadedEhrAgent,
  loadedTaskCategory,
} from "./load-extractors.js";

const toolPolicy = {
  name: "t",
  version: "1",
  rules: { toolRules: [], toolDefault: "deny" },
} as unknown as Policy;
const accessPolicy = {
  name: "a",
  version: "1",
  rules: { access: { rules: [], unknownRole: "deny" } },
} as unknown as Policy;

describe("load-extractors", () => {
  it("names what a policy's rules use", () => {
    expect(extractorsNeeded({ policy: toolPolicy })).toEqual({ ehrAgent: false, taskCategory: false });
    expect(extractorsNeeded({ policy: accessPolicy })).toEqual({ ehrAgent: true, taskCategory: false });
  });

  it("throws INTERNAL on a use before the load, and loads only what the policy needs", async () => {
    expect(() => loadedEhrAgent()).toThrow(expect.objectContaining({ code: "INTERNAL" }));
    expect(extractorsLoaded({ policy: toolPolicy })).toBe(true);
    expect(extractorsLoaded({ policy: accessPolicy })).toBe(false);
    await loadExtractors({ policy: toolPolicy });
    expect(() => loadedEhrAgent()).toThrow(expect.objectContaining({ code: "INTERNAL" }));
    await loadExtractors({ policy: accessPolicy });
    expect(extractorsLoaded({ policy: accessPolicy })).toBe(true);
    expect(typeof loadedEhrAgent().extractEhrAgentAccess).toBe("function");
    expect(() => loadedTaskCategory()).toThrow(expect.objectContaining({ code: "INTERNAL" }));
    await loadExtractors({ all: true });
    expect(typeof loadedTaskCategory().createCategoryClassifier).toBe("function");
  });
});
