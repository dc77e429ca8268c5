/**
 * The serve and mcp commands on a bare program, for tests that run them as child processes before (and
 * independently of) their registration in the main CLI.
 */
import { Command } from "commander";
import { registerMcpCommand } from "../cli/commands/mcp.js";
import { registerServeCommand } from "../cli/commands/serve.js";

const program = new Command("warden");
registerServeCommand({ program });
registerMcpCommand({ program });
try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`warden: ${(error as Error).message}\n`);
  process.exitCode = 2;
}
