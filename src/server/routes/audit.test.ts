import { describe, expect, it } from "vitest";
import type { Caller } from "../../core/caller.js";
import type { GuardService } from "../../runtime/guard-service.js";
import { createSqliteStore } from "../../store/sqlite-store.js";
import type { AuditEntry, Store } from "../../store/store.js";
import { createWardenApp } from "../create-warden-app.js";

const service = { defaultEngine: "compiled", listPolicies: () => [] } as unknown as GuardService;
const appFor = (options: { caller: Caller; store?: Store }) =>
  createWardenApp({
    service,
    logger: false,
    authenticator: { authenticate: async () => options.caller },
    ...(options.store ? { audit: { store: options.store } } : {}),
  });

describe("GET /v1/audit", () => {
  it("says the log is off (404, audit-not-enabled) on a service without a store", async () => {
    const res = await appFor({ caller: { name: "r", scopes: ["audit:read"] } }).request("/v1/audit");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { details: { reason: string } } }).error.details.reason).toBe(
      "audit-not-enabled",
    );
  });

  it("shows a key limited to some policies only their rows", async () => {
    const store = await createSqliteStore({ path: ":memory:" });
    for (const policy of ["p", "q", "p"]) {
      await store.appendAuditEntry({
        entry: { kind: "decision", policy, verdict: "deny", allowed: false, face: "http" },
      });
    }
    const limited = appFor({ caller: { name: "r", scopes: ["audit:read"], policies: ["p"] }, store });
    const listed = (await (await limited.request("/v1/audit")).json()) as { entries: AuditEntry[] };
    expect(listed.entries.map((e) => [e.seq, e.policy])).toEqual([
      [3, "p"],
      [1, "p"],
    ]);
    expect((await limited.request("/v1/audit/2")).status).toBe(404);
    const all = appFor({ caller: { name: "admin", scopes: ["audit:read"] }, store });
    const everything = (await (await all.request("/v1/audit")).json()) as { entries: AuditEntry[] };
    expect(everything.entries.map((e) => e.seq)).toEqual([3, 2, 1]);
    await store.close();
  });
});
