import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isWardenError } from "../core/errors.js";
import { createKeyDirectory, hashApiKeyToken, issueApiKey } from "./key-directory.js";
import { createSqliteStore } from "./sqlite-store.js";
import type { Store } from "./store.js";

const dir = mkdtempSync(join(tmpdir(), "warden-key-directory-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Another connection's commit counts from the next event-loop turn (the SQLite store's changeMarkFor). */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("key directory", () => {
  it("has no keys on a fresh store, and keeps saying it has keys after the last one is revoked", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const directory = createKeyDirectory({ store });
    expect(await directory.hasKeys()).toBe(false);
    await issueApiKey({ store, name: "ci" });
    expect(await directory.hasKeys()).toBe(true);
    await store.revokeApiKey({ name: "ci" });
    expect(await directory.hasKeys()).toBe(true);
    // A directory opened later on the same data agrees: a revoked key stays on record.
    expect(await createKeyDirectory({ store }).hasKeys()).toBe(true);
    await store.close();
  });

  it("sees keys created and revoked by another store instance from the next turn (no stale cache)", async () => {
    const path = join(dir, "shared.db");
    const admin = await createSqliteStore({ path });
    const server = await createSqliteStore({ path });
    const directory = createKeyDirectory({ store: server });
    expect(await directory.hasKeys()).toBe(false);
    const { token } = await issueApiKey({
      store: admin,
      name: "agent-1",
      scopes: ["check", "facts"],
      policies: ["mcp-tools"],
    });
    await nextTurn();
    expect(await directory.hasKeys()).toBe(true);
    expect(await directory.authenticate({ token })).toMatchObject({
      name: "agent-1",
      scopes: ["check", "facts"],
      policies: ["mcp-tools"],
    });
    await admin.revokeApiKey({ name: "agent-1" });
    await nextTurn();
    expect(await directory.authenticate({ token })).toBeUndefined();
    // The name is free again; the old token stays dead and the new one works.
    const again = await issueApiKey({ store: admin, name: "agent-1" });
    await nextTurn();
    expect(await directory.authenticate({ token })).toBeUndefined();
    expect(await directory.authenticate({ token: again.token })).toMatchObject({
      name: "agent-1",
      scopes: ["check"],
    });
    await Promise.all([admin.close(), server.close()]);
  });

  it("reads the store again only when its change mark moved: a revocation counts from the next turn", async () => {
    const path = join(dir, "marks.db");
    const admin = await createSqliteStore({ path });
    const server = await createSqliteStore({ path });
    let reads = 0;
    const counting: Store = Object.create(server);
    counting.findApiKeyByHash = async (options) => {
      reads += 1;
      return server.findApiKeyByHash(options);
    };
    counting.listApiKeys = async (options) => {
      reads += 1;
      return server.listApiKeys(options);
    };
    const directory = createKeyDirectory({ store: counting });
    expect(await directory.hasKeys()).toBe(false);
    expect(await directory.hasKeys()).toBe(false);
    expect(reads).toBe(1);
    // A key written through the directory's own store (its own connection) moves the mark too.
    const own = await issueApiKey({ store: server, name: "own" });
    expect(await directory.hasKeys()).toBe(true);
    const { token } = await issueApiKey({ store: admin, name: "agent" });
    await nextTurn();
    reads = 0;
    expect(await directory.authenticate({ token })).toMatchObject({ name: "agent", scopes: ["check"] });
    // The first use is recorded (lastUsedAt, which does not move the keys mark): nothing is read again.
    await directory.authenticate({ token });
    expect(await directory.authenticate({ token })).toMatchObject({ name: "agent", scopes: ["check"] });
    expect(reads).toBe(1);
    await admin.revokeApiKey({ name: "agent" });
    await nextTurn();
    expect(await directory.authenticate({ token })).toBeUndefined();
    expect(await directory.authenticate({ token: own.token })).toMatchObject({
      name: "own",
      scopes: ["check"],
    });
    await server.revokeApiKey({ name: "own" });
    expect(await directory.authenticate({ token: own.token })).toBeUndefined();
    await Promise.all([admin.close(), server.close()]);
  });

  it("gives the SQLite store a change mark of keys that moves on a key's creation or revocation, from any connection, and not on the audit log or lastUsedAt", async () => {
    const path = join(dir, "mark-moves.db");
    const a = await createSqliteStore({ path });
    const b = await createSqliteStore({ path });
    const mark = () => a.changeMark?.({ area: "keys" });
    const first = mark();
    expect(first).toEqual(expect.any(String));
    expect(mark()).toBe(first);
    await issueApiKey({ store: b, name: "x" });
    await nextTurn();
    const second = mark();
    expect(second).not.toBe(first);
    const own = await issueApiKey({ store: a, name: "y" });
    const third = mark();
    expect(third).not.toBe(second);
    await a.appendAuditEntry({
      entry: { kind: "decision", policy: "p", verdict: "allow", allowed: true, face: "test" },
    });
    await a.markApiKeyUsed({ id: own.key.id });
    expect(mark()).toBe(third);
    await a.revokeApiKey({ name: "x" });
    expect(mark()).not.toBe(third);
    await Promise.all([a.close(), b.close()]);
    expect(mark()).not.toBe(mark());
  });

  it("issues distinct random tokens, stores only their hash, and defaults to the check scope", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const a = await issueApiKey({ store, name: "a" });
    const b = await issueApiKey({ store, name: "b", scopes: ["policies:read"] });
    expect(a.token).not.toBe(b.token);
    expect(a.key.scopes).toEqual(["check"]);
    expect(b.key.scopes).toEqual(["policies:read"]);
    expect("policies" in a.key).toBe(false);
    const found = await store.findApiKeyByHash({ hash: hashApiKeyToken({ token: a.token }) });
    expect(found?.id).toBe(a.key.id);
    await store.close();
  });

  it("refuses bad names, scopes and policies naming the field, and stores nothing", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const cases: [Parameters<typeof issueApiKey>[0], string][] = [
      [{ store, name: "bad name" }, "name"],
      [{ store, name: "library" }, "name"],
      [{ store, name: "k", scopes: ["admin" as "check"] }, "scopes"],
      [{ store, name: "k", scopes: [] }, "scopes"],
      [{ store, name: "k", policies: [] }, "policies"],
    ];
    for (const [options, field] of cases) {
      const error = await issueApiKey(options).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isWardenError(error) && error.code === "INVALID_INPUT", field).toBe(true);
      expect((error as Error).message).toContain(field);
    }
    expect(await store.listApiKeys({})).toEqual([]);
    await store.close();
  });

  it("records the last use at most about once a minute, and a failed record does not refuse the caller", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const { token, key } = await issueApiKey({ store, name: "k" });
    let marks = 0;
    let failMarks = false;
    const counting: Store = Object.create(store);
    counting.markApiKeyUsed = async (options) => {
      marks += 1;
      if (failMarks) throw new Error("database is locked");
      return store.markApiKeyUsed(options);
    };
    const directory = createKeyDirectory({ store: counting });
    await directory.authenticate({ token });
    await directory.authenticate({ token });
    expect(marks).toBe(1);
    expect((await store.listApiKeys({}))[0]?.lastUsedAt).toEqual(expect.any(String));

    const other = await issueApiKey({ store, name: "other" });
    failMarks = true;
    expect(await directory.authenticate({ token: other.token })).toMatchObject({
      name: "other",
      scopes: ["check"],
    });
    expect(marks).toBe(2);
    expect((await store.listApiKeys({})).find((k) => k.id === key.id)?.lastUsedAt).toBeDefined();
    await store.close();
  });

  it("fails with STORE_ERROR (never an unknown caller or a pass) when the store cannot be read", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const { token } = await issueApiKey({ store, name: "k" });
    const directory = createKeyDirectory({ store });
    await store.close();
    for (const call of [() => directory.authenticate({ token }), () => directory.hasKeys()]) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isWardenError(error) && error.code === "STORE_ERROR").toBe(true);
    }
  });

  it("refuses malformed tokens without reading the store", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    const counting: Store = Object.create(store);
    let reads = 0;
    counting.findApiKeyByHash = async (options) => {
      reads += 1;
      return store.findApiKeyByHash(options);
    };
    const directory = createKeyDirectory({ store: counting });
    for (const token of [
      "",
      "wdn_",
      "wdn_short",
      `wdn_${"A".repeat(44)}`,
      `xyz_${"A".repeat(43)}`,
      "wdn_ÄÄ",
    ]) {
      expect(await directory.authenticate({ token })).toBeUndefined();
    }
    expect(await directory.authenticate({ token: 42 as unknown as string })).toBeUndefined();
    expect(reads).toBe(0);
    expect(await directory.authenticate({ token: `wdn_${"A".repeat(43)}` })).toBeUndefined();
    expect(reads).toBe(1);
    await store.close();
  });
});
