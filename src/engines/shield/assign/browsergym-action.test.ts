import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseBrowserGymAction } from "./browsergym-action.js";

describe("parseBrowserGymAction", () => {
  it("reads calls with string, number, boolean and keyword arguments", () => {
    expect(parseBrowserGymAction({ text: "click('a12')" })).toEqual({
      name: "click",
      args: ["a12"],
      kwargs: {},
    });
    expect(parseBrowserGymAction({ text: 'fill("b3", "Jane \\"JJ\\" Doe")' })).toEqual({
      name: "fill",
      args: ["b3", 'Jane "JJ" Doe'],
      kwargs: {},
    });
    expect(parseBrowserGymAction({ text: "scroll(0, -200)" })).toEqual({
      name: "scroll",
      args: [0, -200],
      kwargs: {},
    });
    expect(parseBrowserGymAction({ text: "click('a1', button='right', modifiers=None)" })).toEqual({
      name: "click",
      args: ["a1"],
      kwargs: { button: "right", modifiers: null },
    });
    expect(parseBrowserGymAction({ text: "go_back()" })).toEqual({ name: "go_back", args: [], kwargs: {} });
    expect(parseBrowserGymAction({ text: "send_msg_to_user('''It's done''')" })?.args).toEqual(["It's done"]);
    expect(parseBrowserGymAction({ text: "press('a1', 'Enter',)" })?.args).toEqual(["a1", "Enter"]);
  });

  it("answers null for anything that is not exactly one call", () => {
    for (const text of [
      "click",
      "click('a1') and more",
      "click(a1)",
      "fill('a1', 'x'",
      "",
      "1 + 2",
      "click('a1'); evil()",
    ]) {
      expect(parseBrowserGymAction({ text })).toBeNull();
    }
  });

  it("round-trips any string argument written as a Python literal", () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const literal = `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`;
        const parsed = parseBrowserGymAction({ text: `send_msg_to_user(${literal})` });
        expect(parsed?.args).toEqual([value.replace(/\r/g, "\r")]);
      }),
    );
  });
});
