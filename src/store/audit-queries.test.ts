/**
 * Audit row ids: RFC 9562 version-7 UUIDs, ordered by their time as text (so the id index grows at its
 * end), unique.
 */
import { describe, expect, it } from "vitest";
import { rowId } from "./audit-queries.js";

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("rowId", () => {
  it("is a version-7 UUID carrying the time, ordered by it as text, and unique", () => {
    const id = rowId({ now: 0x0123456789ab });
    expect(id).toMatch(V7);
    expect(id.startsWith("01234567-89ab-7")).toBe(true);
    const times = [1, 2, 255, 256, 4096, 1_700_000_000_000, 1_700_000_000_001, 2 ** 48 - 1];
    const ids = times.map((now) => rowId({ now }));
    expect([...ids].sort()).toEqual(ids);
    const many = new Set(Array.from({ length: 10_000 }, () => rowId()));
    expect(many.size).toBe(10_000);
    for (const each of [...many].slice(0, 100)) expect(each).toMatch(V7);
  });
});
