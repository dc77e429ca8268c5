/**
 * Reads a labelled-trajectory JSONL file (the format of src/core/trajectory-record.ts) for the
 * benchmarks; a file that cannot be read is a DATASET_INVALID error naming the path.
 */
import { readFile } from "node:fs/promises";
import { WardenError } from "../../core/errors.js";
import { type ParsedTrajectories, parseTrajectoriesJsonl } from "../../core/trajectory-record.js";

/** Reads and parses a JSONL file. */
export async function readTrajectoriesJsonl(options: { path: string }): Promise<ParsedTrajectories> {
  let text: string;
  try {
    text = await readFile(options.path, "utf8");
  } catch (error) {
    throw new WardenError({
      code: "DATASET_INVALID",
      message: `cannot read trajectories from ${options.path}: ${(error as Error).message}`,
      cause: error,
    });
  }
  return parseTrajectoriesJsonl({ text, source: options.path });
}
