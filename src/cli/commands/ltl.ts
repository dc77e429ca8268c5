import type { Command } from "commander";
import { isWardenError, WardenError } from "../../core/errors.js";
import { evaluate } from "../../engines/shield/ltl/evaluate.js";
import { parseLtl } from "../../engines/shield/ltl/parse.js";
import { parseLtlTrace } from "../../engines/shield/ltl/trace.js";
import { EXIT_ALLOW, EXIT_ERROR } from "../exit-codes.js";
import { readTextInput } from "../read-input.js";

export interface LtlCommandOptions {
  formula: string;
  /** Inline JSON or a path to a JSON file. */
  trace: string;
  /** Position to evaluate at, as typed (default "0"). */
  at?: string | undefined;
  /** Directory a relative trace path is read from (default: the process's working directory). */
  cwd?: string;
}

export interface LtlCommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

function usage(message: string, field: string): WardenError {
  return new WardenError({ code: "INVALID_INPUT", message, details: { fields: [field] } });
}

async function readTrace(options: { trace: string; cwd: string }): Promise<unknown> {
  const text = options.trace.trim();
  if (text.startsWith("[") || text.startsWith("{")) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw usage(`--trace: inline trace is not valid JSON: ${(error as Error).message}`, "trace");
    }
  }
  // Bounded, regular files only: a device or a huge file is a usage error naming --trace.
  const content = await readTextInput({ value: options.trace, option: "--trace", cwd: options.cwd });
  try {
    return JSON.parse(content);
  } catch (error) {
    throw usage(`--trace: file '${options.trace}' is not valid JSON: ${(error as Error).message}`, "trace");
  }
}

function position(options: { at: string | undefined; length: number }): number {
  const { at, length } = options;
  if (at === undefined) {
    if (length === 0)
      throw usage("--trace: the trace is empty; there is no position 0 to evaluate at", "trace");
    return 0;
  }
  if (!/^\d+$/.test(at.trim())) throw usage(`--at: expected a position (an integer >= 0), got '${at}'`, "at");
  const index = Number(at.trim());
  if (index >= length) {
    const has =
      length === 0 ? "the trace is empty" : `the trace has ${length} steps, positions 0..${length - 1}`;
    throw usage(`--at: position ${index} is outside the trace (${has})`, "at");
  }
  return index;
}

/** Runs the command without touching the process: what it would print and its exit code. */
export async function runLtlCommand(options: LtlCommandOptions): Promise<LtlCommandResult> {
  try {
    const ast = parseLtl({ formula: options.formula });
    const raw = await readTrace({ trace: options.trace, cwd: options.cwd ?? process.cwd() });
    const trace = parseLtlTrace({ value: raw, what: "--trace" });
    const at = position({ at: options.at, length: trace.length });
    const value = evaluate({ ast, trace, at });
    // Exit 0 whatever the value: the command reports a truth value, it does not decide allow/deny.
    return { exitCode: EXIT_ALLOW, stdout: `${value}\n`, stderr: "" };
  } catch (error) {
    if (!isWardenError(error)) throw error;
    return { exitCode: EXIT_ERROR, stdout: "", stderr: `warden: ${error.code}: ${error.message}\n` };
  }
}

const HELP = `
Trace: a JSON array of steps; each step is an object atom -> boolean or an array of the atoms that are
true at it (a missing atom is false). Inline when it starts with '[' or '{', else a file path.

Formula: atoms are lower-case identifiers; ! & | -> <-> ( ); future X WX G F U R; past Y O H S.
Operators need a space or '(' before an atom: 'X p' or 'X(p)', not 'Xp'.

Examples:
  $ warden ltl --formula 'G(delete -> O confirm)' --trace '[["confirm"], ["delete"]]'
  true
  $ warden ltl --formula 'delete -> Y confirm' --trace trace.json --at 3

Exit codes: 0 printed true or false; 2 the formula does not parse or the trace or --at is invalid.`;

export function registerLtlCommand(options: { program: Command }): void {
  options.program
    .command("ltl")
    .description("evaluate an LTLf formula over a finite trace and print true or false")
    .requiredOption("--formula <formula>", "the LTLf formula")
    .requiredOption("--trace <json|file>", "the trace: inline JSON or the path of a JSON file")
    .option("--at <position>", "position to evaluate at (0-based)", undefined)
    .addHelpText("after", HELP)
    .action(async (opts: { formula: string; trace: string; at?: string }) => {
      const result = await runLtlCommand({ formula: opts.formula, trace: opts.trace, at: opts.at });
      if (result.stdout) process.stdout.write(result.stdout);
      if (result.stderr) process.stderr.write(result.stderr);
      process.exitCode = result.exitCode;
    });
}
