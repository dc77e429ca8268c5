/**
 * The audit log's part of the Store conformance suite (store-conformance.ts calls it), so SQLite and
 * PostgreSQL keep one chain the same way: rows read back as written, newest first, concurrent writers from
 * several store instances make one valid chain, pruning keeps it verifiable, and verify names the first
 * row that an edit, a deletion (the newest included), a reordering or an insertion broke. The tamper cases
 * need raw SQL (`execute`) and restore what they changed, so later cases find a whole chain again.
 */
import { expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import { verifyAuditChain } from "./audit-chain.js";
import type { NewAuditEntry, Store } from "./store.js";

export interface AuditConformanceOptions {
  create: () => Promise<Store>;
  /** Runs one SQL statement on the store's database, as an attacker with table access would. */
  execute?: (options: { sql: string }) => Promise<void>;
}

const decision = (over: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  kind: "decision",
  policy: "eicu-ac",
  policyVersion: "1.0.0",
  engine: "compiled",
  verdict: "deny",
  allowed: false,
  rules: ["access.nursing"],
  explanation: "nursing may not read diagnosis",
  caller: "key-a",
  latencyMs: 1.2345678,
  subjectDigest: "a".repeat(64),
  face: "http",
  ...over,
});

export function describeAuditConformance(options: AuditConformanceOptions): void {
  const { create, execute } = options;

  it("audit: appends chained rows that read back as written, newest first, by id and by seq", async () => {
    const store = await create();
    const before = await store.auditHead();
    const a = await store.appendAuditEntry({
      entry: decision({ subject: { input: "q", nested: { b: 1, a: [2] } } }),
    });
    const b = await store.appendAuditEntry({
      entry: decision({
        kind: "approval",
        verdict: "allow",
        allowed: true,
        approvalId: "ap-1",
        caller: "alice",
      }),
    });
    const c = await store.appendAuditEntry({
      entry: { kind: "decision", policy: "p", verdict: "ask", allowed: false, face: "cli-check" },
    });
    expect(a.seq).toBe(before.headSeq + 1);
    expect([b.seq, c.seq]).toEqual([a.seq + 1, a.seq + 2]);
    expect(a.prevHash).toBe(before.headHash);
    expect(b.prevHash).toBe(a.hash);
    expect(a.latencyMs).toBe(1.235);
    expect(c).toMatchObject({
      rules: [],
      explanation: "",
      caller: "",
      engine: "",
      policyVersion: "",
      latencyMs: 0,
      subjectDigest: "",
    });
    expect(c.subject).toBeUndefined();
    expect(await store.listAuditEntries({ limit: 3 })).toEqual([c, b, a]);
    expect(await store.listAuditEntries({ limit: 2, before: c.seq })).toEqual([b, a]);
    expect(await store.getAuditEntry({ id: a.id })).toEqual(a);
    expect(await store.getAuditEntry({ id: String(b.seq) })).toEqual(b);
    expect(await store.getAuditEntry({ id: "no-such-row" })).toBeUndefined();
    expect(await store.auditHead()).toMatchObject({ headSeq: c.seq, headHash: c.hash });
    expect(await verifyAuditChain({ store })).toMatchObject({ ok: true });
  });

  it("audit: refuses malformed entries and checkpoint rows from callers", async () => {
    const store = await create();
    for (const bad of [
      { ...decision(), verdict: "maybe" },
      { ...decision(), kind: "checkpoint" },
      { ...decision(), policy: "a\u0000b" },
      { ...decision(), latencyMs: -1 },
    ]) {
      const error = await store.appendAuditEntry({ entry: bad as NewAuditEntry }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isWardenError(error) && error.code === "INVALID_INPUT", JSON.stringify(bad)).toBe(true);
    }
    expect(await verifyAuditChain({ store })).toMatchObject({ ok: true });
  });

  it("audit: concurrent writers on several store instances make one valid chain", async () => {
    // Opened one after another: a SQLite store's migration waits for the lock synchronously.
    const stores = [await create(), await create(), await create()];
    const start = (await stores[0]!.auditHead()).headSeq;
    const written = await Promise.all(
      stores.flatMap((store, i) =>
        Array.from({ length: 8 }, (_, j) =>
          store.appendAuditEntry({ entry: decision({ caller: `w${i}-${j}` }) }),
        ),
      ),
    );
    expect(new Set(written.map((e) => e.seq)).size).toBe(24);
    expect(Math.max(...written.map((e) => e.seq))).toBe(start + 24);
    expect(await verifyAuditChain({ store: stores[1]! })).toMatchObject({ ok: true });
  });

  it("audit: a batch bigger than one INSERT reads back as written, in order, and verifies", async () => {
    const store = await create();
    const start = (await store.auditHead()).headSeq;
    // Appended in one turn: the group commit writes them in one transaction, in several INSERTs.
    const written = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        store.appendAuditEntry({
          entry: decision({
            caller: `b${i}`,
            ...(i % 3 === 0 ? { subject: { z: i, a: [{ y: 1, x: "é" }] } } : {}),
            ...(i % 5 === 0 ? { approvalId: `ap-${i}` } : {}),
            ...(i % 7 === 0 ? { rules: [] } : {}),
          }),
        }),
      ),
    );
    expect(written.map((e) => e.seq)).toEqual(Array.from({ length: 150 }, (_, i) => start + 1 + i));
    expect(written.map((e) => e.caller)).toEqual(Array.from({ length: 150 }, (_, i) => `b${i}`));
    const read = await store.readAuditChain({ after: start, limit: 200 });
    expect(read).toEqual(written);
    expect(await store.auditHead()).toMatchObject({
      headSeq: start + 150,
      headHash: written.at(-1)?.hash,
    });
    expect(await verifyAuditChain({ store })).toMatchObject({ ok: true });
  });

  it.skipIf(!execute)(
    "audit: verify names the first edited, deleted, reordered or inserted row, the newest included",
    async () => {
      const run = execute as NonNullable<typeof execute>;
      const store = await create();
      const rows = [];
      for (let i = 0; i < 5; i++)
        rows.push(await store.appendAuditEntry({ entry: decision({ caller: `t${i}` }) }));
      const [, second, third, , last] = rows as [
        unknown,
        { seq: number; id: string },
        { seq: number },
        unknown,
        { seq: number },
      ];
      const broken = async (seq: number) => {
        const result = await verifyAuditChain({ store });
        expect(result.ok).toBe(false);
        expect(result.problem?.seq).toBe(seq);
        return result;
      };
      const whole = async () => expect(await verifyAuditChain({ store })).toMatchObject({ ok: true });
      await whole();

      // Edited: the verdict of one row.
      await run({
        sql: `update warden_audit_entries set verdict = 'allow', allowed = 1 where seq = ${second.seq}`,
      });
      expect((await broken(second.seq)).problem?.id).toBe(second.id);
      await run({
        sql: `update warden_audit_entries set verdict = 'deny', allowed = 0 where seq = ${second.seq}`,
      });
      await whole();

      // Deleted: a middle row, then the newest one.
      for (const seq of [third.seq, last.seq]) {
        await run({ sql: "create table warden_audit_saved as select * from warden_audit_entries" });
        await run({ sql: `delete from warden_audit_entries where seq = ${seq}` });
        await broken(seq);
        await run({ sql: "delete from warden_audit_entries" });
        await run({ sql: "insert into warden_audit_entries select * from warden_audit_saved" });
        await run({ sql: "drop table warden_audit_saved" });
        await whole();
      }

      // Reordered: two rows swap places.
      const swap = async () => {
        await run({ sql: `update warden_audit_entries set seq = -1 where seq = ${second.seq}` });
        await run({ sql: `update warden_audit_entries set seq = ${second.seq} where seq = ${third.seq}` });
        await run({ sql: `update warden_audit_entries set seq = ${third.seq} where seq = -1` });
      };
      await swap();
      await broken(second.seq);
      await swap();
      await whole();

      // Inserted: a copy of a row appended after the head.
      await run({
        sql: `insert into warden_audit_entries (seq, id, kind, at, policy, policy_version, engine, verdict, allowed, rules, explanation, caller, latency_ms, subject_digest, subject, approval_id, face, prev_hash, hash) select seq + 1, 'forged', kind, at, policy, policy_version, engine, verdict, allowed, rules, explanation, caller, latency_ms, subject_digest, subject, approval_id, face, hash, hash from warden_audit_entries where seq = ${last.seq}`,
      });
      await broken(last.seq + 1);
      await run({ sql: "delete from warden_audit_entries where id = 'forged'" });
      await whole();

      // An anchor kept elsewhere: the row at that position must still have that hash.
      const anchor = { seq: second.seq, hash: (await store.getAuditEntry({ id: second.id }))!.hash };
      expect(await verifyAuditChain({ store, anchor })).toMatchObject({ ok: true });
      expect(await verifyAuditChain({ store, anchor: { ...anchor, hash: "b".repeat(64) } })).toMatchObject({
        ok: false,
      });
    },
  );

  // Last of the audit cases: it removes the rows the earlier ones wrote.
  it("audit: prunes by count and by age, recording a checkpoint that keeps the chain verifiable", async () => {
    const store = await create();
    for (let i = 0; i < 4; i++) await store.appendAuditEntry({ entry: decision({ caller: `p${i}` }) });
    const head = await store.auditHead();
    const kept = await store.pruneAuditEntries({ keep: 2 });
    expect(kept.pruned).toBe(head.headSeq - head.baseSeq - 2);
    expect(kept.checkpoint).toMatchObject({ kind: "checkpoint", seq: head.headSeq + 1, verdict: "none" });
    expect(kept.checkpoint?.subject).toEqual({
      prunedThrough: head.headSeq - 2,
      baseHash: expect.any(String),
    });
    expect((await store.auditHead()).baseSeq).toBe(head.headSeq - 2);
    expect(await verifyAuditChain({ store })).toMatchObject({ ok: true, rows: 3 });
    expect((await store.pruneAuditEntries({ keep: 3 })).pruned).toBe(0);

    const future = new Date(Date.now() + 60_000).toISOString();
    const aged = await store.pruneAuditEntries({ olderThan: future });
    expect(aged.pruned).toBe(3);
    expect(await store.listAuditEntries({})).toEqual([aged.checkpoint]);
    expect(await verifyAuditChain({ store })).toMatchObject({ ok: true, rows: 1 });
    const next = await store.appendAuditEntry({ entry: decision() });
    expect(next.prevHash).toBe(aged.checkpoint?.hash);
    expect(await verifyAuditChain({ store })).toMatchObject({ ok: true, rows: 2 });

    const error = await store.pruneAuditEntries({ keep: 1, olderThan: future }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isWardenError(error) && error.code === "INVALID_INPUT").toBe(true);
  });
}
