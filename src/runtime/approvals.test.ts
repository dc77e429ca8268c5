/**
 * withApprovals as a library wrapper, over a stand-in guard service and a SQLite store: only a real ask
 * is queued (never a deny, an allow or a fail-closed failure); the approved question is allowed once for
 * the caller that asked; the desk's wait wakes at once on a decision made in this process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Decision, denyDecision, failureDecision } from "../core/decision.js";
import { createSqliteStore } from "../store/sqlite-store.js";
import type { Store } from "../store/store.js";
import { createApprovalDesk, withApprovals } from "./approvals.js";
import type { GuardService } from "./guard-service.js";

const ask = denyDecision({
  engine: "compiled",
  policy: { name: "p", version: "1" },
  verdict: "ask",
  violations: [{ ruleId: "r.ask", message: "a human must confirm" }],
});

function stubService(answer: () => Decision): GuardService {
  return {
    defaultEngine: "compiled",
    listPolicies: () => [],
    getPolicy: () => {
      throw new Error("unused");
    },
    getEngine: () => Promise.reject(new Error("unused")),
    check: async () => answer(),
    checkToolCall: async () => answer(),
    feedback: () => Promise.reject(new Error("unused")),
    stats: () => ({}) as ReturnType<GuardService["stats"]>,
    close: async () => undefined,
  };
}

/** The store with its approval reads counted (and, when asked, without its approvals mark). */
function countingReads(inner: Store, options: { withoutMark?: boolean } = {}) {
  let count = 0;
  const counted: Store = Object.create(inner);
  counted.useApproval = (o) => {
    count++;
    return inner.useApproval(o);
  };
  counted.findPendingApproval = (o) => {
    count++;
    return inner.findPendingApproval(o);
  };
  if (options.withoutMark) counted.changeMark = undefined;
  else if (inner.changeMark) counted.changeMark = (o) => inner.changeMark!(o);
  return { counted, reads: () => count };
}

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const subject = { input: "merge it", output: "merging #12" };

describe("withApprovals", () => {
  it("queues only a real ask; deny and a fail-closed failure pass through unchanged", async () => {
    store = await createSqliteStore({ path: ":memory:" });
    const failure = failureDecision({ engine: "compiled", code: "CHECK_TIMEOUT", message: "too slow" });
    const deny = denyDecision({ engine: "compiled", violations: [{ ruleId: "r.no", message: "no" }] });
    for (const decision of [failure, deny]) {
      const service = withApprovals({ service: stubService(() => decision), store });
      expect(await service.check({ policy: "p", subject })).toEqual(decision);
    }
    expect(await store.listApprovals({})).toEqual([]);
  });

  it("allows the approved question once for its caller; another caller or subject asks again", async () => {
    store = await createSqliteStore({ path: ":memory:" });
    const service = withApprovals({ service: stubService(() => ask), store, ttlMs: 60_000 });
    const desk = createApprovalDesk({ store, pollMs: 10_000 });
    const first = await service.check({ policy: "p", subject });
    const id = first.approval!.id;
    expect(first).toMatchObject({ verdict: "ask", allowed: false, approval: { status: "pending" } });
    const stored = await desk.get({ id });
    expect(stored).toMatchObject({ caller: "library", rules: ["r.ask"], policyVersion: "1" });

    // A wait in this process wakes on the decision, long before its poll interval.
    const started = Date.now();
    const waiting = desk.wait({ id, waitMs: 5000 });
    await desk.decide({
      id,
      decision: "approve",
      by: "alice",
      caller: { name: "cli", scopes: ["approvals:write"] },
    });
    expect((await waiting).status).toBe("approved");
    expect(Date.now() - started).toBeLessThan(2000);

    const otherCaller = await service.check({
      policy: "p",
      subject,
      caller: { name: "k2", scopes: ["check"] },
    });
    expect(otherCaller.verdict).toBe("ask");
    expect(
      (await service.check({ policy: "p", subject: { ...subject, output: "merging #13" } })).verdict,
    ).toBe("ask");
    // The caller's per-check id is not part of the question; key order is not either.
    const again = await service.check({
      policy: "p",
      subject: { output: subject.output, input: subject.input, id: "x" },
    });
    expect(again).toMatchObject({ verdict: "allow", allowed: true, output: "merging #12", approval: { id } });
    expect((await service.check({ policy: "p", subject })).verdict).toBe("ask");
  });

  it("answers a repeated ask from its index without reading the store, and never outlives a decision", async () => {
    store = await createSqliteStore({ path: ":memory:" });
    const { counted, reads } = countingReads(store);
    const service = withApprovals({ service: stubService(() => ask), store: counted, ttlMs: 60_000 });
    const first = await service.check({ policy: "p", subject });
    const readsAfterFirst = reads();
    const second = await service.check({ policy: "p", subject });
    expect(second.approval).toEqual(first.approval);
    expect(reads()).toBe(readsAfterFirst);
    // Another question is not answered from the index.
    await service.check({ policy: "p", subject: { ...subject, output: "merging #13" } });
    expect(reads()).toBeGreaterThan(readsAfterFirst);
    await createApprovalDesk({ store: counted, pollMs: 10_000 }).decide({
      id: first.approval!.id,
      decision: "approve",
      by: "alice",
      caller: { name: "cli", scopes: ["approvals:write"] },
    });
    expect(await service.check({ policy: "p", subject })).toMatchObject({ verdict: "allow" });
    expect((await service.check({ policy: "p", subject })).verdict).toBe("ask");
  });

  it("sees a decision made through another connection (another process) from the next turn", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-approvals-"));
    const path = join(dir, "warden.db");
    store = await createSqliteStore({ path });
    const elsewhere = await createSqliteStore({ path });
    try {
      const service = withApprovals({ service: stubService(() => ask), store, ttlMs: 60_000 });
      const first = await service.check({ policy: "p", subject });
      await service.check({ policy: "p", subject });
      await elsewhere.decideApproval({ id: first.approval!.id, decision: "approve", by: "bob" });
      await new Promise((resolve) => setImmediate(resolve));
      expect(await service.check({ policy: "p", subject })).toMatchObject({
        verdict: "allow",
        approval: { id: first.approval!.id, status: "approved" },
      });
    } finally {
      await elsewhere.close();
      await store.close();
      store = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads the store on every ask where the store has no approvals mark, and past a pending one's time", async () => {
    store = await createSqliteStore({ path: ":memory:" });
    const { counted, reads } = countingReads(store, { withoutMark: true });
    const service = withApprovals({ service: stubService(() => ask), store: counted, ttlMs: 60_000 });
    await service.check({ policy: "p", subject });
    const once = reads();
    await service.check({ policy: "p", subject });
    expect(reads()).toBe(2 * once);

    const brief = withApprovals({ service: stubService(() => ask), store, ttlMs: 30 });
    const first = await brief.check({ policy: "p", subject: { ...subject, output: "brief" } });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const later = await brief.check({ policy: "p", subject: { ...subject, output: "brief" } });
    expect(later.approval?.id).not.toBe(first.approval?.id);
  });

  it("refuses a ttl that is not a positive whole number", async () => {
    store = await createSqliteStore({ path: ":memory:" });
    expect(() => withApprovals({ service: stubService(() => ask), store: store!, ttlMs: 0 })).toThrow(
      /ttlMs/,
    );
  });
});
