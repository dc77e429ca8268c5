import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { registerLtlCommand, runLtlCommand } from "./ltl.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "warden-ltl-"));
  await writeFile(join(dir, "trace.json"), JSON.stringify([["confirm"], { delete: true }, {}]));
  await writeFile(join(dir, "broken.json"), "[{");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (formula: string, trace: string, at?: string) => runLtlCommand({ formula, trace, at, cwd: dir });

describe("warden ltl (action)", () => {
  it("prints true or false with exit 0, for inline traces in both step shapes", async () => {
    expect(await run("G(delete -> O confirm)", '[["confirm"], ["delete"]]')).toEqual({
      exitCode: 0,
      stdout: "true\n",
      stderr: "",
    });
    expect(await run("G(delete -> O confirm)", '[{"delete": true}, {"confirm": true}]')).toEqual({
      exitCode: 0,
      stdout: "false\n",
      stderr: "",
    });
    expect((await run("a & !b", '[{"a": true, "b": false}]')).stdout).toBe("true\n");
  });

  it("reads a trace file relative to the working directory and evaluates at --at", async () => {
    expect((await run("delete -> Y confirm", "trace.json", "1")).stdout).toBe("true\n");
    expect((await run("delete", "trace.json", "2")).stdout).toBe("false\n");
    expect((await run("O delete", join(dir, "trace.json"), "2")).stdout).toBe("true\n");
  });

  it("prints a parse error with its position and caret on stderr, exit 2", async () => {
    const result = await run("G(a -> (b S c)", "[{}]");
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "warden: LTL_PARSE: expected ')' to close the '(' at 1:2 but found end of input at 1:15\n  G(a -> (b S c)\n                ^\n",
    );
  });

  it.each([
    ["invalid inline JSON", "a", "[{", undefined, "--trace: inline trace is not valid JSON"],
    ["a missing file", "a", "missing.json", undefined, "--trace: no such file: missing.json"],
    [
      "a file that is not JSON",
      "a",
      "broken.json",
      undefined,
      "--trace: file 'broken.json' is not valid JSON",
    ],
    ["a trace that is not an array", "a", '{"a": true}', undefined, "Invalid --trace: (root)"],
    [
      "a step of the wrong shape",
      "a",
      '[{"a": 1}]',
      undefined,
      "Invalid --trace: 0.a: expected true or false",
    ],
    ["a non-atom key", "a", '[{"isOpen": true}]', undefined, "Invalid --trace: 0.isOpen: not an atom name"],
    ["an empty trace", "a", "[]", undefined, "the trace is empty"],
    [
      "--at past the end",
      "a",
      "[{}, {}]",
      "2",
      "--at: position 2 is outside the trace (the trace has 2 steps, positions 0..1)",
    ],
    ["--at on an empty trace", "a", "[]", "0", "--at: position 0 is outside the trace (the trace is empty)"],
    ["--at not a number", "a", "[{}]", "x", "--at: expected a position (an integer >= 0), got 'x'"],
    ["--at negative", "a", "[{}]", "-1", "--at: expected a position"],
  ])("answers %s with a usage error, exit 2", async (_, formula, trace, at, message) => {
    const result = await run(formula, trace, at);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("warden: INVALID_INPUT: ");
    expect(result.stderr).toContain(message);
  });
});

describe("warden ltl (commander)", () => {
  it("registers the command, prints the value and sets process.exitCode", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      err.push(String(chunk));
      return true;
    });
    const previous = process.exitCode;
    try {
      const program = new Command("warden").exitOverride();
      registerLtlCommand({ program });
      await program.parseAsync(["ltl", "--formula", "F goal", "--trace", '[[], ["goal"]]'], { from: "user" });
      expect(out.join("")).toBe("true\n");
      expect(process.exitCode).toBe(0);

      const again = new Command("warden").exitOverride();
      registerLtlCommand({ program: again });
      await again.parseAsync(["ltl", "--formula", "F goal &", "--trace", "[[]]"], { from: "user" });
      expect(err.join("")).toContain("LTL_PARSE");
      expect(process.exitCode).toBe(2);

      const missing = new Command("warden").exitOverride();
      missing.configureOutput({ writeErr: () => {} });
      registerLtlCommand({ program: missing });
      await expect(missing.parseAsync(["ltl", "--formula", "a"], { from: "user" })).rejects.toMatchObject({
        code: "commander.missingMandatoryOptionValue",
      });
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
      process.exitCode = previous;
    }
  });

  it("runs in a real process: stdout and exit code", async () => {
    const exec = promisify(execFile);
    const here = import.meta.dirname;
    const commander = pathToFileURL(createRequire(import.meta.url).resolve("commander")).href;
    const command = pathToFileURL(join(here, "ltl.ts")).href;
    const entry = join(dir, "entry.mjs");
    await writeFile(
      entry,
      [
        `import { Command } from ${JSON.stringify(commander)};`,
        `import { registerLtlCommand } from ${JSON.stringify(command)};`,
        'const program = new Command("warden");',
        "registerLtlCommand({ program });",
        "await program.parseAsync(process.argv.slice(2), { from: 'user' });",
      ].join("\n"),
    );
    const node = (args: string[]) =>
      exec(process.execPath, ["--import", "tsx", entry, ...args], {
        cwd: resolve(here, "../../.."),
        timeout: 20_000,
      });
    const ok = await node([
      "ltl",
      "--formula",
      "G(delete -> O confirm)",
      "--trace",
      '[["confirm"],["delete"]]',
    ]);
    expect(ok.stdout).toBe("true\n");
    const failed = await node(["ltl", "--formula", "G(", "--trace", "[[]]"]).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 2, stdout: "" });
    expect((failed as { stderr: string }).stderr).toContain(
      "expected a formula after '(' but found end of input at 1:3",
    );
  });
});
