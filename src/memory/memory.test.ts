import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { generateSyntheticDemonstrations } from "../../test/support/synthetic-demonstrations.js";
import { isWardenError } from "../core/errors.js";
import { createPostgresStore } from "../store/postgres-store.js";
import { createSqliteStore } from "../store/sqlite-store.js";
import type { Store } from "../store/store.js";
import type { DemonstrationInput } from "./demonstration-input.js";
import { createMemory, type Memory } from "./memory.js";
import { topK } from "./retrieval.js";

const dir = mkdtempSync(join(tmpdir(), "warden-memory-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const demos: DemonstrationInput[] = generateSyntheticDemonstrations({ count: 30, seed: 3 }).map(
  ({ input, output, plan, code, label }) => ({ input, output, plan, code, label }),
);

/** A store that counts reads, to show the memory loads lazily and once. */
function counting(store: Store): Store & { reads: number } {
  const wrapped = Object.create(store) as Store & { reads: number };
  wrapped.reads = 0;
  wrapped.listDemonstrations = async (options) => {
    wrapped.reads++;
    return store.listDemonstrations(options);
  };
  return wrapped;
}

describe("createMemory", () => {
  it("loads lazily, seeds idempotently by content, and survives a restart without duplicates", async () => {
    const path = join(dir, "seed.db");
    const store = counting(await createSqliteStore({ path }));
    const memory = createMemory({ store, policy: "eicu", learn: "off" });
    expect(store.reads).toBe(0);
    const first = await memory.seed({ demonstrations: demos, origin: "seed" });
    expect(first.added).toHaveLength(30);
    expect(first.skipped).toBe(0);
    expect(store.reads).toBe(1);
    expect(first.added.every((d) => d.origin === "seed" && d.policy === "eicu")).toBe(true);
    const again = await memory.seed({ demonstrations: [...demos, demos[0] as DemonstrationInput] });
    expect(again).toEqual({ added: [], skipped: 31 });
    // Only content counts: another id or label on the same content is still the same demonstration.
    expect(
      (
        await memory.seed({
          demonstrations: [{ ...(demos[1] as DemonstrationInput), id: "new-id", label: 1 }],
        })
      ).skipped,
    ).toBe(1);
    expect(await memory.count()).toBe(30);
    await store.close();

    const reopened = await createSqliteStore({ path });
    const next = createMemory({ store: reopened, policy: "eicu" });
    expect((await next.seed({ demonstrations: demos, origin: "user" })).added).toHaveLength(0);
    expect(await reopened.countDemonstrations({ policy: "eicu" })).toBe(30);
    await reopened.close();
  });

  it("retrieves exactly what the exhaustive scan returns, with distances, most and least similar", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const memory = createMemory({ store, policy: "p" });
    await memory.seed({ demonstrations: demos });
    const all = await memory.list();
    const query = demos[4] as DemonstrationInput;
    for (const order of ["most", "least"] as const) {
      const got = await memory.retrieve({ input: query.input, output: query.output, k: 3, order });
      const expected = topK({ items: all, input: query.input, output: query.output, k: 3, order });
      expect(got.map((h) => [h.demonstration.id, h.distance])).toEqual(
        expected.map((h) => [h.item.id, h.distance]),
      );
    }
    const nearest = await memory.retrieve({ input: query.input, output: query.output, k: 1 });
    expect(nearest[0]?.distance).toBe(0);
    expect(nearest[0]?.demonstration.input).toBe(query.input);
    expect(await memory.retrieve({ input: "x", output: "y", k: 0 })).toEqual([]);
    const bad = await memory.retrieve({ input: "x", output: "y", k: -1 }).catch((e: unknown) => e);
    expect(isWardenError(bad) && bad.message.includes("k")).toBe(true);
    await store.close();
  });

  it("learns according to its mode and states it in one line", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const [a, b, c] = demos as [DemonstrationInput, DemonstrationInput, DemonstrationInput];
    const off = createMemory({ store, policy: "off", learn: "off" });
    expect(await off.remember({ demonstration: a, correct: true })).toBe(false);
    expect(off.describeLearning()).toMatch(/no case is appended/);

    const successful = createMemory({ store, policy: "successful", learn: "successful" });
    expect(await successful.remember({ demonstration: a })).toBe(true);
    expect(await successful.remember({ demonstration: b, correct: false })).toBe(true);
    expect(await successful.remember({ demonstration: a })).toBe(false); // already remembered
    expect((await successful.list()).map((d) => d.origin)).toEqual(["learned", "learned"]);
    expect(successful.describeLearning()).toMatch(/code ran/);

    const correctOnly = createMemory({ store, policy: "correct", learn: "correct-only" });
    expect(await correctOnly.remember({ demonstration: a })).toBe(false);
    expect(await correctOnly.remember({ demonstration: b, correct: false })).toBe(false);
    expect(await correctOnly.remember({ demonstration: c, correct: true })).toBe(true);
    expect(await correctOnly.count()).toBe(1);
    expect(correctOnly.describeLearning()).toBe(
      "memory appends only cases judged correct against the label (paper's benchmark setting)",
    );
    // What was learned is retrievable at once.
    expect((await correctOnly.retrieve({ input: c.input, output: c.output, k: 1 }))[0]?.distance).toBe(0);

    const wrongPolicy = await successful
      .remember({ demonstration: { ...c, policy: "other" } })
      .catch((e: unknown) => e);
    expect(isWardenError(wrongPolicy) && wrongPolicy.message.includes("demonstration.policy")).toBe(true);
    const badField = await successful
      .remember({ demonstration: { ...c, plan: 1 as unknown as string } })
      .catch((e: unknown) => e);
    expect(isWardenError(badField) && badField.message.includes("demonstration.plan")).toBe(true);
    await store.close();
  });

  it("does not store the same content twice under concurrent seeding", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const memory = createMemory({ store, policy: "race", learn: "successful" });
    const results = await Promise.all([
      memory.seed({ demonstrations: demos.slice(0, 10) }),
      memory.seed({ demonstrations: demos.slice(5, 15) }),
      memory.remember({ demonstration: demos[12] as DemonstrationInput }),
    ]);
    expect(results[0].added.length + results[1].added.length + (results[2] ? 1 : 0)).toBe(15);
    expect(await store.countDemonstrations({ policy: "race" })).toBe(15);
    await store.close();
  });

  // Two Warden instances on one database: each has its own store (connection) and memory.
  const sharedBackends: {
    name: string;
    open: () => Promise<{ stores: [Store, Store]; done: () => Promise<void> }>;
  }[] = [
    {
      name: "one SQLite file",
      open: async () => {
        const path = join(dir, `instances-${randomBytes(4).toString("hex")}.db`);
        const first = await createSqliteStore({ path });
        const second = await createSqliteStore({ path });
        return {
          stores: [first, second],
          done: async () => void (await Promise.all([first.close(), second.close()])),
        };
      },
    },
  ];
  const pgUrl = process.env.WARDEN_TEST_PG_URL;
  if (pgUrl) {
    sharedBackends.push({
      name: "one PostgreSQL schema",
      open: async () => {
        const schema = `warden_memtest_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
        const first = await createPostgresStore({ url: pgUrl, schema });
        const second = await createPostgresStore({ url: pgUrl, schema });
        return {
          stores: [first, second],
          done: async () => {
            await Promise.all([first.close(), second.close()]);
            const client = new pg.Client({ connectionString: pgUrl });
            await client.connect();
            await client.query(`drop schema if exists "${schema}" cascade`);
            await client.end();
          },
        };
      },
    });
  }

  for (const backend of sharedBackends) {
    it(`stores each demonstration once when two instances seed at once (${backend.name})`, async () => {
      const { stores, done } = await backend.open();
      try {
        const [a, b] = stores.map((store) => createMemory({ store, policy: "shared-seed" })) as [
          Memory,
          Memory,
        ];
        const late = createMemory({ store: stores[1], policy: "shared-seed" });
        expect(await late.count()).toBe(0);
        // Overlapping seeds, each side also repeating the other's slice in another order.
        const [ra, rb] = await Promise.all([
          a.seed({ demonstrations: [...demos.slice(0, 20), ...demos.slice(10, 30).reverse()] }),
          b.seed({ demonstrations: [...demos.slice(10, 30), ...demos.slice(0, 20).reverse()] }),
        ]);
        const stored = await stores[0].listDemonstrations({ policy: "shared-seed" });
        expect(stored).toHaveLength(30);
        expect(new Set(stored.map((d) => d.input)).size).toBe(30);
        expect(ra.added.length + rb.added.length).toBe(30);
        expect(ra.added.length + ra.skipped).toBe(40);
        expect(rb.added.length + rb.skipped).toBe(40);
        // Content the other instance stored first was taken into each memory, in store order.
        expect(await a.list()).toEqual(stored);
        expect(await b.list()).toEqual(stored);
        const query = demos[25] as DemonstrationInput;
        for (const memory of [a, b]) {
          const [hit] = await memory.retrieve({ input: query.input, output: query.output, k: 1 });
          expect(hit?.distance).toBe(0);
        }
        // An instance that loaded before the seeds learns known content: the store finds it, nothing is added,
        // and the stored record joins that instance's memory.
        expect(await late.remember({ demonstration: demos[3] as DemonstrationInput })).toBe(false);
        expect(await late.list()).toEqual(stored.filter((d) => d.input === demos[3]?.input));
        expect(await stores[1].countDemonstrations({ policy: "shared-seed" })).toBe(30);
      } finally {
        await done();
      }
    });
  }

  it("sees other instances' additions after refresh()", async () => {
    const path = join(dir, "shared.db");
    const storeA = await createSqliteStore({ path });
    const storeB = await createSqliteStore({ path });
    const a = createMemory({ store: storeA, policy: "shared" });
    const b = createMemory({ store: storeB, policy: "shared" });
    await a.seed({ demonstrations: demos.slice(0, 2) });
    expect(await b.count()).toBe(2);
    await a.seed({ demonstrations: demos.slice(2, 3) });
    expect(await b.count()).toBe(2);
    await b.refresh();
    expect(await b.count()).toBe(3);
    await Promise.all([storeA.close(), storeB.close()]);
  });

  it("rejects bad options naming the field", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    expect(() => createMemory({ store, policy: "" })).toThrow(/policy/);
    expect(() => createMemory({ store, policy: "p", learn: "always" as "off" })).toThrow(/learn/);
    const memory = createMemory({ store, policy: "p" });
    const e = await memory
      .seed({ demonstrations: [{ input: "i" } as DemonstrationInput] })
      .catch((x: unknown) => x);
    expect(isWardenError(e) && e.message.includes("demonstrations.0.output")).toBe(true);
    await store.close();
  });
});
