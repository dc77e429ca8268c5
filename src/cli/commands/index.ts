/** Registers every CLI command. */
import type { Command } from "commander";
import { registerBenchCommand } from "./bench.js";
import { registerCheckCommand } from "./check.js";
import { registerCompileCommand } from "./compile.js";
import { registerDemoCommand } from "./demo.js";
import { registerKeysCommand } from "./keys.js";
import { registerLtlCommand } from "./ltl.js";
import { registerMcpCommand } from "./mcp.js";
import { registerPolicyBuildCommand } from "./policy-build.js";
import { registerPolicyImportCommand } from "./policy-import.js";
import { registerPolicyTrainCommand } from "./policy-train.js";
import { registerServeCommand } from "./serve.js";

export function registerCommands(options: { program: Command }): void {
  const { program } = options;
  registerCheckCommand({ program });
  registerCompileCommand({ program });
  registerDemoCommand({ program });
  registerBenchCommand({ program });
  registerLtlCommand({ program });
  registerServeCommand({ program });
  registerKeysCommand({ program });
  registerMcpCommand({ program });
  const policy = program
    .command("policy")
    .description("Build, import and train action-based safety policy models (ShieldAgent ASPM)");
  registerPolicyBuildCommand({ policy });
  registerPolicyImportCommand({ policy });
  registerPolicyTrainCommand({ policy });
}
