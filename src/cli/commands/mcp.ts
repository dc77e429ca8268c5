/**
 * `warden mcp serve`: Warden's MCP server (tools warden_check, warden_policies) on stdio.
 * `warden mcp proxy --policy <p> -- <command> [args...]`: the guard proxy on stdio (or Streamable HTTP with
 * `--http <port>`) in front of an upstream MCP server started as a child process; calls the policy does
 * not allow never reach it.
 * stdout carries the protocol, so everything else (logs, errors) goes to stderr.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Command } from "commander";
import { z } from "zod";
import { WardenError } from "../../core/errors.js";
import { parseWith } from "../../core/validate.js";
import { createGuardedMcpProxy } from "../../mcp/guarded-mcp-proxy.js";
import { rawStdio } from "../../mcp/raw-stdio.js";
import { serveGuardedMcpProxyHttp } from "../../mcp/serve-http.js";
import { createWardenMcpServer } from "../../mcp/warden-mcp-server.js";
import { openGuardService } from "../../runtime/open-guard-service.js";
import { createServerLogger } from "../../server/request-log.js";
import {
  addCheckTimeoutOption,
  addGuardOptions,
  checkTimeoutFrom,
  guardOptionsFrom,
  untilStopped,
} from "../guard-options.js";
import { tuneForLongRunning } from "../long-running.js";
import { readJsonInput } from "../read-input.js";

const LogLevelSchema = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info");

const ProxyOptionsSchema = z.object({
  task: z.string().optional(),
  context: z.string().optional(),
  toolPrefix: z.string().optional(),
  guardContent: z.boolean().default(true),
  realPaths: z.boolean().default(false),
  elicitation: z.boolean().default(true),
  elicitationTimeout: z
    .string()
    .regex(/^\d+$/, "a whole number of milliseconds")
    .transform(Number)
    .pipe(z.number().int().positive().max(2_147_483_647))
    .optional(),
  http: z
    .string()
    .regex(/^\d+$/, "a port number")
    .transform(Number)
    .pipe(z.number().int().max(65_535))
    .optional(),
  host: z.string().min(1).optional(),
  warmUp: z
    .string()
    .regex(/^\d+$/, "a whole number of checks")
    .transform(Number)
    .pipe(z.number().int().max(100_000))
    .default(2000),
  logLevel: LogLevelSchema,
});

async function readContext(value: string | undefined): Promise<Record<string, unknown> | undefined> {
  if (value === undefined) return undefined;
  if (value.trim() === "-") {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: "--context cannot be read from stdin: stdin carries the MCP protocol; give JSON or a file",
      details: { fields: ["--context"] },
    });
  }
  return parseWith({
    schema: z.record(z.string(), z.unknown()),
    value: await readJsonInput({ value, option: "--context" }),
    what: "--context (a JSON object)",
    path: "context",
  });
}

export function registerMcpCommand(options: { program: Command }): void {
  const mcp = options.program.command("mcp").description("Warden over the Model Context Protocol (stdio)");

  const serve = mcp
    .command("serve")
    .description("Serve warden_check and warden_policies as an MCP server on stdio");
  addCheckTimeoutOption({ command: addGuardOptions({ command: serve }) })
    .option(
      "--log-level <level>",
      "fatal | error | warn | info | debug | trace | silent (logs go to stderr)",
      "info",
    )
    .action(async (raw: Record<string, unknown>) => {
      const logLevel = parseWith({ schema: LogLevelSchema, value: raw.logLevel, what: "--log-level" });
      const checkTimeout = checkTimeoutFrom({ raw });
      const logger = createServerLogger({ level: logLevel, name: "warden-mcp" });
      const service = await openGuardService({
        ...guardOptionsFrom({ raw }),
        ...checkTimeout,
        auditFace: "mcp-server",
      });
      const server = createWardenMcpServer({ service, logger });
      const closed = new Promise<void>((resolve) => {
        server.onclose = resolve;
      });
      try {
        await server.connect(new StdioServerTransport());
        logger.info(
          { policies: service.listPolicies().map((p) => p.name), engine: service.defaultEngine },
          "serving on stdio",
        );
        const reason = await untilStopped({ stdin: true, also: closed });
        logger.info({ reason }, "stopping");
      } finally {
        await server.close().catch(() => undefined);
        await service.close();
      }
    });

  const proxy = mcp
    .command("proxy")
    .description(
      "Guard an MCP server: forward only the tool calls, resource reads and prompt fetches the policy allows (stdio in front of <command>)",
    )
    .argument("<command>", "the upstream MCP server's command (after --)")
    .argument("[args...]", "its arguments")
    .usage("--policy <name|file> [options] -- <command> [args...]");
  addCheckTimeoutOption({ command: addGuardOptions({ command: proxy, policy: "one" }) })
    .option("--task <text>", "the agent's task, checked as the agent input of every call")
    .option("--context <json|file>", 'facts added to every check, e.g. \'{"identity":"engineer"}\'')
    .option(
      "--tool-prefix <prefix>",
      'prefix tool names before checking, e.g. "filesystem." for a server whose tool is "delete_file"',
    )
    .option(
      "--no-guard-content",
      "forward resources/read and prompts/get without checking them (they are checked by default)",
    )
    .option(
      "--real-paths",
      "check and forward the real path of each path argument (symbolic links resolved here): for a filesystem server on this machine",
    )
    .option(
      "--no-elicitation",
      "refuse every ask instead of asking the user through MCP elicitation (asked by default when the client supports it)",
    )
    .option("--elicitation-timeout <ms>", "how long an ask waits for the user's answer (default 120000)")
    .option(
      "--http <port>",
      "serve Streamable HTTP at http://<host>:<port>/mcp instead of stdio (one session)",
    )
    .option("--host <host>", "the address --http binds (default 127.0.0.1)")
    .option(
      "--warm-up <checks>",
      "checks run on made-up calls of the upstream's tools once they are listed, so the first real calls are checked by optimised code (default 2000; 0 for none)",
    )
    .option(
      "--log-level <level>",
      "fatal | error | warn | info | debug | trace | silent (logs go to stderr)",
      "info",
    )
    .action(async (command: string, args: string[], raw: Record<string, unknown>) => {
      // Before anything the per-call path runs is set up: the budget applies to code run after it.
      tuneForLongRunning();
      const o = parseWith({
        schema: ProxyOptionsSchema,
        value: {
          task: raw.task,
          context: raw.context,
          toolPrefix: raw.toolPrefix,
          guardContent: raw.guardContent,
          realPaths: raw.realPaths,
          elicitation: raw.elicitation,
          elicitationTimeout: raw.elicitationTimeout,
          http: raw.http,
          host: raw.host,
          warmUp: raw.warmUp,
          logLevel: raw.logLevel,
        },
        what: "mcp proxy options",
      });
      // --policy names one policy (commander requires it, as its help says); a directory must hold one.
      const guard = { ...guardOptionsFrom({ raw }), policies: [String(raw.policy)] };
      const checkTimeout = checkTimeoutFrom({ raw });
      const context = await readContext(o.context);
      const logger = createServerLogger({ level: o.logLevel, name: "warden-proxy" });
      const service = await openGuardService({ ...guard, auditFace: "mcp-proxy" });
      try {
        const policies = service.listPolicies();
        if (policies.length !== 1) {
          throw new WardenError({
            code: "INVALID_INPUT",
            message: `warden mcp proxy checks every call against one policy; --policy ${String(raw.policy)} holds ${policies.length}`,
            details: { fields: ["--policy"] },
          });
        }
        const [summary] = policies;
        const policy = service.getPolicy({ name: summary!.name });
        const engine = await service.getEngine({});
        const guarded = await createGuardedMcpProxy({
          upstream: { command, args },
          policy,
          engine,
          ...(o.task !== undefined ? { task: o.task } : {}),
          ...(context ? { context } : {}),
          ...(o.toolPrefix !== undefined ? { toolPrefix: o.toolPrefix } : {}),
          guardContent: o.guardContent,
          realPaths: o.realPaths,
          warmUpChecks: o.warmUp,
          elicitation: o.elicitation,
          ...(o.elicitationTimeout !== undefined ? { elicitationTimeoutMs: o.elicitationTimeout } : {}),
          ...checkTimeout,
          logger,
        });
        try {
          const where = { policy: policy.name, engine: engine.name, upstream: command };
          if (o.http !== undefined) {
            const http = await serveGuardedMcpProxyHttp({
              proxy: guarded,
              port: o.http,
              ...(o.host ? { host: o.host } : {}),
            });
            logger.info({ ...where, url: http.url.href }, "guarding on Streamable HTTP");
          } else {
            // Read without the SDK's per-message schema: the proxy reads every message itself.
            await guarded.connect({ transport: rawStdio(new StdioServerTransport()).transport });
            logger.info(where, "guarding on stdio");
          }
          const reason = await untilStopped({ stdin: o.http === undefined, also: guarded.closed });
          logger.info({ reason, ...guarded.stats() }, "stopping");
        } finally {
          await guarded.close();
        }
      } finally {
        await service.close();
      }
    });
}
