/**
 * The approval queue's part of the Store conformance suite (issue 14): called from
 * describeStoreConformance, so SQLite and PostgreSQL pass the same cases. Each case works under its own
 * random policy name, so instances sharing one database do not see each other's rows.
 */
import { createHash, randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import type { NewApproval, Store } from "./store.js";

const digest = (text: string) => createHash("sha256").update(text).digest("hex");

export function describeApprovalConformance(options: { create: () => Promise<Store> }): void {
  const { create } = options;
  const ask = (policy: string, over: Partial<NewApproval> = {}): NewApproval => ({
    policy,
    policyVersion: "1.0.0",
    subjectDigest: digest(`${policy}:merge`),
    subject: { toolCall: { name: "merge", arguments: { repo: "acme/api", n: 12 } } },
    rules: ["tool.confirm-merge"],
    explanation: "Merging needs a human",
    caller: "agent",
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    ...over,
  });

  it("approvals: queues an ask, reads it back and lists it as pending, newest first", async () => {
    const store = await create();
    const policy = `approvals-${randomUUID()}`;
    const first = await store.createApproval({ approval: ask(policy) });
    const second = await store.createApproval({ approval: ask(policy, { subjectDigest: digest("other") }) });
    expect(first).toMatchObject({ ...ask(policy, { expiresAt: first.expiresAt }), status: "pending" });
    expect(first.id).not.toBe(second.id);
    expect(second.seq).toBeGreaterThan(first.seq);
    expect(await store.getApproval({ id: first.id })).toEqual(first);
    const pending = (await store.listApprovals({ status: "pending" })).filter((a) => a.policy === policy);
    expect(pending.map((a) => a.id)).toEqual([second.id, first.id]);
    expect(await store.getApproval({ id: randomUUID() })).toBeUndefined();
    expect(
      await store.findPendingApproval({ policy, subjectDigest: first.subjectDigest, caller: "agent" }),
    ).toEqual(first);
    expect(
      await store.findPendingApproval({ policy, subjectDigest: first.subjectDigest, caller: "other" }),
    ).toBe(undefined);
  });

  it("approvals: a decision is taken once; who and when are recorded; a second decider loses", async () => {
    const a = await create();
    const b = await create();
    const policy = `approvals-${randomUUID()}`;
    const approval = await a.createApproval({ approval: ask(policy) });
    const [one, two] = await Promise.all([
      a.decideApproval({ id: approval.id, decision: "approve", by: "alice" }),
      b.decideApproval({ id: approval.id, decision: "deny", by: "bob" }),
    ]);
    const winners = [one, two].filter((o) => o?.decided);
    expect(winners).toHaveLength(1);
    const stored = await b.getApproval({ id: approval.id });
    expect(stored?.status).toBe(one?.decided ? "approved" : "denied");
    expect(stored?.decidedBy).toBe(one?.decided ? "alice" : "bob");
    expect(Date.parse(stored?.decidedAt ?? "")).not.toBeNaN();
    expect(await a.decideApproval({ id: randomUUID(), decision: "approve", by: "x" })).toBeUndefined();
    expect((await a.listApprovals({ status: "pending" })).some((x) => x.id === approval.id)).toBe(false);
  });

  it("approvals: an approved question is used once, by the same caller, for the same policy and digest", async () => {
    const a = await create();
    const b = await create();
    const policy = `approvals-${randomUUID()}`;
    const approval = await a.createApproval({ approval: ask(policy) });
    const question = { policy, subjectDigest: approval.subjectDigest, caller: "agent" };
    // Not before a human approved it.
    expect(await a.useApproval(question)).toBeUndefined();
    await a.decideApproval({ id: approval.id, decision: "approve", by: "alice" });
    expect(await a.useApproval({ ...question, caller: "someone-else" })).toBeUndefined();
    expect(await a.useApproval({ ...question, policy: `${policy}-x` })).toBeUndefined();
    expect(await a.useApproval({ ...question, subjectDigest: digest("another question") })).toBeUndefined();
    // Two re-checks at once, through two store instances: exactly one is allowed.
    const used = await Promise.all([a.useApproval(question), b.useApproval(question)]);
    expect(used.filter(Boolean)).toHaveLength(1);
    expect(used.find(Boolean)).toMatchObject({ id: approval.id, status: "approved" });
    expect(used.find(Boolean)?.usedAt).toBeDefined();
    expect(await a.useApproval(question)).toBeUndefined();
  });

  it("approvals: the approvals change mark, where there is one, moves on a decision and a use here or elsewhere, not on a creation or a use that found nothing", async () => {
    const a = await create();
    const b = await create();
    if (!a.changeMark) return; // optional: a backend without a cheap mark has none
    const policy = `approvals-${randomUUID()}`;
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    const approval = await a.createApproval({ approval: ask(policy) });
    const question = { policy, subjectDigest: approval.subjectDigest, caller: "agent" };
    await nextTurn();
    const before = a.changeMark({ area: "approvals" });
    await a.createApproval({ approval: ask(policy, { subjectDigest: digest("another") }) });
    expect(await a.useApproval(question)).toBeUndefined();
    expect(a.changeMark({ area: "approvals" })).toBe(before);
    await a.decideApproval({ id: approval.id, decision: "approve", by: "alice" });
    const decided = a.changeMark({ area: "approvals" });
    expect(decided).not.toBe(before);
    await a.useApproval(question);
    expect(a.changeMark({ area: "approvals" })).not.toBe(decided);
    // Another connection's decision shows from the next turn of the event loop.
    const other = await b.createApproval({ approval: ask(policy, { subjectDigest: digest("elsewhere") }) });
    await nextTurn();
    const seen = a.changeMark({ area: "approvals" });
    await b.decideApproval({ id: other.id, decision: "deny", by: "bob" });
    await nextTurn();
    expect(a.changeMark({ area: "approvals" })).not.toBe(seen);
  });

  it("approvals: a denied approval is never used", async () => {
    const store = await create();
    const policy = `approvals-${randomUUID()}`;
    const approval = await store.createApproval({ approval: ask(policy) });
    await store.decideApproval({ id: approval.id, decision: "deny", by: "alice" });
    expect(await store.useApproval({ policy, subjectDigest: approval.subjectDigest, caller: "agent" })).toBe(
      undefined,
    );
    expect((await store.getApproval({ id: approval.id }))?.status).toBe("denied");
  });

  it("approvals: past its time a pending approval is expired — not listed as pending, not decidable, not usable", async () => {
    const store = await create();
    const policy = `approvals-${randomUUID()}`;
    const approval = await store.createApproval({
      approval: ask(policy, { expiresAt: new Date(Date.now() - 1000).toISOString() }),
    });
    expect(approval.status).toBe("expired");
    expect((await store.listApprovals({ status: "pending" })).some((x) => x.id === approval.id)).toBe(false);
    expect((await store.listApprovals({ status: "expired" })).some((x) => x.id === approval.id)).toBe(true);
    const outcome = await store.decideApproval({ id: approval.id, decision: "approve", by: "alice" });
    expect(outcome).toMatchObject({ decided: false, approval: { status: "expired" } });
    expect(await store.useApproval({ policy, subjectDigest: approval.subjectDigest, caller: "agent" })).toBe(
      undefined,
    );
    expect(
      await store.findPendingApproval({ policy, subjectDigest: approval.subjectDigest, caller: "agent" }),
    ).toBeUndefined();
  });

  it("approvals: bad input is INVALID_INPUT naming the field", async () => {
    const store = await create();
    const policy = `approvals-${randomUUID()}`;
    for (const [over, field] of [
      [{ subjectDigest: "not-a-digest" }, "subjectDigest"],
      [{ expiresAt: "tomorrow" }, "expiresAt"],
      [{ caller: "" }, "caller"],
    ] as const) {
      const error = await store.createApproval({ approval: ask(policy, over) }).catch((e: unknown) => e);
      expect(isWardenError(error) && error.code === "INVALID_INPUT").toBe(true);
      expect((error as Error).message).toContain(field);
    }
    const error = await store
      .decideApproval({ id: "x", decision: "maybe" as "approve", by: "alice" })
      .catch((e: unknown) => e);
    expect(isWardenError(error) && error.code === "INVALID_INPUT").toBe(true);
  });
}
