/**
 * warden/server: Warden as an HTTP service.
 *
 * - `startServer({ port, host, policyRefs, engine, model, store, ... })` assembles the guard from
 *   configuration and listens (127.0.0.1 by default); returns `{ url, close }`.
 * - `createWardenApp({ service })` is the Hono app alone, to mount in an existing server or test with
 *   `app.request()`; build its `service` with `openGuardService` (from configuration) or
 *   `createGuardService` (from policies and engines you already have).
 * - `httpErrorFor` / `HTTP_STATUS_BY_CODE`: how error codes become statuses.
 * - `openAuthenticator` / `keyAuthenticator`: who the caller is (anonymous without keys, or an API key).
 * - `withApprovals` / `createApprovalDesk`: an `ask` becomes an approval in a store (the library
 *   wrapper; startServer's `approvals` option composes both).
 */
export {
  type ApprovalDecidedEvent,
  type ApprovalDesk,
  approvalAuditEvent,
  createApprovalDesk,
  DEFAULT_APPROVAL_TTL_MS,
  MAX_APPROVAL_WAIT_MS,
  withApprovals,
} from "../runtime/approvals.js";
export { createEnginePool, type EnginePool, type EngineProvider } from "../runtime/engine-pool.js";
export { createGuardService, type GuardService, type PolicySummary } from "../runtime/guard-service.js";
export { createGuardSessions, type GuardSessions } from "../runtime/guard-sessions.js";
export { type GuardServiceOptions, openGuardService } from "../runtime/open-guard-service.js";
export {
  type Authenticator,
  type KeyDirectory,
  keyAuthenticator,
  openAuthenticator,
} from "./authenticator.js";
export { type CheckRequest, type CheckRequestInput, CheckRequestSchema } from "./check-request.js";
export { createWardenApp, DEFAULT_MAX_BODY_BYTES, type WardenAppOptions } from "./create-warden-app.js";
export { type ErrorBody, HTTP_STATUS_BY_CODE, httpErrorFor } from "./http-status.js";
export { DEFAULT_MAX_JSON_DEPTH } from "./json-depth.js";
export { createWardenMetrics, type WardenMetrics, withMetrics } from "./metrics.js";
export { createRateLimiter, type RateLimiter } from "./rate-limit.js";
export { createServerLogger } from "./request-log.js";
export type { SocketLimitsInput } from "./socket-limits.js";
export { type RunningServer, type StartServerOptions, startServer } from "./start-server.js";
