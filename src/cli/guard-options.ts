/**
 * The options every guard command shares — policy, engine, model, memory, toolbox, cassette, fail mode —
 * registered once here for `warden check`, `warden serve` and `warden mcp serve|proxy`, and turned into
 * guard service options (validated by openGuardService). `--check-timeout` is registered only on the
 * long-running faces (`serve`, `mcp serve`), whose checks go through the guard service that enforces it.
 */
import type { Command } from "commander";
import { z } from "zod";
import { parseWith } from "../core/validate.js";
import { CheckTimeoutMsSchema, DEFAULT_CHECK_TIMEOUT_MS } from "../runtime/guard-service.js";
import type { GuardServiceOptions } from "../runtime/open-guard-service.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * Registers the guard options (policy, engine, model, memory, toolbox) on a command. `policy: "one"`
 * for commands that check against one policy (`warden check`), "many" for services that preload several.
 */
export function addGuardOptions(options: { command: Command; policy?: "one" | "many" }): Command {
  const command =
    options.policy === "one"
      ? options.command.requiredOption(
          "--policy <name|file>",
          "bundled policy name (eicu-ac, mind2web-sc, mcp-tools, agentharm) or a policy file/directory",
        )
      : options.command.option(
          "--policy <name|file>",
          "policy to load: bundled name (eicu-ac, mind2web-sc, mcp-tools, agentharm) or a policy file/directory; repeatable (default: every bundled policy)",
          collect,
        );
  return command
    .option(
      "--engine <engine>",
      "default engine: auto | compiled | guardagent | baseline | llamaguard | direct | rule-traverse | shield",
      "auto",
    )
    .option(
      "--model <provider:model-id>",
      "openai:…, anthropic:…, openai-compatible:…, ollama:…, local:/path/model.gguf",
    )
    .option("--base-url <url>", "the model server's base URL (needed for openai-compatible)")
    .option("--timeout-ms <ms>", "time limit of each model request", (v) => Number(v))
    .option("--shots <k>", "number of demonstrations retrieved from memory")
    .option("--retrieval <order>", "most | least similar demonstrations", "most")
    .option("--debug-rounds <n>", "debugging rounds when the guardrail code fails (default 3)")
    .option(
      "--shield-planning <mode>",
      "shield with a model: binary-check (default: each open question in one call) or plan (a shielding plan per step)",
    )
    .option("--no-toolbox", "hide the toolbox functions from code generation (ablation)")
    .option("--no-memory", "use no demonstrations (ablation)")
    .option("--tools <file>", "extra toolbox functions (JavaScript or JSON/YAML); repeatable", collect)
    .option("--demos <file>", "extra demonstrations for memory; repeatable", collect)
    .option("--store <path>", "memory database (default $WARDEN_STORE or ~/.local/state/warden/warden.db)")
    .option(
      "--learn <mode>",
      "learning from live checks: off (default) | correct-only (only cases confirmed by labelled feedback)",
    )
    .option("--cassette <file>", "record model calls to / replay them from this file")
    .option("--cassette-mode <mode>", "record | replay | auto", "auto")
    .option("--fail-open", "allow (and say so) when a check cannot be completed; the default is to deny")
    .option("--audit", "record every decision in the store's audit log (default: when --store is given)")
    .option("--no-audit", "keep no audit log, even with --store")
    .option("--audit-subjects", "keep each checked subject in the audit log, not only its SHA-256 digest")
    .option(
      "--audit-mode <mode>",
      "sync (default: a decision is answered after its audit row is written; a failed write denies) | async",
    );
}

/** Registers `--check-timeout <ms>`: the time limit of one check, past which it is denied. */
export function addCheckTimeoutOption(options: { command: Command }): Command {
  return options.command.option(
    "--check-timeout <ms>",
    `time limit of one check in ms, past which it is denied (default ${DEFAULT_CHECK_TIMEOUT_MS}; 0 = none)`,
  );
}

// Digits only: Number("") is 0, and an empty value must not quietly mean "no limit".
const CheckTimeoutFlagSchema = z
  .string()
  .regex(/^\d+$/, "a whole number of milliseconds (0 for no limit)")
  .transform(Number)
  .pipe(CheckTimeoutMsSchema)
  .optional();

/** `{ checkTimeoutMs }` from what addCheckTimeoutOption parsed, or nothing when the flag was not given. */
export function checkTimeoutFrom(options: { raw: Record<string, unknown> }): { checkTimeoutMs?: number } {
  const ms = parseWith({
    schema: CheckTimeoutFlagSchema,
    value: options.raw.checkTimeout,
    what: "options",
    path: "--check-timeout",
  });
  return ms === undefined ? {} : { checkTimeoutMs: ms };
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
    "shieldPlanning",
    "toolbox",
    "memory",
    "tools",
    "demos",
    "store",
    "learn",
    "cassette",
    "cassetteMode",
    "failOpen",
    "audit",
    "auditSubjects",
    "auditMode",
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
