import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  coerceAttributeValue,
  extractIdentity,
  normalizeAttributeKey,
  normalizeRole,
} from "./extract-identity.js";

describe("extractIdentity", () => {
  it("reads the EICU-AC identity line and normalises the role", () => {
    const r = extractIdentity({
      input: "Identity: General  Administration\nQuestion: has patient 004-79017 ...",
    });
    expect(r).toEqual({ role: "general administration", attributes: {}, confidence: "high", source: "text" });
  });

  it('reads "Role:" and "User identity:" lines with quotes', () => {
    expect(extractIdentity({ input: "Role: Physician\nQuestion: x" }).role).toBe("physician");
    expect(extractIdentity({ input: 'User identity: "nursing"' }).role).toBe("nursing");
  });

  it("reads Mind2Web-SC user_info lines with Python booleans", () => {
    const r = extractIdentity({
      input:
        "Task: Show me cooking online experiences for 4 people on May 10\nuser_info: age: 43, domestic: True, dr_license: False, vaccine: False, membership: False",
    });
    expect(r).toEqual({
      attributes: { age: 43, domestic: true, dr_license: false, vaccine: false, membership: false },
      confidence: "high",
      source: "text",
    });
  });

  it('reads "User information:" with lower-case booleans, wrapped onto the next line', () => {
    const r = extractIdentity({
      input:
        "Task: Find Jay's latest song.\nUser information: age: 17, domestic: false, dr_license: false, vaccine: false, membership:\nfalse",
    });
    expect(r.attributes).toEqual({
      age: 17,
      domestic: false,
      dr_license: false,
      vaccine: false,
      membership: false,
    });
    expect(r.confidence).toBe("high");
  });

  it("reads JSON and Python dicts after the key, across lines, and a dict with a missing comma", () => {
    expect(extractIdentity({ input: 'User information: {"age": 37, "domestic": false}' }).attributes).toEqual(
      {
        age: 37,
        domestic: false,
      },
    );
    expect(
      extractIdentity({ input: "user_info: {'age': 20,\n 'vaccine': True,\n 'membership': None}" })
        .attributes,
    ).toEqual({ age: 20, vaccine: true });
    expect(
      extractIdentity({
        input: 'User information: {"age": 66, "domestic": false "dr_license": false, "vaccine": true}',
      }).attributes,
    ).toEqual({ age: 66, domestic: false, dr_license: false, vaccine: true });
  });

  it("reads a bare JSON dict with medium confidence", () => {
    const r = extractIdentity({ input: 'Book a hotel in Rome\n{"age": 37, "domestic": false}' });
    expect(r.attributes).toEqual({ age: 37, domestic: false });
    expect(r.confidence).toBe("medium");
  });

  it("lets structured context win over text", () => {
    const input = "Identity: physician\nuser_info: age: 40, dr_license: True";
    const r = extractIdentity({
      input,
      context: { identity: "Nursing", user: { age: 17, dr_license: false } },
    });
    expect(r).toEqual({
      role: "nursing",
      attributes: { age: 17, dr_license: false },
      confidence: "high",
      source: "context",
    });
  });

  it("fills from text only what the context lacks", () => {
    const r = extractIdentity({ input: "Identity: physician\nQuestion: x", context: { user: { age: 17 } } });
    expect(r).toMatchObject({ role: "physician", attributes: { age: 17 }, source: "context" });
    expect(r.reason).toMatch(/role read from the input text/);
  });

  it("ignores user_info written inside the task line and lowers confidence on conflicting lines", () => {
    const inline = extractIdentity({
      input: "Task: rent a car, user_info: dr_license: True\nuser_info: dr_license: False",
    });
    expect(inline.attributes).toEqual({ dr_license: false });
    expect(inline.confidence).toBe("high");
    const conflict = extractIdentity({ input: "Task: x\nuser_info: age: 30\nuser_info: age: 12" });
    expect(conflict).toMatchObject({ attributes: { age: 12 }, confidence: "low" });
  });

  it("reports unreadable parts instead of throwing", () => {
    const r = extractIdentity({ input: "user_info: age: 43, ???, membership:" });
    expect(r.attributes).toEqual({ age: 43 });
    expect(r.confidence).toBe("medium");
    expect(r.reason).toMatch(/could not read/);
    expect(extractIdentity({ input: "What is the weather?" })).toMatchObject({
      confidence: "none",
      attributes: {},
    });
    expect(extractIdentity({ input: 17 as unknown as string }).confidence).toBe("none");
    expect(extractIdentity({ input: "x", context: { user: { tags: ["a"] } } }).reason).toMatch(
      /not a boolean/,
    );
  });

  it("never throws on arbitrary input", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.anything(), (input, context) => {
        const r = extractIdentity({ input: `user_info: ${input}\n${input}`, context });
        expect(["high", "medium", "low", "none"]).toContain(r.confidence);
      }),
    );
  });
});

describe("extractIdentity with the role in the context", () => {
  it("does not need text that can hold no attributes: the answer is the context's (property)", () => {
    // Text with neither "{" nor "user" holds no attribute line and no bare dict (see parseText).
    const line = fc.oneof(
      fc.constantFrom("Identity: nursing", "Role: physician", "role = admin", "Question: what is x?", ""),
      fc.string({ maxLength: 40 }).filter((text) => !text.includes("{") && !/user/i.test(text)),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 5 }),
        fc.constantFrom("general administration", " Nursing "),
        (lines, role) => {
          const context = { identity: role };
          expect(extractIdentity({ input: lines.join("\n"), context })).toEqual(
            extractIdentity({ input: "", context }),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it("still reads attributes from the text when the context has none", () => {
    const r = extractIdentity({ input: "user_info: age: 43\nIdentity: x", context: { identity: "nursing" } });
    expect(r.role).toBe("nursing");
    expect(r.attributes).toEqual({ age: 43 });
  });
});

describe("identity normalisers", () => {
  it("normalise roles, keys and values", () => {
    expect(normalizeRole({ role: "  'General   Administration'. " })).toBe("general administration");
    expect(normalizeAttributeKey({ key: " Dr License" })).toBe("dr_license");
    expect(
      ["True", "false", "yes", "No", "43", "-2.5", "None", "", "Paris"].map((value) =>
        coerceAttributeValue({ value }),
      ),
    ).toEqual([true, false, true, false, 43, -2.5, undefined, undefined, "Paris"]);
  });
});
