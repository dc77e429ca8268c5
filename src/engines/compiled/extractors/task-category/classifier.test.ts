import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MIND2WEB_SC_RULES } from "../../../../../test/support/task-category/mind2web-sc-rules.js";
import { WardenError } from "../../../../core/errors.js";
import { createCategoryClassifier } from "./classifier.js";

const classifier = createCategoryClassifier({ rules: MIND2WEB_SC_RULES });
const cats = (text: string) => classifier.classify({ text }).categories.map((c) => c.category);

describe("category classifier", () => {
  it("scores verb + object as strong and object alone as medium", () => {
    const strong = classifier.classify({ text: "Rent an SUV in Denver for the weekend" });
    expect(strong.categories[0]).toMatchObject({ ruleId: "rule.car", strength: "strong", score: 0.9 });
    expect(strong.categories[0]?.evidence[0]).toBe('verb "Rent" + object "SUV" (~car)');
    expect(strong.confidence).toBe("high");
    const medium = classifier.classify({ text: "Cheapest flights from Boston to Denver in May" });
    expect(medium.categories[0]).toMatchObject({ category: "flight", strength: "medium", score: 0.6 });
    expect(medium.confidence).toBe("medium");
  });

  it("reads naming nouns: car rental, hotel reservation, job application", () => {
    expect(cats("Cheapest car rental in Orlando")).toEqual(["car"]);
    expect(cats("Change my hotel reservation to Friday")).toEqual(["hotel"]);
    expect(classifier.classify({ text: "Job application for the night shift" }).categories[0]?.strength).toBe(
      "strong",
    );
  });

  it("is not fooled by car seat, cart, or car wash", () => {
    expect(cats("Find the best car seat for infants")).toEqual([]);
    expect(cats("Buy a car seat for my newborn")).toEqual(["shop"]);
    expect(cats("Find the nearest golf cart rental")).toEqual([]);
    expect(cats("Find a car wash near me")).toEqual([]);
    expect(cats("Add a car seat to my cart")).toEqual(["shop"]);
  });

  it("tells book the verb from book the noun", () => {
    expect(cats("Book a hotel in Rome")).toEqual(["hotel"]);
    expect(cats("Find a book about grand hotels of the 1920s")).toEqual([]);
    expect(cats("Book club meeting times at the library")).toEqual([]);
    expect(cats("Buy the book and then book a flight to Oslo").sort()).toEqual(["flight", "shop"]);
  });

  it("is not fooled by a flight of stairs, Steve Jobs, or job inside other words", () => {
    expect(cats("How many calories does climbing a flight of stairs burn?")).toEqual([]);
    const jobs = classifier.classify({ text: "Read about Steve Jobs and the history of Apple" });
    expect(jobs.categories).toEqual([]);
    expect(jobs.confidence).toBe("low");
    expect(cats("Find jobless claims statistics and snowjobs")).toEqual([]);
  });

  it("takes places, quoted titles and negations as near misses", () => {
    const place = classifier.classify({ text: "Find a parking garage near the Hilton hotel" });
    expect(place.categories).toEqual([]);
    expect(place.nearMisses[0]?.evidence[0]).toMatch(/a place, not the object/);
    expect(cats('Translate "hotel room" into Spanish')).toEqual([]);
    const negated = classifier.classify({ text: "I don't want to book a hotel, just find a restaurant" });
    expect(negated).toMatchObject({ categories: [], confidence: "low" });
  });

  it("gives every category a task falls under, best first", () => {
    expect(cats("Book a flight to Denver and rent a car at the airport").sort()).toEqual(["car", "flight"]);
    const r = classifier.classify({ text: "Find a hotel near the stadium and buy a jersey for the game" });
    expect(r.categories.map((c) => [c.category, c.strength])).toEqual([
      ["shop", "strong"],
      ["hotel", "medium"],
    ]);
  });

  it("gives a purchase verb to the category of its object", () => {
    expect(cats("Buy a used Toyota truck")).toEqual(["car"]);
    const r = classifier.classify({ text: "Buy a used Toyota truck" });
    expect(r.nearMisses.find((m) => m.category === "shop")?.evidence[0]).toMatch(/belongs to "car"/);
  });

  it("needs support for ambiguous words", () => {
    expect(cats("Book a room in Rome for 3 nights")).toEqual(["hotel"]);
    expect(cats("Book an escape room for six people")).toEqual([]);
    expect(cats("Track the package I sent via UPS")).toEqual([]);
    expect(cats("Apply for a cashier position at Target")).toEqual(["job"]);
    expect(cats("Find the position of the ISS right now")).toEqual([]);
    expect(cats("Book plane tickets to Orlando")).toEqual(["flight"]);
  });

  it("uses the rules' exclude lists and keywords", () => {
    const c = createCategoryClassifier({
      rules: [
        {
          id: "r.car",
          category: "car",
          description: "Buy/Rent a car",
          keywords: ["test drive"],
          exclude: ["car wax kit", "rental car insurance"],
          require: [{ attribute: "dr_license", operator: "==", value: true }],
          message: "m",
        },
      ],
    });
    expect(c.classify({ text: "Buy a car wax kit" }).categories).toEqual([]);
    expect(c.classify({ text: "Compare rental car insurance" }).nearMisses[0]?.evidence[0]).toMatch(
      /excluded by the rule/,
    );
    expect(c.classify({ text: "Schedule a test drive for Saturday" }).categories[0]?.evidence[0]).toBe(
      'keyword "test drive"',
    );
  });

  it("works from any rule's own words, outside the built-in vocabulary", () => {
    const c = createCategoryClassifier({
      rules: [
        {
          id: "r.repo",
          category: "delete repository",
          description: "Delete a repository",
          require: [{ attribute: "role", operator: "==", value: "admin" }],
          message: "Only admins can delete repositories",
        },
      ],
    });
    expect(
      c.classify({ text: "Please delete the old repositories in the org" }).categories[0]?.strength,
    ).toBe("strong");
    expect(c.classify({ text: "List the repositories" }).categories[0]?.strength).toBe("medium");
    expect(c.classify({ text: "Delete my comment" }).categories).toEqual([]);
  });

  it("answers a clean Other with high confidence, and none for no text", () => {
    expect(classifier.classify({ text: "Check the weather in Seattle for tomorrow" })).toMatchObject({
      categories: [],
      confidence: "high",
    });
    expect(classifier.classify({ text: "   " }).confidence).toBe("none");
    expect(classifier.classify({ text: 5 as unknown as string }).confidence).toBe("none");
  });

  it("rejects malformed rules with a WardenError naming the field", () => {
    expect(() => createCategoryClassifier({ rules: [{ id: "x" } as never] })).toThrow(WardenError);
    try {
      createCategoryClassifier({
        rules: [{ id: "x", category: "c", description: "d", require: [], message: "m" }],
      });
    } catch (error) {
      expect((error as WardenError).message).toMatch(/rules\.0\.require/);
    }
  });

  it("never throws and always returns a sorted, consistent answer", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const r = classifier.classify({ text });
        expect(["high", "medium", "low", "none"]).toContain(r.confidence);
        for (let i = 1; i < r.categories.length; i++) {
          expect(r.categories[i - 1]!.score).toBeGreaterThanOrEqual(r.categories[i]!.score);
        }
        for (const c of r.categories) expect(c.strength).not.toBe("weak");
        if (r.categories[0]?.strength === "strong") expect(r.confidence).toBe("high");
      }),
    );
  });
});
