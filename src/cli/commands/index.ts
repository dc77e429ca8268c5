/** Registers every CLI command. */
import type { Command } from "commander";

export function registerCommands(options: { program: Command }): void {
  void options;
}
