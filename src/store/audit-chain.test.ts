/**
 * The audit chain's hash is pinned: rows written by any version must verify under any later one, so the
 * canonical row (key order, absent fields left out, the subject sorted) and the digest may be made faster
 * but never different. The hashes below were computed by the first implementation (a sorted copy of the
 * row, hashed with a Hash object).
 */
import { describe, expect, it } from "vitest";
import { stableStringify } from "../util/stable-json.js";
import { AUDIT_GENESIS_HASH, auditRowHash, canonicalAuditRow, verifyAuditChain } from "./audit-chain.js";
import type { AuditEntry, Store } from "./store.js";

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

describe("verifyAuditChain: a row holding an own __proto__ key", () => {
  // Before 877010a, canonical JSON dropped an own "__proto__" key from every object it had to sort, so
  // such a row was hashed without the key. The chain cannot vouch for that key: the row is not verified,
  // and the reason says why rather than only "edited".
  const subject = JSON.parse('{"output":"x","args":{"path":"/w/a","__proto__":{"cwd":"/etc"}}}') as unknown;
  const asHashedThen = { output: "x", args: { path: "/w/a" } };
  const storeOf = (rows: AuditEntry[], head: AuditEntry): Store =>
    ({
      auditHead: async () => ({
        baseSeq: 0,
        baseHash: AUDIT_GENESIS_HASH,
        headSeq: head.seq,
        headHash: head.hash,
      }),
      readAuditChain: async ({ after = 0 }: { after?: number }) => rows.filter((r) => r.seq > after),
    }) as unknown as Store;

  it("is not verified, and the reason names the key", async () => {
    const entry = { ...row, seq: 1, subject };
    const hash = auditRowHash({ prevHash: AUDIT_GENESIS_HASH, entry: { ...entry, subject: asHashedThen } });
    const stored: AuditEntry = { ...entry, prevHash: AUDIT_GENESIS_HASH, hash };
    const result = await verifyAuditChain({ store: storeOf([stored], stored) });
    expect(result.ok).toBe(false);
    expect(result.problem).toMatchObject({ seq: 1, id: row.id });
    expect(result.problem?.reason).toMatch(/own "__proto__" key/);
  });

  it("is verified when it was hashed with the key", async () => {
    const entry = { ...row, seq: 1, subject };
    const hash = auditRowHash({ prevHash: AUDIT_GENESIS_HASH, entry });
    expect(canonicalAuditRow({ entry })).toContain('"__proto__":{"cwd":"/etc"}');
    const stored: AuditEntry = { ...entry, prevHash: AUDIT_GENESIS_HASH, hash };
    expect(await verifyAuditChain({ store: storeOf([stored], stored) })).toMatchObject({ ok: true, rows: 1 });
  });

  it("an edited row without such a key keeps the plain reason", async () => {
    const entry = { ...row, seq: 1, subject: asHashedThen };
    const hash = auditRowHash({ prevHash: AUDIT_GENESIS_HASH, entry });
    const stored: AuditEntry = { ...entry, explanation: "edited", prevHash: AUDIT_GENESIS_HASH, hash };
    const result = await verifyAuditChain({ store: storeOf([stored], stored) });
    expect(result.problem?.reason).toBe("its content does not match its hash (the row was edited)");
  });
});
