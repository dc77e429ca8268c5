import { describe, expect, it } from "vitest";
import { normaliseActionType } from "./action-vocabulary.js";
import { buildStepFacts, looksLikeSelector } from "./step-facts.js";
import { urlParts } from "./url-parts.js";

describe("normaliseActionType", () => {
  it("maps common spellings onto the BrowserGym vocabulary", () => {
    const cases: Record<string, string> = {
      click: "click",
      Type: "fill",
      type_text: "fill",
      navigate: "goto",
      "browser.navigate_to": "goto",
      select: "select_option",
      sendMessage: "send_msg_to_user",
      finish: "answer",
      "mcp:web.click": "click",
      delete: "delete",
    };
    for (const [raw, want] of Object.entries(cases)) expect(normaliseActionType({ action: raw })).toBe(want);
  });
});

describe("urlParts", () => {
  it("splits host, path and fragment the way URL patterns are written", () => {
    const p = urlParts({ url: "http://crm.example.test:8080/#/administration/index?module=Users&x=1" });
    expect(p.host).toBe("crm.example.test:8080");
    expect(p.base).toBe("crm.example.test:8080/#/administration/index?module=Users&x=1");
    expect(p.query).toEqual({ module: ["Users"], x: ["1"] });
    expect(urlParts({ url: "https://gitlab.test/a%2Fb/profile/" }).base).toBe("gitlab.test/a/b/profile");
    expect(urlParts({ url: "/#/admin" }).base).toBe("/#/admin");
    expect(urlParts({ url: "forum.gitlab.com" }).base).toBe("forum.gitlab.com");
    expect(urlParts({ url: undefined }).base).toBe("");
  });

  it("keeps query keys named like Object.prototype's members as own keys, repeats in order", () => {
    const { query } = urlParts({
      url: "https://a.test/x?__proto__=1&constructor=2&toString=3&__proto__=4#/r?constructor=5",
    });
    expect(Object.keys(query)).toEqual(["__proto__", "constructor", "toString"]);
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(query, "__proto__")?.value).toEqual(["1", "4"]);
    expect(Object.getOwnPropertyDescriptor(query, "constructor")?.value).toEqual(["2", "5"]);
    expect(Object.getOwnPropertyDescriptor(query, "toString")?.value).toEqual(["3"]);
  });
});

describe("buildStepFacts", () => {
  it("reads a BrowserGym call string into action, element id and value", () => {
    const f = buildStepFacts({
      step: { action: "fill('b3', 'Jane')", args: {}, meta: { elementText: "First name" } },
      index: 2,
    });
    expect(f).toMatchObject({
      index: 2,
      actionType: "fill",
      bid: "b3",
      typed: "Jane",
      elementText: "First name",
      isInput: true,
    });
    expect(f.argsText).toContain("Jane");
  });

  it("keeps structured steps and derives the helpers", () => {
    const f = buildStepFacts({
      step: {
        action: "type",
        args: { bid: "c1" },
        element: "Search",
        value: " 555-0198 ",
        url: "http://x.test/a",
      },
      index: 0,
      input: "find the phone",
    });
    expect(f).toMatchObject({
      actionType: "fill",
      elementText: "Search",
      typed: "555-0198",
      input: "find the phone",
    });
    expect(f.page.base).toBe("x.test/a");
  });

  it("treats a selector in `element` as a selector and a bare id as an id", () => {
    const sel = buildStepFacts({
      step: { action: "click", args: {}, element: "#project_name_edit" },
      index: 0,
    });
    expect(sel.selectors).toEqual(["#project_name_edit"]);
    expect(sel.elementText).toBe("");
    const bid = buildStepFacts({ step: { action: "click", args: {}, element: "a12" }, index: 0 });
    expect(bid).toMatchObject({ bid: "a12", elementText: "" });
    // With the id given elsewhere, a numeric `element` is the element's text.
    const text = buildStepFacts({
      step: { action: "click", args: { bid: "c9" }, element: "2024" },
      index: 0,
    });
    expect(text.elementText).toBe("2024");
  });

  it("reads messages, navigation targets and navigation keys", () => {
    expect(
      buildStepFacts({ step: { action: "send_msg_to_user('May I delete it?')", args: {} }, index: 0 })
        .message,
    ).toBe("May I delete it?");
    const go = buildStepFacts({
      step: { action: "navigate", args: { url: "https://gitlab.test/-/profile" } },
      index: 0,
    });
    expect(go).toMatchObject({
      actionType: "goto",
      targetUrl: "https://gitlab.test/-/profile",
      isOutput: true,
    });
    expect(go.target.base).toBe("gitlab.test/-/profile");
    expect(buildStepFacts({ step: { action: "press('a1', 'Enter')", args: {} }, index: 0 }).typed).toBe("");
    expect(buildStepFacts({ step: { action: "press('a1', 'x')", args: {} }, index: 0 }).typed).toBe("x");
  });

  it("reads keyword arguments by BrowserGym's parameter names, and option lists as their items", () => {
    const at = (action: string) => buildStepFacts({ step: { action, args: {} }, index: 0 });
    expect(at('goto(url="https://x.test/a")')).toMatchObject({
      actionType: "goto",
      targetUrl: "https://x.test/a",
    });
    expect(at('fill(bid="b3", value="Jane")')).toMatchObject({ bid: "b3", typed: "Jane" });
    expect(at('fill("b3", value="Jane")')).toMatchObject({ bid: "b3", typed: "Jane" });
    expect(at('send_msg_to_user(text="done")').message).toBe("done");
    expect(at('press("a1", key_comb="x")').typed).toBe("x");
    expect(at('select_option("b3", ["red", "blue"])')).toMatchObject({ bid: "b3", typed: "red\nblue" });
    expect(at('ｇｏｔｏ("https://x.test/")').targetUrl).toBe("https://x.test/");
    expect(at("goto('https://x.test/')").unreadable).toBeUndefined();
    expect(at("click").unreadable).toBeUndefined();
  });

  it("marks code it cannot read as one call unreadable, typed by the name it calls", () => {
    for (const action of ['goto("https://" + host)', 'click("a1"); goto("x")', 'goto(f"{u}")', "x = 1"]) {
      expect(buildStepFacts({ step: { action, args: {} }, index: 0 }).unreadable, action).toMatch(/code/);
    }
    expect(buildStepFacts({ step: { action: 'goto("a" + b)', args: {} }, index: 0 }).actionType).toBe("goto");
  });

  it("recognises selectors", () => {
    for (const s of [
      "#id",
      ".js-label-select",
      "[type='password']",
      "//button[contains(text(), 'Save')]",
      "input[name='x']",
    ]) {
      expect(looksLikeSelector({ text: s })).toBe(true);
    }
    for (const s of ["Save", "Create project", "Delete project.", ""])
      expect(looksLikeSelector({ text: s })).toBe(false);
  });
});
