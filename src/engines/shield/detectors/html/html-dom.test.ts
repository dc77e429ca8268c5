import { describe, expect, it } from "vitest";
import { querySelectorAll } from "./css-select.js";
import { decodeEntities, descendants, parseHtml, textContent } from "./html-dom.js";

describe("html-dom: names a page chooses that Object.prototype also has", () => {
  const html =
    '<ul><constructor id="c">one</constructor><li constructor="kept" __proto__="too">two &constructor; &__proto__; &amp;</li><li>three</li></ul>';

  it("parses tags named like prototype members as elements, without throwing", () => {
    const root = parseHtml({ html });
    const tags = descendants({ root }).map((e) => e.tag);
    expect(tags).toEqual(expect.arrayContaining(["ul", "constructor", "li"]));
    expect(textContent({ node: root })).toContain("one");
  });

  it("keeps attributes so named, and finds none where the page wrote none", () => {
    const root = parseHtml({ html });
    const [first, second] = descendants({ root }).filter((e) => e.tag === "li");
    expect(first?.attrs.constructor).toBe("kept");
    expect(Object.hasOwn(first!.attrs, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(first!.attrs, "__proto__")?.value).toBe("too");
    expect(second?.attrs.constructor).toBeUndefined();
    expect("constructor" in second!.attrs).toBe(false);
    expect(querySelectorAll({ root, selector: "li[constructor]" })?.length).toBe(1);
    expect(querySelectorAll({ root, selector: "[constructor=kept]" })?.length).toBe(1);
  });

  it("leaves entities named like prototype members as written", () => {
    expect(decodeEntities({ text: "a &constructor; b &__proto__; &toString; &amp;" })).toBe(
      "a &constructor; b &__proto__; &toString; &",
    );
  });
});
