/**
 * The `warden` command line. Commands live one per file in ./commands and register themselves on the
 * program; exit codes are mapped from errors in exactly one place (./exit-codes.ts).
 */
import { Command } from "commander";
import { runCli } from "./run-cli.js";

const program = new Command("warden");
await runCli({ program, argv: process.argv });
