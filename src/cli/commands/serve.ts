/**
 * `warden serve`: Warden's HTTP API (see src/server) on 127.0.0.1:8787 until SIGINT/SIGTERM. Also holds
 * the options every long-running guard command shares (policies, engine, model, memory), which
 * `warden mcp serve|proxy` register too.
 */
import type { Command } from "commander";
import { z } from "zod";
import { parseWith } from "../../core/validate.js";
import type { GuardServiceOptions } from "../../runtime/open-guard-service.js";
import { createServerLogger } from "../../server/request-log.js";
import { startServer } from "../../server/start-server.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Registers the guard options (policies, engine, model, memory, toolbox) on a command. */
export function addGuardOptions(options: { command: Command }): Command {
  return options.command
    .option(
      "--policy <name|file>",
      "policy to load: bundled name (eicu-ac, mind2web-sc, mcp-tools, agentharm) or a policy file/directory; repeatable (default: every bundled policy)",
      collect,
    )
    .option("--engine <engine>", "default engine: auto | compiled | guardagent | baseline | shield", "auto")
    .option(
      "--model <provider:model-id>",
      "openai:…, anthropic:…, openai-compatible:…, ollama:…, local:/path/model.gguf",
    )
    .option("--base-url <url>", "the model server's base URL (needed for openai-compatible)")
    .option("--timeout-ms <ms>", "time limit of each model request", (v) => Number(v))
    .option("--shots <k>", "number of demonstrations retrieved from memory")
    .option("--retrieval <order>", "most | least similar demonstrations", "most")
    .option("--debug-rounds <n>", "debugging rounds when the guardrail code fails (default 3)")
    .option("--no-toolbox", "hide the toolbox functions from code generation (ablation)")
    .option("--no-memory", "use no demonstrations (ablation)")
    .option("--tools <file>", "extra toolbox functions (JavaScript or JSON/YAML); repeatable", collect)
    .option("--demos <file>", "extra demonstrations for memory; repeatable", collect)
    .option("--store <path>", "memory database (default $WARDEN_STORE or ~/.local/state/warden/warden.db)")
    .option("--learn <mode>", "off | successful | correct-only", "successful")
    .option("--cassette <file>", "record model calls to / replay them from this file")
    .option("--cassette-mode <mode>", "record | replay | auto", "auto")
    .option("--fail-open", "allow (and say so) when a check cannot be completed; the default is to deny");
}

/** The guard service options from what addGuardOptions parsed (validated by openGuardService). */
export function guardOptionsFrom(options: { raw: Record<string, unknown> }): GuardServiceOptions {
  const { policy, ...rest } = options.raw;
  const keys = [
    "engine",
    "model",
    "baseUrl",
    "timeoutMs",
    "shots",
    "retrieval",
    "debugRounds",
    "toolbox",
    "memory",
    "tools",
    "demos",
    "store",
    "learn",
    "cassette",
    "cassetteMode",
    "failOpen",
  ];
  const picked = Object.fromEntries(keys.filter((k) => rest[k] !== undefined).map((k) => [k, rest[k]]));
  return { ...picked, policies: (policy as string[] | undefined) ?? [] } as GuardServiceOptions;
}

/** Resolves when the process is asked to stop (SIGINT, SIGTERM, stdin closed when asked, or `also`). */
export function untilStopped(options: { stdin?: boolean; also?: Promise<unknown> } = {}): Promise<string> {
  return new Promise((resolve) => {
    const cleanups: (() => void)[] = [];
    const done = (reason: string) => {
      for (const cleanup of cleanups) cleanup();
      resolve(reason);
    };
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      const on = () => done(signal);
      process.once(signal, on);
      cleanups.push(() => process.off(signal, on));
    }
    if (options.stdin) {
      const on = () => done("stdin closed");
      process.stdin.once("end", on);
      process.stdin.once("close", on);
      cleanups.push(() => {
        process.stdin.off("end", on);
        process.stdin.off("close", on);
      });
    }
    options.also?.then(
      () => done("closed"),
      () => done("closed"),
    );
  });
}

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
  addGuardOptions({ command })
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
      const logger = createServerLogger({ level: o.logLevel });
      const { policies, ...guard } = guardOptionsFrom({ raw });
      const server = await startServer({
        ...guard,
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
