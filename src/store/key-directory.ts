/**
 * API keys: making them and telling callers apart by them. A key is `wdn_` + base64url of 32 random bytes;
 * its plaintext is returned once by issueApiKey and never stored. The store keeps the SHA-256 of the
 * whole token: with 256 bits of randomness a fast hash cannot be brute-forced, so no slow password hash
 * or salt is needed. The lookup is by the hash (an index); the hash the store returns is then compared
 * with the computed one in constant time, so a store that matched loosely (a collation, a prefix) still
 * cannot let a different key in.
 *
 * Once `hasKeys` has seen a key it stays true for the life of the directory: rows are never deleted
 * (revoking only marks them), so that fact cannot become stale. `hasKeys` counts revoked keys too:
 * revoking the last key must not quietly turn a keyed service back into an open one. Any other answer
 * (no keys yet; the caller behind a token) is reused only while the store's change mark of keys
 * (Store.changeMark) stays what it was when the answer was read. A key created or revoked by this
 * process, or any commit by another (`warden keys`), moves the mark, so it counts on the next request a
 * running server reads; the audit log's rows and lastUsedAt do not move it. (The SQLite store reads
 * another process's commits once per event-loop turn: requests already being read in that turn are
 * answered as before it.) A store without a mark is read every time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Caller, CallerScope } from "../core/caller.js";
import type { ApiKey, Store } from "./store.js";
import {
  ApiKeyNameSchema,
  ApiKeyPoliciesSchema,
  ApiKeyRateSchema,
  ApiKeyScopesSchema,
  parseApiKeyArgument,
} from "./store-input.js";

export const API_KEY_PREFIX = "wdn_";
const SECRET_BYTES = 32;
/** The only shape a token can have: anything else is refused before hashing or reading the store. */
const TOKEN_PATTERN = /^wdn_[A-Za-z0-9_-]{43}$/;
/** lastUsedAt is rewritten at most this often per key, so authentication is a read on nearly every request. */
const LAST_USED_EVERY_MS = 60_000;

export interface KeyDirectory {
  /** The caller a token belongs to; undefined for a malformed, unknown or revoked token. */
  authenticate(options: { token: string }): Promise<Caller | undefined>;
  /** Whether any key was ever created in the store (revoked ones count: see the header). */
  hasKeys(): Promise<boolean>;
}

/** SHA-256 (hex) of a token, as the store keeps it. */
export function hashApiKeyToken(options: { token: string }): string {
  return createHash("sha256").update(options.token, "utf8").digest("hex");
}

/**
 * Makes a key, stores its hash and returns the plaintext token, which exists nowhere else afterwards.
 * Default scopes: `check` only; policies absent = every policy. Bad input is an INVALID_INPUT naming it.
 */
export async function issueApiKey(options: {
  store: Store;
  name: string;
  scopes?: readonly CallerScope[];
  policies?: readonly string[];
  /** Requests per second the HTTP service grants this key (default: the server's). */
  ratePerSecond?: number;
}): Promise<{ key: ApiKey; token: string }> {
  const name = parseApiKeyArgument({ schema: ApiKeyNameSchema, value: options.name, field: "name" });
  const scopes = parseApiKeyArgument({
    schema: ApiKeyScopesSchema,
    value: options.scopes ?? ["check"],
    field: "scopes",
  });
  const policies =
    options.policies === undefined
      ? undefined
      : parseApiKeyArgument({ schema: ApiKeyPoliciesSchema, value: options.policies, field: "policies" });
  const ratePerSecond =
    options.ratePerSecond === undefined
      ? undefined
      : parseApiKeyArgument({
          schema: ApiKeyRateSchema,
          value: options.ratePerSecond,
          field: "ratePerSecond",
        });
  const token = `${API_KEY_PREFIX}${randomBytes(SECRET_BYTES).toString("base64url")}`;
  const key = await options.store.createApiKey({
    key: {
      name,
      scopes,
      ...(policies ? { policies } : {}),
      ...(ratePerSecond !== undefined ? { ratePerSecond } : {}),
      hash: hashApiKeyToken({ token }),
    },
  });
  return { key, token };
}

/** Callers remembered per directory; beyond this many tokens the memory starts again. */
const MAX_REMEMBERED_CALLERS = 1024;

export function createKeyDirectory(options: { store: Store }): KeyDirectory {
  const { store } = options;
  let seenKeys = false;
  /** The change mark under which "no keys" was read. */
  let noKeysAt: string | undefined;
  /** Active keys by token hash, each with the change mark under which it was read. */
  const remembered = new Map<string, { at: string; key: ApiKey & { hash: string } }>();
  const mark = store.changeMark ? () => store.changeMark?.({ area: "keys" }) : () => undefined;

  /** The active key with that hash: what was read under the current mark, else the store's answer. */
  const activeKey = async (hash: string) => {
    // Read before the store is: a write that lands in between moves the mark, so nothing stale is kept.
    const at = mark();
    const known = remembered.get(hash);
    if (at !== undefined && known?.at === at) return known.key;
    const found = await store.findApiKeyByHash({ hash });
    if (!found || found.revokedAt !== undefined) {
      remembered.delete(hash);
      return undefined;
    }
    if (at !== undefined) {
      if (remembered.size >= MAX_REMEMBERED_CALLERS) remembered.clear();
      remembered.set(hash, { at, key: found });
    }
    return found;
  };

  return {
    async authenticate({ token }) {
      if (typeof token !== "string" || !TOKEN_PATTERN.test(token)) return undefined;
      const hash = hashApiKeyToken({ token });
      const found = await activeKey(hash);
      if (!found) return undefined;
      if (!timingSafeEqual(Buffer.from(found.hash, "utf8"), Buffer.from(hash, "utf8"))) return undefined;
      seenKeys = true;
      await recordUse({ store, key: found });
      const caller: Caller = { name: found.name, scopes: [...found.scopes], keyId: found.id };
      if (found.policies !== undefined) caller.policies = [...found.policies];
      if (found.ratePerSecond !== undefined) caller.ratePerSecond = found.ratePerSecond;
      return caller;
    },
    async hasKeys() {
      if (seenKeys) return true;
      const at = mark();
      if (at !== undefined && at === noKeysAt) return false;
      seenKeys = (await store.listApiKeys({})).length > 0;
      noKeysAt = seenKeys ? undefined : at;
      return seenKeys;
    },
  };
}

/**
 * Updates lastUsedAt when it is older than LAST_USED_EVERY_MS. Only bookkeeping: a failed write (a busy
 * database) must not turn an authenticated request into an error, so it is dropped, and the next request
 * past the interval tries again.
 */
async function recordUse(options: { store: Store; key: ApiKey }): Promise<void> {
  const { key } = options;
  const previous = key.lastUsedAt;
  const last = previous === undefined ? Number.NaN : Date.parse(previous);
  if (!Number.isNaN(last) && Date.now() - last < LAST_USED_EVERY_MS) return;
  // The remembered key carries the time too (the write does not move the keys mark, so the key is not
  // read again): set first, so requests arriving during the write do not write as well.
  key.lastUsedAt = new Date().toISOString();
  await options.store.markApiKeyUsed({ id: key.id }).catch(() => {
    if (previous === undefined) delete key.lastUsedAt;
    else key.lastUsedAt = previous;
  });
}
