/**
 * The approval queue over HTTP (issue 14; src/runtime/approvals.ts holds the semantics):
 *   GET  /v1/approvals[?status=pending|approved|denied|expired&limit=N]  -> { approvals } newest first
 *   GET  /v1/approvals/:id[?wait=ms]   -> the Approval; with `wait`, once it is no longer pending or after
 *                                         at most `wait` ms (bounded by MAX_APPROVAL_WAIT_MS), as it stands
 *   POST /v1/approvals/:id { decision: "approve" | "deny", by? }  -> the decided Approval (409 when it is
 *                                         no longer pending)
 * Who sees what: a caller with `approvals:read` sees every approval of the policies it may use; a caller
 * with only `check` sees the approvals its own checks asked for (so an agent can wait on its own), and
 * another's is answered 404 as if it did not exist. Deciding needs `approvals:write`; `by` (default: the
 * key's name) is recorded with the key's name when they differ.
 */
import type { Context, Hono } from "hono";
import { z } from "zod";
import type { Caller } from "../../core/caller.js";
import { parseWith } from "../../core/validate.js";
import { type ApprovalDesk, approvalNotFound, MAX_APPROVAL_WAIT_MS } from "../../runtime/approvals.js";
import type { Approval } from "../../store/store.js";
import { mayUsePolicy, requirePolicy, requireScope } from "../authenticator.js";

const ListQuerySchema = z.object({
  status: z.enum(["pending", "approved", "denied", "expired"]).default("pending"),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

const WaitQuerySchema = z.object({
  wait: z
    .string()
    .regex(/^\d+$/, "a whole number of milliseconds")
    .transform(Number)
    .pipe(z.number().int().min(0).max(MAX_APPROVAL_WAIT_MS))
    .optional(),
});

export const DecideBodySchema = z
  .object({
    decision: z.enum(["approve", "deny"]),
    /** Who decided (a person's name or address); default the key's name. */
    by: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

/** Whether the caller may see this approval (everything else is answered as not found). */
function maySee(options: { caller: Caller; approval: Approval }): boolean {
  const { caller, approval } = options;
  if (!mayUsePolicy({ caller, policy: approval.policy })) return false;
  if (caller.scopes.includes("approvals:read") || caller.scopes.includes("approvals:write")) return true;
  return caller.scopes.includes("check") && approval.caller === caller.name;
}

// biome-ignore lint/suspicious/noExplicitAny: the app's env type belongs to create-warden-app.ts.
type AnyContext = Context<any>;

export function useApprovalRoutes(options: {
  // biome-ignore lint/suspicious/noExplicitAny: see AnyContext.
  app: Hono<any>;
  desk: ApprovalDesk;
  /** The request body, read with the app's limits (size, depth, content type). */
  readBody: (c: AnyContext) => Promise<unknown>;
}): void {
  const { app, desk } = options;
  const callerOf = (c: AnyContext) => c.get("caller") as Caller;

  /** The approval, or the not-found error when the caller may not see it. */
  const visible = async (options: { caller: Caller; id: string; waitMs?: number; signal?: AbortSignal }) => {
    const { caller, id } = options;
    const approval = await desk.get({ id });
    if (!maySee({ caller, approval })) throw approvalNotFound({ id });
    if (options.waitMs === undefined || options.waitMs === 0) return approval;
    return desk.wait({ id, waitMs: options.waitMs, ...(options.signal ? { signal: options.signal } : {}) });
  };

  app.get("/v1/approvals", async (c) => {
    const caller = callerOf(c);
    requireScope({
      caller,
      scopes: ["approvals:read", "approvals:write", "check"],
      what: "GET /v1/approvals",
    });
    const query = parseWith({ schema: ListQuerySchema, value: c.req.query(), what: "query" });
    const approvals = (await desk.list(query)).filter((approval) => maySee({ caller, approval }));
    return c.json({ approvals });
  });

  app.get("/v1/approvals/:id", async (c) => {
    const caller = callerOf(c);
    requireScope({
      caller,
      scopes: ["approvals:read", "approvals:write", "check"],
      what: "GET /v1/approvals/:id",
    });
    const { wait } = parseWith({ schema: WaitQuerySchema, value: c.req.query(), what: "query" });
    const approval = await visible({
      caller,
      id: c.req.param("id"),
      ...(wait !== undefined ? { waitMs: wait } : {}),
      signal: c.req.raw.signal,
    });
    return c.json(approval);
  });

  app.post("/v1/approvals/:id", async (c) => {
    const caller = callerOf(c);
    requireScope({ caller, scopes: ["approvals:write"], what: "POST /v1/approvals/:id" });
    const body = parseWith({
      schema: DecideBodySchema,
      value: await options.readBody(c),
      what: "request body",
    });
    const id = c.req.param("id");
    const approval = await visible({ caller, id });
    requirePolicy({ caller, policy: approval.policy });
    const by =
      body.by === undefined || body.by === caller.name ? caller.name : `${body.by} (key ${caller.name})`;
    return c.json(await desk.decide({ id, decision: body.decision, by, caller }));
  });
}
