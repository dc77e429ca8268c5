/**
 * Starts Warden's HTTP API on a port: assembles the guard from configuration (policies, engine, model,
 * store), listens on 127.0.0.1 unless told otherwise with the connection limits of ./socket-limits.ts,
 * and returns the URL and a `close` that stops listening, ends open connections after a grace period and
 * releases engines, model and store.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { ModelClient } from "../llm/model.js";
import { type ApprovalDecidedEvent, createApprovalDesk } from "../runtime/approvals.js";
import type { GuardService } from "../runtime/guard-service.js";
import { createGuardSessions } from "../runtime/guard-sessions.js";
import { type GuardServiceOptions, openGuardService } from "../runtime/open-guard-service.js";
import type { ApprovalStore, Store } from "../store/store.js";
import {
  type Authenticator,
  type KeyDirectory,
  keyAuthenticator,
  openAuthenticator,
} from "./authenticator.js";
import { createWardenApp } from "./create-warden-app.js";
import { createRateLimiter } from "./rate-limit.js";
import { createServerLogger, type Logger } from "./request-log.js";
import {
  applySocketLimits,
  type SocketLimitsInput,
  serverOptionsFor,
  socketLimitsFrom,
} from "./socket-limits.js";

export interface StartServerOptions extends Omit<GuardServiceOptions, "policies"> {
  /** Port to listen on; 0 picks a free one (default 8787). */
  port?: number;
  /** Interface to bind (default 127.0.0.1: only this machine can connect). */
  host?: string;
  /** Policies to preload (bundled names or paths); empty = every bundled policy. */
  policyRefs?: string[];
  /** A model client made by the caller; takes precedence over `model`. */
  modelClient?: ModelClient;
  /** Directory policy paths are resolved against. */
  cwd?: string;
  logger?: Logger | false;
  maxBodyBytes?: number;
  /** Deepest nesting accepted in a request body (default 64). */
  maxJsonDepth?: number;
  /** Host names answered besides loopback names and the bound address; "*" answers any Host. */
  allowedHosts?: readonly string[];
  /** Origins whose web pages may call the service (CORS); none by default. */
  corsOrigins?: readonly string[];
  /** API keys: once the directory holds one, every route but /healthz needs a key. */
  keys?: KeyDirectory;
  /** Overrides `keys` (tests, embedding). */
  authenticator?: Authenticator;
  /** Serve whole policies (GET /v1/policies/:name) to anonymous callers while there are no keys. */
  exposePolicies?: boolean;
  /** Header, request and idle timeouts and the connection cap. */
  connectionLimits?: SocketLimitsInput;
  /** Requests per second for keys without a rate of their own (and anonymous callers); none = unlimited. */
  rateLimitPerSecond?: number;
  /** Where server-side sessions live (the key store, for `warden serve`); without it /v1/sessions is 501. */
  sessionStore?: Store;
  /** Prometheus metrics at /metrics (prom-client is loaded here, at start); false for none. */
  metrics?: false | { approvalsPending?: () => number | Promise<number> };
  /** How long `close` waits for requests in flight before cutting their connections (default 5000 ms). */
  closeGraceMs?: number;
  /**
   * A store whose audit log records every decision (runtime/audit-log.ts) and that GET /v1/audit reads;
   * the caller keeps and closes it. `auditSubjects` / `auditMode` (guard options) say how.
   */
  auditStore?: Store;
  /**
   * The approval queue (src/runtime/approvals.ts): an ask becomes an approval in this store, served at
   * /v1/approvals. Absent: an ask stays a plain ask.
   */
  approvals?: {
    store: ApprovalStore;
    ttlMs?: number;
    onDecided?: (event: ApprovalDecidedEvent) => Promise<void> | void;
  };
  /** Serve the review page at /ui (default false; `warden serve` turns it on). */
  reviewPage?: boolean;
}

