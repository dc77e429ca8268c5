import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildStepFacts } from "../assign/step-facts.js";
import { findPii, ibanValid, luhnValid, piiDetector } from "./pii.js";

const kinds = (text: string) => findPii({ text }).map((m) => m.kind);

describe("pii", () => {
  it("finds e-mails, phones, cards, SSNs and IBANs", () => {
    expect(kinds("write to jane.doe+crm@example.co.uk today")).toEqual(["email"]);
    expect(kinds("call +1 (415) 555-0132 or 415.555.0133")).toEqual(["phone", "phone"]);
    expect(kinds("private line 555-0198")).toEqual(["phone"]);
    expect(kinds("mobile: 07700900123")).toEqual(["phone"]);
    expect(kinds("card 4111 1111 1111 1111 exp 12/29")).toEqual(["credit_card"]);
    expect(kinds("ssn 123-45-6789")).toEqual(["ssn"]);
    expect(kinds("IBAN GB82 WEST 1234 5698 7654 32")).toEqual(["iban"]);
    expect(kinds("DE89370400440532013000")).toEqual(["iban"]);
  });

  it("does not flag dates, times, versions, IPs, order numbers or failed checksums", () => {
    for (const text of [
      "due 2024-01-15 at 10:30",
      "released 15/01/2024",
      "version 1.2.3 and 10.4.12-beta",
      "server 10.1.2.50",
      "Order #000000123 and #1234567890",
      "ORD-2024-0001-77",
      "invoice 2024-000123",
      "years 2019 2020 2021",
      "card 4111 1111 1111 1112",
      "ssn 000-12-3456 or 666-12-3456",
      "GB82 WEST 1234 5698 7654 33",
      "merge request !12345, issue #4521",
      "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
      "12 results in 0.045 seconds",
    ]) {
      expect(kinds(text), text).toEqual([]);
    }
  });

  it("finds every Luhn-valid Visa number and no number one digit off", () => {
    const digits = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 14, maxLength: 14 });
    fc.assert(
      fc.property(digits, (body) => {
        const partial = `4${body.join("")}`;
        const check = [...Array(10).keys()].find((d) => luhnValid({ digits: `${partial}${d}` }))!;
        const valid = `${partial}${check}`;
        expect(luhnValid({ digits: valid })).toBe(true);
        expect(
          findPii({ text: `pay with ${valid.replace(/(\d{4})/g, "$1 ").trim()}`, kinds: ["credit_card"] }),
        ).toHaveLength(1);
        const wrong = `${partial}${(check + 1) % 10}`;
        expect(findPii({ text: `pay with ${wrong}`, kinds: ["credit_card"] })).toHaveLength(0);
      }),
    );
  });

  it("checks IBAN checksums", () => {
    expect(ibanValid({ iban: "GB82WEST12345698765432" })).toBe(true);
    expect(ibanValid({ iban: "GB82WEST12345698765431" })).toBe(false);
  });

  it("reads the field it is given and validates its params", () => {
    const facts = buildStepFacts({
      step: {
        action: "fill",
        args: {},
        element: "Phone",
        value: "555-0198",
        observation: "jane@example.com",
      },
      index: 0,
    });
    expect(piiDetector.detect({ facts, params: {}, field: undefined })).toBe(true);
    expect(piiDetector.detect({ facts, params: { kinds: ["email"] }, field: "typed" })).toBe(false);
    expect(piiDetector.detect({ facts, params: { kinds: ["email"] }, field: "observation" })).toBe(true);
    expect(piiDetector.detect({ facts, params: {}, field: "thought" })).toBeUndefined();
    expect(() => piiDetector.detect({ facts, params: { kinds: ["dna"] }, field: undefined })).toThrow(
      /params\.kinds\.0/,
    );
  });

  it("finds personal data written in full width or broken by invisible characters", () => {
    const typed = (value: string) =>
      buildStepFacts({ step: { action: "fill", args: {}, element: "Notes", value }, index: 0 });
    for (const value of [
      "４１１１ １１１１ １１１１ １１１１",
      "4111\u200b1111\u200b1111\u200b1111",
      "ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ",
    ]) {
      expect(piiDetector.detect({ facts: typed(value), params: {}, field: "typed" }), value).toBe(true);
    }
    expect(piiDetector.detect({ facts: typed("５ stars\u200b"), params: {}, field: "typed" })).toBe(false);
  });
});
