/**
 * The CLI loads only the command that runs; whatever names no known command (help, a global flag, a
 * typo) loads them all, so help and commander's suggestions stay complete.
 */
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMAND_NAMES, commandsFor, registerCommands } from "./index.js";

describe("commandsFor", () => {
  it("is the named command alone, also when help is asked for it", () => {
    expect(commandsFor({ args: ["check", "--policy", "mcp-tools"] })).toEqual(["check"]);
    expect(commandsFor({ args: ["help", "serve"] })).toEqual(["serve"]);
    expect(commandsFor({ args: ["policy", "build", "--help"] })).toEqual(["policy"]);
  });

  it("is no command for a lone version flag: printing the version loads nothing", () => {
    expect(commandsFor({ args: ["--version"] })).toEqual([]);
    expect(commandsFor({ args: ["-V"] })).toEqual([]);
  });

  it("is every command for program help, a global flag, no command or an unknown one", () => {
    for (const args of [[], ["--help"], ["help"], ["--version", "check"], ["chek"], ["toString"]]) {
      expect(commandsFor({ args })).toEqual(COMMAND_NAMES);
    }
  });
});

describe("registerCommands", () => {
  it("registers every command with its options for program help", async () => {
    const program = new Command("warden");
    await registerCommands({ program, args: ["--help"] });
    expect(program.commands.map((c) => c.name())).toEqual([...COMMAND_NAMES]);
    const check = program.commands.find((c) => c.name() === "check")!;
    expect(check.options.map((o) => o.long)).toContain("--policy");
    // Importing every command's module under vitest's transform takes a while on a busy machine.
  }, 120_000);

  it("registers only the command that runs", async () => {
    const program = new Command("warden");
    await registerCommands({ program, args: ["ltl", "--formula", "F a"] });
    expect(program.commands.map((c) => c.name())).toEqual(["ltl"]);
  });
});
