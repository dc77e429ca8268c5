import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isCode, parseBrowserGymAction } from "./browsergym-action.js";

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

  it("reads names, strings and numbers as Python does", () => {
    const args = (text: string) => parseBrowserGymAction({ text })?.args;
    expect(parseBrowserGymAction({ text: 'ｇｏｔｏ("x")' })?.name).toBe("goto");
    expect(parseBrowserGymAction({ text: "page . goto('x')" })?.name).toBe("page.goto");
    expect(args('f("\\x65\\u0076\\U00000069\\154 \\a\\q")')).toEqual(["evil \u0007\\q"]);
    expect(args('f("ev" \'il\'  u"!")')).toEqual(["evil!"]);
    expect(args('f("a\\\nb")')).toEqual(["ab"]);
    expect(args("f(r'C:\\new\\t', R'\\'')")).toEqual(["C:\\new\\t", "\\'"]);
    expect(args("f(0x1F, 0o17, 0b101, 1_000, -2.5e1, +3)")).toEqual([31, 15, 5, 1000, -25, 3]);
    expect(args("f(['a', ('b', 2)], [])")).toEqual([["a", ["b", 2]], []]);
    expect(parseBrowserGymAction({ text: "f(url='x', __proto__='y')" })?.kwargs).toEqual(
      Object.defineProperty({ url: "x" }, "__proto__", { value: "y", enumerable: true }),
    );
  });

  it("answers null for what it cannot read as Python would run it", () => {
    for (const text of [
      'goto(f"https://{host}")',
      'goto(b"https://x")',
      'goto("\\N{LATIN SMALL LETTER E}")',
      'goto("\\x6")',
      'goto("https://" + "x")',
      'goto("a\nb")',
      "goto('x') # a comment",
      "goto(url='a', url='b')",
      "goto(url='a', 'b')",
      "f(1.)",
      'click("a12")\ngoto("x")',
      `f(${"[".repeat(20)}${"]".repeat(20)})`,
    ]) {
      expect(parseBrowserGymAction({ text }), text).toBeNull();
    }
  });

  it("tells code from a plain action name", () => {
    for (const name of ["click", "browser.click", "mcp:web.fill", "send_msg_to_user", "go back"]) {
      expect(isCode({ text: name }), name).toBe(false);
    }
    for (const code of ["click('a')", "a; b", "x = 1", 'goto("x")', "a\nb", "[1]"]) {
      expect(isCode({ text: code }), code).toBe(true);
    }
  });

  it("round-trips any string argument written as a Python literal", () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const literal = `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n").replace(/\r/g, "\\r")}'`;
        const parsed = parseBrowserGymAction({ text: `send_msg_to_user(${literal})` });
        expect(parsed?.args).toEqual([value]);
      }),
    );
  });
});
