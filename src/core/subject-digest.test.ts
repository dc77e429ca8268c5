/**
 * The question's digest: key order never matters, and the digest of a subject equals the digest of what
 * its canonical JSON reads back as (the audit log takes the digest from the text it also stores).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalSubject, digestOfCanonical, subjectDigest } from "./subject-digest.js";

describe("subjectDigest", () => {
  it("is the digest of the canonical text, and of that text read back", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const canonical = canonicalSubject({ subject: value });
        const digest = digestOfCanonical({ canonical });
        expect(subjectDigest({ subject: value })).toBe(digest);
        expect(subjectDigest({ subject: JSON.parse(canonical) })).toBe(digest);
      }),
      { numRuns: 500 },
    );
  });

  it("does not depend on key order", () => {
    expect(subjectDigest({ subject: { a: 1, b: [{ c: 2, d: 3 }] } })).toBe(
      subjectDigest({ subject: { b: [{ d: 3, c: 2 }], a: 1 } }),
    );
  });
});
