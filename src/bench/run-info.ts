/** Where and when a run happened: machine, Node version, commit — recorded with every result file. */
import { execFileSync } from "node:child_process";
import os from "node:os";
import { packageRoot } from "../policies/package-root.js";

export interface RunInfo {
  date: string;
  node: string;
  platform: string;
  cpu: string;
  cores: number;
  memoryGb: number;
  commit: string | null;
  dirty: boolean | null;
}

export function runInfo(): RunInfo {
  let commit: string | null = null;
  let dirty: boolean | null = null;
  try {
    const cwd = packageRoot();
    commit = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], {
      cwd,
      stdio: ["ignore", "pipe", "ignore"],
    })
      .toString()
      .trim();
    dirty =
      execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
        cwd,
        stdio: ["ignore", "pipe", "ignore"],
      })
        .toString()
        .trim() !== "";
  } catch {
    // Not a git checkout (an installed package): the version in package.json identifies the code.
  }
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpu: os.cpus()[0]?.model ?? "unknown",
    cores: os.availableParallelism(),
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    commit,
    dirty,
  };
}
