/**
 * withApprovals as a library wrapper, over a stand-in guard service and a SQLite store: only a real ask
 * is queued (never a deny, an allow or a fail-closed failure); the approved question is allowed once for
 * the caller that asked; the desk's wait wakes at once on a decision made in this process.
 */
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

  it("refuses a ttl that is not a positive whole number", async () => {
    store = await createSqliteStore({ path: ":memory:" });
    expect(() => withApprovals({ service: stubService(() => ask), store: store!, ttlMs: 0 })).toThrow(
      /ttlMs/,
    );
  });
});
