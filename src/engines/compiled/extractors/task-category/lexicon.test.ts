import { describe, expect, it } from "vitest";
import { AttributeRuleSchema } from "../../../../core/policy.js";
import { buildRuleLexicon, parseDescription } from "./lexicon.js";

describe("parseDescription", () => {
  it("reads verbs and objects with slash alternatives", () => {
    expect(parseDescription({ text: "Buy/Rent/Find/Browse a car/truck." })).toEqual([
      { verbs: ["buy", "rent", "find", "browse"], objects: ["car", "truck"] },
    ]);
    expect(parseDescription({ text: "Search/Find/Show movies/musics/video." })).toEqual([
      { verbs: ["search", "find", "show"], objects: ["movie", "music", "video"] },
    ]);
    expect(parseDescription({ text: "Action: Apply for a job" })).toEqual([
      { verbs: ["apply"], objects: ["job"] },
    ]);
  });

  it("keeps a verb-only clause and drops place phrases from objects", () => {
    expect(parseDescription({ text: "Purchase (Add to cart or to bag in an online store)" })).toEqual([
      { verbs: ["purchase"], objects: [] },
      { verbs: ["add"], objects: ["cart", "bag"] },
    ]);
  });

  it("reads descriptions outside the built-in vocabulary", () => {
    expect(parseDescription({ text: "Delete a repository or a branch" })).toEqual([
      { verbs: ["delete"], objects: ["repository", "branch"] },
    ]);
    expect(parseDescription({ text: "Buy, sell or trade cryptocurrencies on an exchange" })).toEqual([
      { verbs: ["buy", "sell", "trade"], objects: ["cryptocurrency"] },
    ]);
    expect(parseDescription({ text: "Book a hotel room" })).toEqual([
      { verbs: ["book"], objects: ["room", "hotel"] },
    ]);
  });
});

describe("buildRuleLexicon", () => {
  const rule = (r: object) =>
    AttributeRuleSchema.parse({
      id: "r",
      category: "c",
      require: [{ attribute: "a", operator: "==", value: true }],
      message: "m",
      ...r,
    });

  it("widens verbs with their group and objects with their concept", () => {
    const lex = buildRuleLexicon({ rule: rule({ description: "Rent a car" }) });
    const [pattern] = lex.patterns;
    expect(pattern?.verbs.get("lease")).toBe("rent");
    expect(pattern?.verbs.has("buy")).toBe(false);
    const suv = pattern?.objects.find((o) => o.tokens.join(" ") === "suv");
    expect(suv).toMatchObject({ concept: "car", source: "synonym", needsSupport: false });
  });

  it("adds keywords (verbs, nouns, phrases) and exclude phrases", () => {
    const lex = buildRuleLexicon({
      rule: rule({
        description: "Book a flight",
        keywords: ["charter", "layovers", "frequent flyer miles"],
        exclude: ["Flight Simulators"],
      }),
    });
    expect(lex.patterns[0]?.verbs.get("charter")).toBe("charter");
    expect(lex.patterns.at(-1)?.objects.map((o) => o.tokens.join(" "))).toEqual(["layover"]);
    expect(lex.phrases).toEqual([["frequent", "flyer", "mile"]]);
    expect(lex.excludes).toEqual([["flight", "simulator"]]);
  });
});
