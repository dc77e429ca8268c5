/**
 * `warden serve`: Warden's HTTP API (see src/server) on 127.0.0.1:8787 until SIGINT/SIGTERM. The browser
 * defences (Host allow-list, closed CORS, JSON-only POSTs) and connection limits are on by default; the
 * options here only widen them, each by a name the operator writes down. Every decision is recorded in the
 * store's audit log (`warden audit`) unless --no-audit.
 */
import type { Command } from "commander";
import { z } from "zod";
import { parseWith } from "../../core/validate.js";
import { auditApprovalDecisions } from "../../runtime/approvals.js";
import { openStore } from "../../runtime/default-store.js";
import { createServerLogger } from "../../server/request-log.js";
import { startServer } from "../../server/start-server.js";
import { createKeyDirectory } from "../../store/key-directory.js";
import { RateTextSchema } from "../../store/store-input.js";
import {
  addCheckTimeoutOption,
  addGuardOptions,
  checkTimeoutFrom,
  guardOptionsFrom,
  untilStopped,
} from "../guard-options.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];
// Digits only: Number("") is 0 and Number("1e3") is 1000; a limit is written as a whole number.
const WholeNumber = z.string().regex(/^\d+$/, "a whole number").transform(Number);

const ServeOptionsSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8787),
  host: z.string().min(1).default("127.0.0.1"),
  maxBodyBytes: z.coerce.number().int().positive().optional(),
  maxJsonDepth: WholeNumber.pipe(z.number().int().min(2).max(1000)).optional(),
  maxConnections: WholeNumber.pipe(z.number().int().positive()).optional(),
  allowedHost: z.array(z.string().min(1)).optional(),
  corsOrigin: z.array(z.string().min(1)).optional(),
  exposePolicies: z.boolean().default(false),
  rateLimit: RateTextSchema.optional(),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export function registerServeCommand(options: { program: Command }): void {
  const command = options.program
    .command("serve")
    .description(
      "Serve guard checks over HTTP (POST /v1/check, /v1/sessions, GET /v1/policies, /v1/stats, /metrics, /openapi.json, /healthz)",
    );
  addCheckTimeoutOption({ command: addGuardOptions({ command }) })
    .option("--port <port>", "port to listen on (0 = any free port)", "8787")
    .option(
      "--host <host>",
      "interface to bind; anything but 127.0.0.1 exposes Warden to the network",
      "127.0.0.1",
    )
    .option("--max-body-bytes <n>", "largest request body accepted (default 1 MiB)")
    .option("--max-json-depth <n>", "deepest nesting accepted in a request body (default 64)")
    .option("--max-connections <n>", "open connections at most; more are closed on arrival (default 256)")
    .option(
      "--allowed-host <name>",
      "a Host name to answer besides localhost, 127.0.0.1, [::1] and the bound address (a DNS name behind a proxy); repeatable; * answers any",
      collect,
    )
    .option(
      "--cors-origin <origin>",
      "let web pages of this origin (e.g. https://console.example.com) call the service; repeatable (default: none)",
      collect,
    )
    .option(
      "--expose-policies",
      "serve whole policies (GET /v1/policies/:name) to callers without an API key",
    )
    .option(
      "--rate-limit <n/s>",
      "requests per second per key (and for anonymous callers together) unless the key has its own --rate; default: none",
    )
    .option("--log-level <level>", "fatal | error | warn | info | debug | trace | silent", "info")
    .action(async (raw: Record<string, unknown>) => {
      const o = parseWith({
        schema: ServeOptionsSchema,
        value: {
          port: raw.port,
          host: raw.host,
          maxBodyBytes: raw.maxBodyBytes,
          maxJsonDepth: raw.maxJsonDepth,
          maxConnections: raw.maxConnections,
          allowedHost: raw.allowedHost,
          corsOrigin: raw.corsOrigin,
          exposePolicies: raw.exposePolicies ?? false,
          rateLimit: raw.rateLimit,
          logLevel: raw.logLevel,
        },
        what: "serve options",
      });
      const checkTimeout = checkTimeoutFrom({ raw });
      const logger = createServerLogger({ level: o.logLevel });
      const { policies, ...guard } = guardOptionsFrom({ raw });
      // The key store is always opened, even with no key in it yet: a key created while the service runs
      // must close it on the next request, not after a restart (see `warden keys`). Server-side sessions
      // live there too, so instances sharing it (a postgres:// --store) answer the same for one session.
      // A row per decision: the log's checkpoints run on a thread of their own, off the event loop.
      const keyStore = await openStore({
        ...(guard.store ? { path: guard.store } : {}),
        backgroundCheckpoints: true,
      });
      const server = await startServer({
        keys: createKeyDirectory({ store: keyStore }),
        sessionStore: keyStore,
        ...(o.rateLimit !== undefined ? { rateLimitPerSecond: o.rateLimit } : {}),
        // The audit log is on unless --no-audit, in the store of the keys, which `warden audit` reads.
        ...(raw.audit === false ? {} : { auditStore: keyStore }),
        // The review page at /ui; an ask becomes an approval in the same store (`warden approvals`).
        reviewPage: true,
        approvals: {
          store: keyStore,
          // Who approved or denied what lands in the audit log beside the decisions.
          ...(raw.audit === false
            ? {}
            : { onDecided: auditApprovalDecisions({ store: keyStore, face: "http" }) }),
        },
        ...guard,
        ...checkTimeout,
        policyRefs: policies ?? [],
        port: o.port,
        host: o.host,
        logger,
        ...(o.maxBodyBytes !== undefined ? { maxBodyBytes: o.maxBodyBytes } : {}),
        ...(o.maxJsonDepth !== undefined ? { maxJsonDepth: o.maxJsonDepth } : {}),
        ...(o.maxConnections !== undefined ? { connectionLimits: { maxConnections: o.maxConnections } } : {}),
        ...(o.allowedHost ? { allowedHosts: o.allowedHost } : {}),
        ...(o.corsOrigin ? { corsOrigins: o.corsOrigin } : {}),
        exposePolicies: o.exposePolicies,
      }).catch(async (error: unknown) => {
        await keyStore.close();
        throw error;
      });
      process.stderr.write(`warden: serving ${server.url} (Ctrl-C to stop)\n`);
      const reason = await untilStopped();
      logger.info({ reason }, "stopping");
      await server.close();
      await keyStore.close();
    });
}
