/** Registers every CLI command. */
import type { Command } from "commander";
import { registerLtlCommand } from "./ltl.js";

export function registerCommands(options: { program: Command }): void {
  registerLtlCommand({ program: options.program });
}
