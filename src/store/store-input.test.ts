/**
 * StorableTextSchema, the text every store accepts: no NUL, no lone UTF-16 surrogate. Checked against
 * the rule written as a regular expression (the reference), on generated text full of surrogates.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StorableTextSchema } from "./store-input.js";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const storable = (text: string) => !text.includes("\u0000") && !LONE_SURROGATE.test(text);

const unit = fc.constantFrom("a", "\u0000", "\uD83D", "\uDE00", "\uD83D\uDE00", "é", " ", "\uDBFF", "\uDC00");

describe("StorableTextSchema", () => {
  it("accepts exactly the text without NUL and without a lone surrogate", () => {
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), fc.string(), (units, plain) => {
        const text = units.join("") + plain;
        expect(StorableTextSchema.safeParse(text).success).toBe(storable(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("names what is wrong", () => {
    expect(StorableTextSchema.safeParse("a\u0000b").error?.issues[0]?.message).toMatch(/NUL/);
    expect(StorableTextSchema.safeParse("\uDE00\uD83D").error?.issues[0]?.message).toMatch(/surrogate/);
    expect(StorableTextSchema.safeParse("ok \uD83D\uDE00").success).toBe(true);
  });
});
