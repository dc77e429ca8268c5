/**
 * Registers the CLI commands, loading only the module of the command that runs: `warden check` is a
 * pre-tool hook called on every action, so it must not pay for the server, the MCP SDK, the benchmark
 * or the model providers that other commands import. Each command keeps its options and action in its
 * own file; this table only knows how to load it. `warden --version` alone loads none (it prints one
 * line). Whatever else is asked (help for the program, an unknown command, another global flag) loads
 * every command, so `--help` and commander's suggestions see them all.
 */
import type { Command } from "commander";

type Register = (options: { program: Command }) => void;

/** How to register each top-level command: one dynamic import per command, loaded when it runs. */
const COMMANDS: Record<string, () => Promise<Register>> = {
  check: async () => {
    await oneShotValidation();
    return (await import("./check.js")).registerCheckCommand;
  },
  hook: async () => {
    await oneShotValidation();
    return (await import("./hook.js")).registerHookCommand;
  },
  compile: async () => (await import("./compile.js")).registerCompileCommand,
  demo: async () => (await import("./demo.js")).registerDemoCommand,
  bench: async () => (await import("./bench.js")).registerBenchCommand,
  ltl: async () => (await import("./ltl.js")).registerLtlCommand,
  serve: async () => (await import("./serve.js")).registerServeCommand,
  keys: async () => (await import("./keys.js")).registerKeysCommand,
  audit: async () => (await import("./audit.js")).registerAuditCommand,
  approvals: async () => (await import("./approvals.js")).registerApprovalsCommand,
  mcp: async () => (await import("./mcp.js")).registerMcpCommand,
  policy: async () => registerPolicyCommands,
};

/** zod's JIT off before a one-shot command's modules load (../one-shot-validation.ts says why). */
async function oneShotValidation(): Promise<void> {
  (await import("../one-shot-validation.js")).turnOffZodJit();
}

/** `warden policy build|import|train`. */
async function registerPolicyCommands(options: { program: Command }): Promise<void> {
  const [build, imported, train] = await Promise.all([
    import("./policy-build.js"),
    import("./policy-import.js"),
    import("./policy-train.js"),
  ]);
  const policy = options.program
    .command("policy")
    .description("Build, import and train action-based safety policy models (ShieldAgent ASPM)");
  build.registerPolicyBuildCommand({ policy });
  imported.registerPolicyImportCommand({ policy });
  train.registerPolicyTrainCommand({ policy });
}

/** The names of the top-level commands, in the order `warden --help` lists them. */
export const COMMAND_NAMES = Object.keys(COMMANDS);

/** The program's version flags: asked alone, they need no command. */
const VERSION_FLAGS = new Set(["--version", "-V"]);

/**
 * The commands an argument vector needs: none for a lone `--version`, the one it names (`warden check
 * …`, `warden help check`), or every command when it names none this table knows (help, a global flag,
 * a typo).
 */
export function commandsFor(options: { args: readonly string[] }): string[] {
  const [first, second] = options.args;
  if (options.args.length === 1 && VERSION_FLAGS.has(first!)) return [];
  const named = first === "help" ? second : first;
  return named !== undefined && Object.hasOwn(COMMANDS, named) ? [named] : COMMAND_NAMES;
}

/** Registers the commands `args` (the arguments after the program name) needs on the program. */
export async function registerCommands(options: {
  program: Command;
  args?: readonly string[];
}): Promise<void> {
  const names = options.args ? commandsFor({ args: options.args }) : COMMAND_NAMES;
  const registers = await Promise.all(names.map((name) => COMMANDS[name]!()));
  for (const register of registers) await register({ program: options.program });
}
