/**
 * The conformance suite every Store backend must pass, as vitest tests: call describeStoreConformance from
 * a backend's test file. Each test works under its own random policy names, so backends whose instances
 * share one database (PostgreSQL) can run it without tests seeing each other's rows.
 */
import { createHash, randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { isWardenError, type WardenError } from "../core/errors.js";
import { describeApprovalConformance } from "./approval-conformance.js";
import { describeAuditConformance } from "./audit-conformance.js";
import { createKeyDirectory, issueApiKey } from "./key-directory.js";
import { describeSessionConformance } from "./session-conformance.js";
import type { NewApiKey, NewDemonstration, Store } from "./store.js";

export interface StoreConformanceOptions {
  name: string;
  /** A fresh, open store; every instance a test creates must see the same data. */
  create: () => Promise<Store>;
  /** Runs once after the suite (drop the schema, delete the file...). */
  cleanup?: () => Promise<void>;
  /** Runs one SQL statement on the database `create` opens (the audit log's tamper cases). */
  execute?: (options: { sql: string }) => Promise<void>;
}

export function describeStoreConformance(options: StoreConformanceOptions): void {
  const open: Store[] = [];
  const create = async (): Promise<Store> => {
    const store = await options.create();
    open.push(store);
    return store;
  };
  const unique = (prefix: string) => `${prefix}-${randomUUID()}`;
  const demo = (policy: string, over: Partial<NewDemonstration> = {}): NewDemonstration => ({
    policy,
    input: "Identity: nursing\nQuestion: what was the dose of aspirin?",
    output: "Knowledge:\n- aspirin is a drug\nGenerated code:\nanswer = 1\nAnswer:\n81 mg",
    plan: "1. access control\n2. nursing\n3. medication\n4. check",
    code: "return checkAccess({ allowed, needed });",
    origin: "seed",
    ...over,
  });
  const rejects = async (promise: Promise<unknown>, field: string): Promise<WardenError> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isWardenError(error), `expected a WardenError naming ${field}`).toBe(true);
    const e = error as WardenError;
    expect(e.code).toBe("INVALID_INPUT");
    expect(e.message).toContain(field);
    return e;
  };

  describe(`Store conformance: ${options.name}`, () => {
    afterAll(async () => {
      for (const store of open) await store.close();
      await options.cleanup?.();
    });

    it("adds, lists, counts and deletes demonstrations per policy, in insertion order", async () => {
      const store = await create();
      const a = unique("policy-a");
      const b = unique("policy-b");
      const totalBefore = await store.countDemonstrations({});
      const first = await store.addDemonstration({ demonstration: demo(a, { input: "first" }) });
      const other = await store.addDemonstration({ demonstration: demo(b, { input: "other" }) });
      const second = await store.addDemonstration({
        demonstration: demo(a, { input: "second", origin: "user" }),
      });
      const third = await store.addDemonstration({
        demonstration: demo(a, { input: "third", origin: "learned" }),
      });

      const listed = await store.listDemonstrations({ policy: a });
      expect(listed.map((d) => d.input)).toEqual(["first", "second", "third"]);
      expect(listed).toEqual([first, second, third]);
      expect(await store.listDemonstrations({ policy: b })).toEqual([other]);
      expect(await store.listDemonstrations({ policy: unique("none") })).toEqual([]);
      expect(await store.countDemonstrations({ policy: a })).toBe(3);
      expect(await store.countDemonstrations({ policy: b })).toBe(1);
      expect(await store.countDemonstrations({})).toBe(totalBefore + 4);

      expect(await store.deleteDemonstration({ id: second.id })).toBe(true);
      expect(await store.deleteDemonstration({ id: second.id })).toBe(false);
      expect(await store.deleteDemonstration({ id: unique("missing") })).toBe(false);
      expect((await store.listDemonstrations({ policy: a })).map((d) => d.id)).toEqual([first.id, third.id]);
      expect(await store.countDemonstrations({ policy: a })).toBe(2);
    });

    it("assigns unique ids and a strictly increasing seq, and keeps given ids", async () => {
      const store = await create();
      const policy = unique("seq");
      const added = [];
      for (let i = 0; i < 12; i++) {
        added.push(await store.addDemonstration({ demonstration: demo(policy, { input: `case ${i}` }) }));
      }
      const ids = new Set(added.map((d) => d.id));
      expect(ids.size).toBe(12);
      for (let i = 1; i < added.length; i++) {
        expect(added[i]?.seq).toBeGreaterThan(added[i - 1]?.seq as number);
      }
      for (const d of added) {
        expect(Number.isSafeInteger(d.seq)).toBe(true);
        expect(Number.isNaN(Date.parse(d.createdAt))).toBe(false);
      }
      const given = unique("my-id");
      const withId = await store.addDemonstration({ demonstration: demo(policy, { id: given }) });
      expect(withId.id).toBe(given);
      expect(withId.seq).toBeGreaterThan(added[11]?.seq as number);
      await rejects(
        store.addDemonstration({ demonstration: demo(policy, { id: given }) }),
        "demonstration.id",
      );
    });

    it("keeps seq increasing across store instances on the same database", async () => {
      const one = await create();
      const two = await create();
      const policy = unique("instances");
      const seqs: number[] = [];
      for (let i = 0; i < 6; i++) {
        const store = i % 2 === 0 ? one : two;
        seqs.push((await store.addDemonstration({ demonstration: demo(policy, { input: `n${i}` }) })).seq);
      }
      expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
      expect((await one.listDemonstrations({ policy })).map((d) => d.input)).toEqual([
        "n0",
        "n1",
        "n2",
        "n3",
        "n4",
        "n5",
      ]);
      expect(await two.listDemonstrations({ policy })).toEqual(await one.listDemonstrations({ policy }));
    });

    it("adds a demonstration once by content, per policy, and returns the earliest stored copy", async () => {
      const store = await create();
      const a = unique("once-a");
      const b = unique("once-b");
      const first = await store.addDemonstrationOnce({ demonstration: demo(a) });
      expect(first.added).toBe(true);
      expect(await store.listDemonstrations({ policy: a })).toEqual([first.demonstration]);
      // Id, label, origin and meta are not content: the stored demonstration comes back unchanged.
      const same = await store.addDemonstrationOnce({
        demonstration: demo(a, { id: unique("other-id"), label: 1, origin: "learned", meta: { k: 1 } }),
      });
      expect(same).toEqual({ demonstration: first.demonstration, added: false });
      // Another policy, or any other content field, is another demonstration.
      const otherPolicy = await store.addDemonstrationOnce({ demonstration: demo(b) });
      expect(otherPolicy.added).toBe(true);
      expect(otherPolicy.demonstration.id).not.toBe(first.demonstration.id);
      for (const field of ["input", "output", "plan", "code"] as const) {
        const changed = await store.addDemonstrationOnce({
          demonstration: demo(a, { [field]: `${demo(a)[field]} (changed)` }),
        });
        expect(changed.added, field).toBe(true);
      }
      const givenId = unique("given");
      const withId = await store.addDemonstrationOnce({
        demonstration: demo(a, { id: givenId, input: "with an id", label: 0, meta: { n: [1] } }),
      });
      expect(withId.added).toBe(true);
      expect(withId.demonstration.id).toBe(givenId);
      expect(withId.demonstration.seq).toBeGreaterThan(first.demonstration.seq);
      expect(await store.countDemonstrations({ policy: a })).toBe(6);
      expect((await store.listDemonstrations({ policy: a })).at(-1)).toEqual(withId.demonstration);

      // Plain addDemonstration still accepts duplicate content; addDemonstrationOnce then finds the earliest.
      const plain = await store.addDemonstration({ demonstration: demo(a) });
      expect(plain.id).not.toBe(first.demonstration.id);
      expect(await store.countDemonstrations({ policy: a })).toBe(7);
      expect((await store.addDemonstrationOnce({ demonstration: demo(a) })).demonstration).toEqual(
        first.demonstration,
      );
      // A new content under an id that exists is refused as addDemonstration refuses it, and not stored.
      await rejects(
        store.addDemonstrationOnce({ demonstration: demo(a, { id: givenId, input: "fresh content" }) }),
        "demonstration.id",
      );
      expect(await store.countDemonstrations({ policy: a })).toBe(7);
      // The store keeps working after the refused transaction.
      expect((await store.addDemonstrationOnce({ demonstration: demo(a, { input: "after" }) })).added).toBe(
        true,
      );
    });

    it("stores given content once when two instances on the same database add it at once", async () => {
      const one = await create();
      const two = await create();
      const policy = unique("once-race");
      const contents = ["alpha", "beta", "gamma", "delta"];
      const calls = contents.flatMap((input, c) =>
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 === 0 ? one : two).addDemonstrationOnce({
            demonstration: demo(policy, { input, meta: { call: i, content: c } }),
          }),
        ),
      );
      const results = await Promise.all(calls);
      const listed = await one.listDemonstrations({ policy });
      expect(listed.map((d) => d.input).sort()).toEqual([...contents].sort());
      expect(await two.listDemonstrations({ policy })).toEqual(listed);
      for (const input of contents) {
        const mine = results.filter((r) => r.demonstration.input === input);
        expect(mine).toHaveLength(6);
        expect(mine.filter((r) => r.added)).toHaveLength(1);
        const stored = listed.find((d) => d.input === input);
        for (const r of mine) expect(r.demonstration).toEqual(stored);
      }
    });

    it("round-trips text, label and meta exactly (unicode, long texts)", async () => {
      const store = await create();
      const policy = unique("unicode ✓ политика");
      const long = "Ωmega 🧪 — 中文 — e\u0301 — \t\r\n".repeat(3000).slice(0, 100_000);
      const meta = {
        verdict: "deny",
        nested: { list: [1, 2.5, -3e-7, null, true, "ß"], empty: {}, emoji: "👩‍⚕️" },
        zeroKey: 0,
      };
      const stored = await store.addDemonstration({
        demonstration: demo(policy, {
          input: `Identity: physician\nQuestion: ${long}`,
          output: long + long.slice(0, 500),
          plan: "1. 🩺\n2. 病人\n3. 'quotes' \"double\" \\backslash\n4. done",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the stored code text contains a template literal.
          code: "const s = `template ${x}`; // ünïcödé",
          label: 1,
          meta,
        }),
      });
      const plain = await store.addDemonstration({ demonstration: demo(policy, { label: 0 }) });
      const bare = await store.addDemonstration({ demonstration: demo(policy) });
      const [readStored, readPlain, readBare] = await store.listDemonstrations({ policy });
      expect(readStored).toEqual(stored);
      expect(readStored?.input.length).toBe(stored.input.length);
      expect(readStored?.output).toBe(long + long.slice(0, 500));
      expect(readStored?.meta).toEqual(meta);
      expect(Object.keys(readStored?.meta ?? {})).toEqual(Object.keys(meta));
      expect(readStored?.label).toBe(1);
      expect(readPlain?.label).toBe(0);
      expect(readPlain).toEqual(plain);
      expect(readBare).toEqual(bare);
      expect(readBare && "label" in readBare).toBe(false);
      expect(readBare && "meta" in readBare).toBe(false);
    });

    it("adds and lists workflows by policy and by action", async () => {
      const store = await create();
      const policy = unique("shield");
      const plan = { operations: [{ op: "search", predicates: ["is_private"] }], note: "ok ✓" };
      const w1 = await store.addWorkflow({
        workflow: { policy, action: "delete_data", query: "delete the user table", plan, verdict: "deny" },
      });
      const w2 = await store.addWorkflow({
        workflow: {
          policy,
          action: "send_email",
          query: "email the report",
          plan: ["a", 1],
          verdict: "allow",
        },
      });
      const w3 = await store.addWorkflow({
        workflow: { policy, action: "delete_data", query: "delete a temp file", plan: null, verdict: "ask" },
      });
      await store.addWorkflow({
        workflow: { policy: unique("other"), action: "delete_data", query: "x", plan: {}, verdict: "allow" },
      });
      expect(new Set([w1.id, w2.id, w3.id]).size).toBe(3);
      expect(w2.seq).toBeGreaterThan(w1.seq);
      expect(w3.seq).toBeGreaterThan(w2.seq);
      expect(await store.listWorkflows({ policy })).toEqual([w1, w2, w3]);
      expect(await store.listWorkflows({ policy, action: "delete_data" })).toEqual([w1, w3]);
      expect(await store.listWorkflows({ policy, action: "none" })).toEqual([]);
      expect((await store.listWorkflows({ policy }))[0]?.plan).toEqual(plan);
      const given = unique("wf");
      await store.addWorkflow({
        workflow: { id: given, policy, action: "a", query: "q", plan: 1, verdict: "allow" },
      });
      await rejects(
        store.addWorkflow({
          workflow: { id: given, policy, action: "a", query: "q", plan: 1, verdict: "allow" },
        }),
        "workflow.id",
      );
    });

    it("rejects bad input with a WardenError naming the field", async () => {
      const store = await create();
      const policy = unique("bad");
      // addDemonstrationOnce validates exactly as addDemonstration does.
      for (const add of [
        (demonstration: NewDemonstration) => store.addDemonstration({ demonstration }),
        (demonstration: NewDemonstration) => store.addDemonstrationOnce({ demonstration }),
      ]) {
        const bad = (over: Record<string, unknown>) => add({ ...demo(policy), ...over } as NewDemonstration);
        await rejects(bad({ policy: "" }), "demonstration.policy");
        await rejects(bad({ input: 42 }), "demonstration.input");
        await rejects(bad({ output: undefined }), "demonstration.output");
        await rejects(bad({ label: 2 }), "demonstration.label");
        await rejects(bad({ origin: "imported" }), "demonstration.origin");
        await rejects(bad({ code: "nul \u0000 inside" }), "demonstration.code");
        await rejects(bad({ plan: "lone \uD800 surrogate" }), "demonstration.plan");
        await rejects(bad({ meta: { f: () => 1 } }), "demonstration.meta");
        await rejects(bad({ id: "" }), "demonstration.id");
      }
      await rejects(
        store.addDemonstrationOnce({} as unknown as { demonstration: NewDemonstration }),
        "demonstration",
      );
      await rejects(store.listDemonstrations({ policy: 7 as unknown as string }), "policy");
      await rejects(store.deleteDemonstration({ id: "" }), "id");
      await rejects(
        store.addWorkflow({
          workflow: { policy, action: "a", query: "q", plan: {}, verdict: "maybe" as "allow" },
        }),
        "workflow.verdict",
      );
      await rejects(
        store.addWorkflow({ workflow: { policy, action: "", query: "q", plan: {}, verdict: "allow" } }),
        "workflow.action",
      );
      await rejects(store.listWorkflows({ policy, action: "" }), "action");
      expect(await store.countDemonstrations({ policy })).toBe(0);
    });

    const keyHash = () => createHash("sha256").update(randomUUID()).digest("hex");
    const newKey = (name: string, over: Partial<NewApiKey> = {}): NewApiKey => ({
      name,
      scopes: ["check"],
      hash: keyHash(),
      ...over,
    });

    it("creates, lists and revokes API keys, never listing hashes", async () => {
      const one = await create();
      const two = await create();
      const a = unique("key-a");
      const b = unique("key-b");
      const hashA = keyHash();
      const created = await one.createApiKey({ key: newKey(a, { hash: hashA, scopes: ["check", "facts"] }) });
      expect(created).toMatchObject({ name: a, scopes: ["check", "facts"] });
      expect(created.id).toEqual(expect.any(String));
      expect(Number.isNaN(Date.parse(created.createdAt))).toBe(false);
      expect("policies" in created || "revokedAt" in created || "lastUsedAt" in created).toBe(false);
      const limited = await two.createApiKey({
        key: newKey(b, {
          scopes: ["policies:read", "memory:write", "policies:read"],
          policies: ["p1", "p2"],
        }),
      });
      expect(limited.scopes).toEqual(["policies:read", "memory:write"]);
      expect(limited.policies).toEqual(["p1", "p2"]);

      const mine = (keys: { name: string }[]) => keys.filter((k) => k.name === a || k.name === b);
      expect(mine(await two.listApiKeys({}))).toEqual([created, limited]);
      const text = JSON.stringify(await one.listApiKeys({}));
      expect(text).not.toContain(hashA);
      expect(text).not.toContain("hash");

      const found = await two.findApiKeyByHash({ hash: hashA });
      expect(found).toEqual({ ...created, hash: hashA });
      expect(await one.findApiKeyByHash({ hash: keyHash() })).toBeUndefined();

      const revoked = await two.revokeApiKey({ name: a });
      expect(revoked).toMatchObject({ id: created.id, name: a });
      expect(Number.isNaN(Date.parse(revoked?.revokedAt ?? ""))).toBe(false);
      expect(await one.revokeApiKey({ name: a })).toBeUndefined();
      expect(await one.revokeApiKey({ name: unique("missing") })).toBeUndefined();
      expect(await one.findApiKeyByHash({ hash: hashA })).toBeUndefined();
      // Revoked keys stay on record; activeOnly leaves them out.
      expect(mine(await one.listApiKeys({}))).toEqual([revoked, limited]);
      expect(mine(await one.listApiKeys({ activeOnly: true }))).toEqual([limited]);
    });

    it("keeps API key names unique among active keys and hashes unique, refusing with INVALID_INPUT", async () => {
      const store = await create();
      const other = await create();
      const name = unique("dup");
      const first = await store.createApiKey({ key: newKey(name) });
      await rejects(other.createApiKey({ key: newKey(name) }), "key.name");
      const hash = keyHash();
      await store.createApiKey({ key: newKey(unique("h1"), { hash }) });
      await rejects(store.createApiKey({ key: newKey(unique("h2"), { hash }) }), "key.hash");
      // A revoked key's name may be reused; the new key is another key.
      await store.revokeApiKey({ name });
      const second = await other.createApiKey({ key: newKey(name, { scopes: ["facts"] }) });
      expect(second.id).not.toBe(first.id);
      const listed = (await store.listApiKeys({})).filter((k) => k.name === name);
      expect(listed.map((k) => [k.id, k.revokedAt === undefined])).toEqual([
        [first.id, false],
        [second.id, true],
      ]);
      await rejects(store.createApiKey({ key: newKey(name) }), "key.name");
    });

    it("refuses bad API key input naming the field", async () => {
      const store = await create();
      const bad = (over: Record<string, unknown>) =>
        store.createApiKey({ key: { ...newKey(unique("bad")), ...over } as NewApiKey });
      await rejects(bad({ name: "" }), "key.name");
      await rejects(bad({ name: "has space" }), "key.name");
      await rejects(bad({ name: "anonymous" }), "key.name");
      await rejects(bad({ name: "x".repeat(65) }), "key.name");
      await rejects(bad({ scopes: [] }), "key.scopes");
      const unknown = await rejects(bad({ scopes: ["check", "admin"] }), "key.scopes");
      expect(unknown.message).toContain('"admin"');
      await rejects(bad({ policies: [] }), "key.policies");
      await rejects(bad({ policies: [""] }), "key.policies");
      await rejects(bad({ hash: "secret" }), "key.hash");
      await rejects(bad({ hash: "A".repeat(64) }), "key.hash");
      await rejects(store.revokeApiKey({ name: "" }), "name");
      await rejects(store.findApiKeyByHash({ hash: "nope" }), "hash");
    });

    it("authenticates issued keys through the key directory until they are revoked", async () => {
      const store = await create();
      const server = await create();
      const directory = createKeyDirectory({ store: server });
      const name = unique("svc");
      const { key, token } = await issueApiKey({ store, name, policies: ["eicu-ac"] });
      expect(token).toMatch(/^wdn_[A-Za-z0-9_-]{43}$/);
      expect(key).toMatchObject({ name, scopes: ["check"], policies: ["eicu-ac"] });
      expect(JSON.stringify(await store.listApiKeys({}))).not.toContain(token.slice(4));
      expect(await directory.hasKeys()).toBe(true);
      expect(await directory.authenticate({ token })).toEqual({
        name,
        scopes: ["check"],
        policies: ["eicu-ac"],
        keyId: key.id,
      });
      const used = (await store.listApiKeys({})).find((k) => k.id === key.id);
      expect(Number.isNaN(Date.parse(used?.lastUsedAt ?? ""))).toBe(false);
      // A wrong key of the right shape, and malformed ones, are unknown callers.
      const wrong = `wdn_${token.slice(4, -1)}${token.endsWith("A") ? "B" : "A"}`;
      for (const t of [wrong, token.slice(4), `${token}x`, token.toUpperCase(), "", `Bearer ${token}`]) {
        expect(await directory.authenticate({ token: t }), t).toBeUndefined();
      }
      await store.revokeApiKey({ name });
      // Another connection's commit counts from the next event-loop turn (key-directory.ts).
      await new Promise((resolve) => setImmediate(resolve));
      expect(await directory.authenticate({ token })).toBeUndefined();
      expect(await directory.hasKeys()).toBe(true);
    });

    // Server-side guard sessions and key rate limits (issue 14, migration 6).
    describeSessionConformance({ create });
    describeAuditConformance({ create, ...(options.execute ? { execute: options.execute } : {}) });
    // Approvals (issue 14, h2).
    describeApprovalConformance({ create });

    it("closes idempotently and refuses work after close", async () => {
      const store = await options.create();
      await store.addDemonstration({ demonstration: demo(unique("close")) });
      await store.close();
      await store.close();
      const error = await store.countDemonstrations({}).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isWardenError(error) && error.code === "STORE_ERROR").toBe(true);
    });
  });
}
