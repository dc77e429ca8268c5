/**
 * The audit log over HTTP, for reviewers (the review page reads it): rows newest first and one row by id
 * or seq, to keys with the scope audit:read only — rows hold callers' names and, when configured, what
 * they asked. A key limited to some policies sees only those policies' rows (approval and checkpoint rows
 * of other policies included), so a page of the listing may hold fewer than `limit` rows.
 *
 *   GET /v1/audit?limit=N&before=<seq>  -> { entries: AuditEntry[] }  (limit 1..1000, default 50)
 *   GET /v1/audit/:id                   -> AuditEntry  (:id is the row's id or its seq)
 */
import type { Hono } from "hono";
import { z } from "zod";
import type { Caller } from "../../core/caller.js";
import { WardenError } from "../../core/errors.js";
import { parseWith } from "../../core/validate.js";
import { MAX_AUDIT_LIST_LIMIT } from "../../store/audit-queries.js";
import type { AuditEntry, Store } from "../../store/store.js";
import { mayUsePolicy, requireScope } from "../authenticator.js";

const Whole = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, "a whole number from 1")
  .transform(Number);
const ListQuerySchema = z.object({
  limit: Whole.pipe(z.number().max(MAX_AUDIT_LIST_LIMIT)).optional(),
  before: Whole.optional(),
});

/** Any app whose defences put the authenticated caller in the context (create-warden-app.ts). */
type CallerEnv = { Variables: { caller: Caller } };

export function useAuditRoutes<E extends CallerEnv>(options: { app: Hono<E>; store?: Store }): void {
  const { app, store } = options;
  const logOf = (what: string): Store => {
    if (store) return store;
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `${what}: this service keeps no audit log (start warden serve with a store and without --no-audit)`,
      details: { reason: "audit-not-enabled" },
    });
  };

  app.get("/v1/audit", async (c) => {
    const caller = c.get("caller") as Caller;
    requireScope({ caller, scopes: ["audit:read"], what: "GET /v1/audit" });
    const log = logOf("GET /v1/audit");
    const query = parseWith({
      schema: ListQuerySchema,
      value: { limit: c.req.query("limit"), before: c.req.query("before") },
      what: "query",
    });
    const entries = await log.listAuditEntries({
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
      ...(query.before !== undefined ? { before: query.before } : {}),
    });
    return c.json({ entries: entries.filter((entry) => visible({ entry, caller })) });
  });

  app.get("/v1/audit/:id", async (c) => {
    const caller = c.get("caller") as Caller;
    requireScope({ caller, scopes: ["audit:read"], what: "GET /v1/audit/:id" });
    const id = c.req.param("id");
    const entry = await logOf("GET /v1/audit/:id").getAuditEntry({ id });
    // A row of a policy the key may not use is answered as absent: its existence is not the key's business.
    if (!entry || !visible({ entry, caller })) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `no audit entry with id or seq "${id}"`,
        details: { reason: "entry-not-found", fields: ["id"] },
      });
    }
    return c.json(entry);
  });
}

function visible(options: { entry: AuditEntry; caller: Caller }): boolean {
  const { entry, caller } = options;
  if (caller.policies === undefined) return true;
  return entry.kind !== "checkpoint" && mayUsePolicy({ caller, policy: entry.policy });
}
