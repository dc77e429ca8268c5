/**
 * Reads CLI inputs: a path, or "-" for stdin (read once, whoever asks first), with a usage error that
 * names the option when the file is missing.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { WardenError } from "../core/errors.js";

let stdinText: string | undefined;

async function readStdin(): Promise<string> {
  if (stdinText !== undefined) return stdinText;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  stdinText = Buffer.concat(chunks).toString("utf8");
  return stdinText;
}

export async function readTextInput(options: {
  value: string;
  option: string;
  cwd?: string;
}): Promise<string> {
  if (options.value === "-") return readStdin();
  const path = resolve(options.cwd ?? process.cwd(), options.value);
  if (!existsSync(path)) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `${options.option}: no such file: ${options.value}`,
      details: { fields: [options.option] },
    });
  }
  return readFileSync(path, "utf8");
}

export async function readJsonInput(options: {
  value: string;
  option: string;
  cwd?: string;
}): Promise<unknown> {
  const trimmed = options.value.trim();
  const text = trimmed.startsWith("{") || trimmed.startsWith("[") ? trimmed : await readTextInput(options);
  try {
    return JSON.parse(text);
  } catch {
    // JSON Lines: one value per line.
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    try {
      return lines.map((l) => JSON.parse(l));
    } catch (error) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `${options.option}: not valid JSON or JSON Lines: ${(error as Error).message}`,
        details: { fields: [options.option] },
      });
    }
  }
}
