/**
 * Builds the command tree and runs it, turning any thrown error into a message on stderr and exit
 * code 2. Commands set `process.exitCode` themselves for allow (0) / deny (1). Node system errors
 * (a port in use, an unknown host, a missing program) are the user's environment, so they are reported
 * as WardenErrors; only what is left is an internal error, whose stack is shown with WARDEN_DEBUG=1.
 */
import type { Command } from "commander";
import { isWardenError } from "../core/errors.js";
import { EXIT_ERROR, exitCodeForError } from "./exit-codes.js";
import { wardenErrorFromSystem } from "./system-errors.js";

export async function runCli(options: { program: Command; argv: string[] }): Promise<void> {
  const { program } = options;
  program
    .description("Warden: a guard agent for LLM agents")
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride();
  // Only the command that runs is loaded (./commands/index.ts); argv is [node, script, ...args].
  const { registerCommands } = await import("./commands/index.js");
  await registerCommands({ program, args: options.argv.slice(2) });
  try {
    await program.parseAsync(options.argv);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "commander.helpDisplayed" || code === "commander.version") return;
    if (typeof code === "string" && code.startsWith("commander.")) {
      process.exitCode = EXIT_ERROR;
      return;
    }
    const known = isWardenError(error) ? error : wardenErrorFromSystem({ error });
    if (known) {
      process.stderr.write(`warden: ${known.code}: ${known.message}\n`);
    } else {
      const debug = process.env.WARDEN_DEBUG === "1" && error instanceof Error;
      const text = debug
        ? (error.stack ?? error.message)
        : error instanceof Error
          ? error.message
          : String(error);
      process.stderr.write(
        `warden: internal error: ${text}${debug ? "" : " (a bug: run again with WARDEN_DEBUG=1 for the stack and report it)"}\n`,
      );
    }
    process.exitCode = exitCodeForError({ error });
  }
}
