import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lemmatize, nounLemmas, verbLemmas } from "./lemmatize.js";

describe("lemmatiser", () => {
  it("finds noun lemmas of plurals and irregulars", () => {
    const noun = (word: string) => lemmatize({ word, pos: "noun" });
    expect(
      ["movies", "musics", "cities", "buses", "boxes", "knives", "children", "series", "cars", "class"].map(
        noun,
      ),
    ).toEqual(["movie", "music", "city", "bus", "box", "knife", "child", "series", "car", "class"]);
  });

  it("finds verb lemmas of -ing, -ed, -s and irregular forms", () => {
    const verb = (word: string) => lemmatize({ word, pos: "verb" });
    expect(
      [
        "booking",
        "renting",
        "shopping",
        "making",
        "applied",
        "reserved",
        "shopped",
        "purchased",
        "bought",
        "flew",
        "searches",
        "buying",
      ].map(verb),
    ).toEqual([
      "book",
      "rent",
      "shop",
      "make",
      "apply",
      "reserve",
      "shop",
      "purchase",
      "buy",
      "fly",
      "search",
      "buy",
    ]);
  });

  it("prefers a candidate the caller knows", () => {
    const known = new Set(["bus"]);
    expect(lemmatize({ word: "buses", pos: "noun", known })).toBe("bus");
    expect(nounLemmas({ word: "movies" })).toContain("movie");
    expect(verbLemmas({ word: "using" })).toContain("use");
  });

  it("never turns a word into a different word it does not end with (cart is not car)", () => {
    expect(nounLemmas({ word: "cart" })).toEqual(["cart"]);
    expect(nounLemmas({ word: "carts" })).toEqual(["carts", "cart"]);
  });

  it("always offers the word itself first, and regular plurals lead back to the singular", () => {
    const word = fc.stringMatching(/^[a-z]{3,10}$/);
    fc.assert(
      fc.property(word, (w) => {
        expect(nounLemmas({ word: w })[0]).toBe(w);
        expect(verbLemmas({ word: w })[0]).toBe(w);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{3,8}[bdgkmnpt]$/), (w) => {
        expect(nounLemmas({ word: `${w}s` })).toContain(w);
        expect(verbLemmas({ word: `${w}ed` })).toContain(w);
      }),
    );
  });
});

describe("lemmatiser: words named like Object.prototype's members", () => {
  it("are words: every lemma is a string, and no table answers for them", () => {
    for (const word of ["constructor", "__proto__", "toString", "valueOf", "hasOwnProperty"]) {
      for (const pos of ["noun", "verb"] as const) {
        expect(typeof lemmatize({ word, pos }), `${word} ${pos}`).toBe("string");
      }
      expect(nounLemmas({ word }).every((l) => typeof l === "string")).toBe(true);
      expect(verbLemmas({ word }).every((l) => typeof l === "string")).toBe(true);
    }
    expect(lemmatize({ word: "constructor", pos: "verb" })).toBe("constructor");
  });
});
