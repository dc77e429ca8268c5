/**
 * Builds the command tree and runs it, turning any thrown error into a message on stderr and exit
 * code 2. Commands set `process.exitCode` themselves for allow (0) / deny (1).
 */
import type { Command } from "commander";
import { isWardenError } from "../core/errors.js";
import { EXIT_ERROR, exitCodeForError } from "./exit-codes.js";

export async function runCli(options: { program: Command; argv: string[] }): Promise<void> {
  const { program } = options;
  program
    .description("Warden: a guard agent for LLM agents")
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride();
  const { registerCommands } = await import("./commands/index.js");
  registerCommands({ program });
  try {
    await program.parseAsync(options.argv);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "commander.helpDisplayed" || code === "commander.version") return;
    if (typeof code === "string" && code.startsWith("commander.")) {
      process.exitCode = EXIT_ERROR;
      return;
    }
    if (isWardenError(error)) {
      process.stderr.write(`warden: ${error.code}: ${error.message}\n`);
    } else {
      process.stderr.write(
        `warden: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    }
    process.exitCode = exitCodeForError({ error });
  }
}
