/** `warden serve`: Warden's HTTP API (see src/server) on 127.0.0.1:8787 until SIGINT/SIGTERM. */
import type { Command } from "commander";
import { z } from "zod";
import { parseWith } from "../../core/validate.js";
import { createServerLogger } from "../../server/request-log.js";
import { startServer } from "../../server/start-server.js";
import {
  addCheckTimeoutOption,
  addGuardOptions,
  checkTimeoutFrom,
  guardOptionsFrom,
  untilStopped,
} from "../guard-options.js";

const ServeOptionsSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8787),
  host: z.string().min(1).default("127.0.0.1"),
  maxBodyBytes: z.coerce.number().int().positive().optional(),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export function registerServeCommand(options: { program: Command }): void {
  const command = options.program
    .command("serve")
    .description("Serve guard checks over HTTP (POST /v1/check, GET /v1/policies, /v1/stats, /healthz)");
  addCheckTimeoutOption({ command: addGuardOptions({ command }) })
    .option("--port <port>", "port to listen on (0 = any free port)", "8787")
    .option(
      "--host <host>",
      "interface to bind; anything but 127.0.0.1 exposes Warden to the network",
      "127.0.0.1",
    )
    .option("--max-body-bytes <n>", "largest request body accepted (default 1 MiB)")
    .option("--log-level <level>", "fatal | error | warn | info | debug | trace | silent", "info")
    .action(async (raw: Record<string, unknown>) => {
      const o = parseWith({
        schema: ServeOptionsSchema,
        value: { port: raw.port, host: raw.host, maxBodyBytes: raw.maxBodyBytes, logLevel: raw.logLevel },
        what: "serve options",
      });
      const checkTimeout = checkTimeoutFrom({ raw });
      const logger = createServerLogger({ level: o.logLevel });
      const { policies, ...guard } = guardOptionsFrom({ raw });
      const server = await startServer({
        ...guard,
        ...checkTimeout,
        policyRefs: policies ?? [],
        port: o.port,
        host: o.host,
        logger,
        ...(o.maxBodyBytes !== undefined ? { maxBodyBytes: o.maxBodyBytes } : {}),
      });
      process.stderr.write(`warden: serving ${server.url} (Ctrl-C to stop)\n`);
      const reason = await untilStopped();
      logger.info({ reason }, "stopping");
      await server.close();
    });
}
