/**
 * The audit chain's hash is pinned: rows written by any version must verify under any later one, so the
 * canonical row (key order, absent fields left out, the subject sorted) and the digest may be made faster
 * but never different. The hashes below were computed by the first implementation (a sorted copy of the
 * row, hashed with a Hash object).
 */
import { describe, expect, it } from "vitest";
import { stableStringify } from "../util/stable-json.js";
import { auditRowHash, canonicalAuditRow } from "./audit-chain.js";
import type { AuditEntry } from "./store.js";

const row: Omit<AuditEntry, "hash" | "prevHash"> = {
  id: "0190d2a4-5c3b-7e2a-9f1e-2b6c8d4e0a11",
  seq: 42,
  kind: "decision",
  at: "2026-11-26T10:00:00.000Z",
  policy: "mcp-tools",
  policyVersion: "1.2.0",
  engine: "compiled",
  verdict: "deny",
  allowed: false,
  rules: ["no-delete-home", "r2"],
  explanation: "Denied: é \u{1F600}",
  caller: "anonymous",
  latencyMs: 0.123,
  subjectDigest: "ab".repeat(32),
  face: "http",
};

describe("auditRowHash", () => {
  it("hashes a row as the first implementation did", () => {
    expect(auditRowHash({ prevHash: "0".repeat(64), entry: row })).toBe(
      "ec311520706eb72866327aa54615de150c79690a63791b30aad3d94d31f5d786",
    );
  });

  it("hashes a row with a subject (keys out of order) and an approval id as the first implementation did", () => {
    const entry = {
      ...row,
      subject: { output: "x", input: { b: 1, a: [1, { d: 2, c: 3 }] } },
      approvalId: "apr-1",
    };
    expect(auditRowHash({ prevHash: "f".repeat(64), entry })).toBe(
      "d20235a72fcb95a4c96602b58fbc62ba76f17c44dabd050109a5d3c5b38fe1f2",
    );
  });

  it("prints the row with sorted keys and without absent fields", () => {
    const text = canonicalAuditRow({ entry: row });
    expect(Object.keys(JSON.parse(text) as object)).toEqual(Object.keys(JSON.parse(text) as object).sort());
    expect(text).not.toContain("approvalId");
    expect(text).not.toContain('"subject"');
  });

  it("prints stableStringify's text of the row, subject and rules included", () => {
    const subject = { output: "x", input: { b: 1, a: [1, { d: 2, c: 3 }] } };
    for (const entry of [
      row,
      { ...row, subject, approvalId: "apr-1" },
      { ...row, subject: [subject, null] },
    ]) {
      expect(canonicalAuditRow({ entry })).toBe(stableStringify({ value: entry }));
    }
  });
});
