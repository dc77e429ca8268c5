/**
 * Conformance cases of server-side guard sessions (migration 6) and key rate limits, run by
 * store-conformance.ts against every backend: sessions read back as written, steps append only at the
 * session's step count (so writers that decided against the same steps serialise), across store instances.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import type { Store } from "./store.js";

export function describeSessionConformance(options: { create: () => Promise<Store> }): void {
  const { create } = options;
  const unique = (prefix: string) => `${prefix}-${randomUUID()}`;

  it("sessions: opens, reads, appends steps in order and finishes", async () => {
    const store = await create();
    const other = await create();
    const policy = unique("policy");
    const opened = await store.createSession({
      session: { owner: "key-1", policy, input: "book a flight", context: { user: { id: 7 } } },
    });
    expect(opened).toMatchObject({ owner: "key-1", policy, input: "book a flight", stepCount: 0 });
    expect(opened.context).toEqual({ user: { id: 7 } });
    expect(opened.finishedAt).toBeUndefined();
    expect(await other.getSession({ id: opened.id })).toEqual(opened);
    expect(await store.getSession({ id: unique("none") })).toBeUndefined();

    const step = { action: "search", args: { q: "naïve \u0000 \ud800" } };
    const first = await store.appendSessionStep({ id: opened.id, index: 0, step, verdict: "allow" });
    expect(first).toMatchObject({ appended: true, session: { stepCount: 1 } });
    // Another instance decided against the same (empty) trajectory: it must hear "stale".
    expect(
      await other.appendSessionStep({ id: opened.id, index: 0, step: { action: "x" }, verdict: "deny" }),
    ).toEqual({ appended: false, reason: "stale" });
    expect(
      await other.appendSessionStep({ id: opened.id, index: 1, step: { action: "pay" }, verdict: "deny" }),
    ).toMatchObject({ appended: true });
    const steps = await store.listSessionSteps({ id: opened.id });
    expect(steps.map((s) => [s.index, s.step, s.verdict])).toEqual([
      [0, step, "allow"],
      [1, { action: "pay" }, "deny"],
    ]);
    expect((await store.getSession({ id: opened.id }))?.stepCount).toBe(2);

    const finished = await other.finishSession({ id: opened.id });
    expect(finished?.finishedAt).toBeDefined();
    expect((await store.finishSession({ id: opened.id }))?.finishedAt).toBe(finished?.finishedAt);
    expect(
      await store.appendSessionStep({ id: opened.id, index: 2, step: { action: "late" }, verdict: "allow" }),
    ).toEqual({ appended: false, reason: "finished" });
    expect(
      await store.appendSessionStep({
        id: unique("none"),
        index: 0,
        step: { action: "a" },
        verdict: "allow",
      }),
    ).toEqual({ appended: false, reason: "missing" });
    expect(await store.finishSession({ id: unique("none") })).toBeUndefined();
    expect(await store.listSessionSteps({ id: unique("none") })).toEqual([]);
  });

  it("sessions: concurrent appends at one index from several instances store exactly one", async () => {
    // Opened one after another (opening migrates, and SQLite opens one writer at a time).
    const stores = [await create(), await create(), await create()];
    const opened = await stores[0]!.createSession({
      session: { owner: "o", policy: unique("p"), input: "" },
    });
    for (let index = 0; index < 3; index++) {
      const results = await Promise.all(
        stores.map((store, i) =>
          store.appendSessionStep({ id: opened.id, index, step: { action: `s${i}` }, verdict: "allow" }),
        ),
      );
      expect(results.filter((r) => r.appended)).toHaveLength(1);
      expect(results.filter((r) => !r.appended && r.reason === "stale")).toHaveLength(2);
    }
    expect((await stores[1]!.listSessionSteps({ id: opened.id })).map((s) => s.index)).toEqual([0, 1, 2]);
  });

  it("sessions: refuses bad input naming the field", async () => {
    const store = await create();
    const refused = async (promise: Promise<unknown>, field: string) => {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isWardenError(error) && error.code === "INVALID_INPUT" && error.message.includes(field)).toBe(
        true,
      );
    };
    await refused(store.createSession({ session: { owner: "", policy: "p", input: "" } }), "session.owner");
    await refused(
      store.createSession({ session: { owner: "o", policy: "p", input: "a\u0000" } }),
      "session.input",
    );
    await refused(
      store.appendSessionStep({ id: "x", index: -1, step: { action: "a" }, verdict: "allow" }),
      "step.index",
    );
  });

  it("api keys: a key's rate limit reads back; absent means the server's default", async () => {
    const store = await create();
    const hash = () => randomUUID().replaceAll("-", "").padEnd(64, "0");
    const limited = await store.createApiKey({
      key: { name: unique("rl"), scopes: ["check"], ratePerSecond: 2.5, hash: hash() },
    });
    const plain = await store.createApiKey({ key: { name: unique("rl"), scopes: ["check"], hash: hash() } });
    expect(limited.ratePerSecond).toBe(2.5);
    expect(plain.ratePerSecond).toBeUndefined();
    const listed = await store.listApiKeys({});
    expect(listed.find((k) => k.id === limited.id)?.ratePerSecond).toBe(2.5);
    expect(listed.find((k) => k.id === plain.id)).not.toHaveProperty("ratePerSecond");
  });
}