export interface RunningServer {
  /** e.g. "http://127.0.0.1:8787". */
  url: string;
  port: number;
  service: GuardService;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const {
    port = 8787,
    host = "127.0.0.1",
    policyRefs,
    logger,
    maxBodyBytes,
    maxJsonDepth,
    allowedHosts,
    corsOrigins,
    keys,
    authenticator,
    exposePolicies,
    connectionLimits,
    closeGraceMs,
    rateLimitPerSecond,
    sessionStore,
    metrics: metricsOption,
    auditStore,
    approvals,
    reviewPage,
    ...guard
  } = options;
  const log = logger === false ? undefined : (logger ?? createServerLogger());
  const limits = socketLimitsFrom({ ...(connectionLimits ? { limits: connectionLimits } : {}) });
  // Approvals inside the audit log: each row holds the answer the caller got (openGuardService).
  const service = await openGuardService({
    ...guard,
    policies: policyRefs ?? [],
    ...(auditStore ? { auditStore, auditFace: "http" } : {}),
    ...(approvals
      ? {
          approvals: {
            store: approvals.store,
            ...(approvals.ttlMs !== undefined ? { ttlMs: approvals.ttlMs } : {}),
          },
        }
      : {}),
    // A failed memory write never changes a decision, so the operator must hear of it from the log.
    ...(log ? { onWarning: ({ message, error }) => log.warn({ err: error }, message) } : {}),
  });
  const desk = approvals
    ? createApprovalDesk({
        store: approvals.store,
        ...(approvals.onDecided ? { onDecided: approvals.onDecided } : {}),
      })
    : undefined;
  let app: ReturnType<typeof createWardenApp>;
  try {
    // prom-client is imported by createWardenMetrics only: nothing but a server pays for loading it.
    const metrics =
      metricsOption === false
        ? undefined
        : await (await import("./metrics.js")).createWardenMetrics({
            // The pending-approvals gauge reads the queue when it is scraped, unless the caller counts.
            ...(approvals
              ? {
                  approvalsPending: async () =>
                    (await approvals.store.listApprovals({ status: "pending", limit: 1000 })).length,
                }
              : {}),
            ...(metricsOption ?? {}),
          });
    app = createWardenApp({
      ...(metrics ? { metrics } : {}),
      ...(sessionStore ? { sessions: createGuardSessions({ service, store: sessionStore }) } : {}),
      rateLimiter: createRateLimiter({
        ...(rateLimitPerSecond !== undefined ? { defaultPerSecond: rateLimitPerSecond } : {}),
      }),
      service,
      logger: log ?? false,
      boundHost: host,
      authenticator: authenticator ?? authenticatorFor({ keys, exposePolicies }),
      ...(desk ? { approvals: desk } : {}),
      ...(reviewPage ? { reviewPage } : {}),
      ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
      ...(maxJsonDepth !== undefined ? { maxJsonDepth } : {}),
      ...(allowedHosts ? { allowedHosts } : {}),
      ...(corsOrigins ? { corsOrigins } : {}),
      ...(auditStore ? { audit: { store: auditStore } } : {}),
    });
  } catch (error) {
    await service.close();
    throw error;
  }
  let server: ReturnType<typeof serve>;
  let address: AddressInfo;
  try {
    ({ server, address } = await new Promise<{ server: ReturnType<typeof serve>; address: AddressInfo }>(
      (resolve, reject) => {
        const s = serve(
          { fetch: app.fetch, port, hostname: host, serverOptions: serverOptionsFor({ limits }) },
          (info) => resolve({ server: s, address: info }),
        );
        s.once("error", reject);
        applySocketLimits({ server: s as Server, limits });
      },
    ));
  } catch (error) {
    await service.close();
    throw error;
  }
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}`;
  if (!LOOPBACK.has(host) && !keys && !authenticator) {
    log?.warn(
      { host },
      "listening beyond this machine without API keys: anyone who can reach it can ask for checks",
    );
  }
  log?.info(
    { url, policies: service.listPolicies().map((p) => p.name), engine: service.defaultEngine },
    "listening",
  );
  // The request log writes in batches; the line that says where the service is goes out at once.
  log?.flush();

  let closing: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    service,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            if ("closeAllConnections" in server) server.closeAllConnections();
          }, closeGraceMs ?? 5000);
          timer.unref();
          server.close(() => {
            clearTimeout(timer);
            resolve();
          });
          if ("closeIdleConnections" in server) server.closeIdleConnections();
        });
        await service.close();
      })();
      return closing;
    },
  };
}

function authenticatorFor(options: { keys: KeyDirectory | undefined; exposePolicies: boolean | undefined }) {
  const exposePolicies = options.exposePolicies ?? false;
  return options.keys
    ? keyAuthenticator({ directory: options.keys, exposePolicies })
    : openAuthenticator({ exposePolicies });
}
