/** `warden --version` prints the version and registers no command (it loads none of their modules). */
import { Command } from "commander";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runCli } from "./run-cli.js";

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

describe("runCli", () => {
  it("prints the version for a lone --version or -V, with no command registered", async () => {
    for (const flag of ["--version", "-V"]) {
      const written: string[] = [];
      vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
        written.push(String(chunk));
        return true;
      });
      const program = new Command("warden");
      await runCli({ program, argv: ["node", "warden", flag] });
      vi.restoreAllMocks();
      expect(written.join("")).toBe("0.1.0\n");
      expect(program.commands).toEqual([]);
      expect(process.exitCode ?? 0).toBe(0);
    }
  });
});
