/**
 * Reads CLI inputs: a path, or "-" for stdin (read once, whoever asks first). Only regular files and
 * stdin are read, and never more than a byte cap (`--max-input-bytes`, 16 MiB by default): a device such
 * as /dev/zero, a directory or a huge file is a usage error naming the option, not an out-of-memory.
 * JSON inputs are also checked for nesting depth (iteratively) before anything walks them.
 */
import { readSync } from "node:fs";
import { open } from "node:fs/promises";
import { resolve } from "node:path";
import { z } from "zod";
import { WardenError } from "../core/errors.js";
import { DEFAULT_MAX_INPUT_BYTES, depthProblem, MAX_DOCUMENT_DEPTH } from "../core/limits.js";
import { parseWith } from "../core/validate.js";

let stdinText: Promise<string> | undefined;

function usage(option: string, message: string, cause?: unknown): WardenError {
  return new WardenError({
    code: "INVALID_INPUT",
    message: `${option}: ${message}`,
    details: { fields: [option] },
    ...(cause === undefined ? {} : { cause }),
  });
}

function tooLarge(option: string, what: string, maxBytes: number): WardenError {
  return usage(option, `${what} is larger than ${maxBytes} bytes (raise the limit with --max-input-bytes)`);
}

const STDIN_CHUNK_BYTES = 64 * 1024;

/**
 * stdin to its end. Descriptor 0 is read with blocking reads, as a hook gets it (a pipe or a file):
 * `process.stdin` would set up a stream (a socket, for a pipe) that costs a one-shot command a few
 * milliseconds of its start. A descriptor that is non-blocking (EAGAIN: a parent made it so) is read
 * on through `process.stdin`, from where the blocking reads stopped.
 */
async function readStdin(options: { option: string; maxBytes: number }): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  const take = (chunk: Buffer) => {
    total += chunk.length;
    if (total > options.maxBytes) throw tooLarge(options.option, "stdin", options.maxBytes);
    chunks.push(chunk);
  };
  for (;;) {
    const buffer = Buffer.allocUnsafe(STDIN_CHUNK_BYTES);
    let read: number;
    try {
      read = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Windows reports the end of a pipe as an EOF error.
      if (code === "EOF") break;
      if (code !== "EAGAIN") throw error;
      try {
        for await (const chunk of process.stdin) take(chunk as Buffer);
      } catch (streamError) {
        process.stdin.destroy();
        throw streamError;
      }
      break;
    }
    if (read === 0) break;
    take(buffer.subarray(0, read));
  }
  return Buffer.concat(chunks).toString("utf8");
}

const SYSTEM_MESSAGES: Record<string, string> = {
  ENOENT: "no such file",
  ENOTDIR: "no such file (a part of the path is not a directory)",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ELOOP: "too many symbolic links",
  ENAMETOOLONG: "file name too long",
};

/** Reads at most maxBytes of a regular file; anything else (directory, device, pipe) is refused. */
async function readRegularFile(options: { path: string; shown: string; option: string; maxBytes: number }) {
  const { option, shown, maxBytes } = options;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(options.path, "r");
  } catch (error) {
    const code = (error as { code?: string }).code ?? "";
    throw usage(
      option,
      `${SYSTEM_MESSAGES[code] ?? `cannot open (${code || String(error)})`}: ${shown}`,
      error,
    );
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw usage(option, `${shown} is a directory, not a file`);
    if (!stat.isFile()) throw usage(option, `${shown} is not a regular file (give a file, or - for stdin)`);
    if (stat.size > maxBytes) throw tooLarge(option, shown, maxBytes);
    // Read in chunks up to one byte past the cap: a file that grows while read (or reports size 0, as
    // /proc files do) is still refused past the cap, never slurped.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(Math.min(maxBytes + 1 - total, 1024 * 1024));
      if (buffer.length === 0) break;
      const { bytesRead } = await handle.read({ buffer, position: total });
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total > maxBytes) throw tooLarge(option, shown, maxBytes);
    return Buffer.concat(chunks).toString("utf8");
  } catch (error) {
    if (error instanceof WardenError) throw error;
    const code = (error as { code?: string }).code ?? "";
    throw usage(option, `cannot read ${shown} (${code || String(error)})`, error);
  } finally {
    await handle.close();
  }
}

export async function readTextInput(options: {
  value: string;
  option: string;
  cwd?: string;
  /** Byte cap (default 16 MiB). */
  maxBytes?: number;
}): Promise<string> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  if (options.value === "-") {
    stdinText ??= readStdin({ option: options.option, maxBytes });
    return stdinText;
  }
  const path = resolve(options.cwd ?? process.cwd(), options.value);
  return readRegularFile({ path, shown: options.value, option: options.option, maxBytes });
}

/** Parses JSON (or JSON Lines) given inline or in a file, refusing documents nested too deep. */
export async function readJsonInput(options: {
  value: string;
  option: string;
  cwd?: string;
  maxBytes?: number;
}): Promise<unknown> {
  const trimmed = options.value.trim();
  const text = trimmed.startsWith("{") || trimmed.startsWith("[") ? trimmed : await readTextInput(options);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  if (Buffer.byteLength(text) > maxBytes) throw tooLarge(options.option, "the value", maxBytes);
  const value = parseJsonOrLines({ text, option: options.option });
  const deep = depthProblem({ value, maxDepth: MAX_DOCUMENT_DEPTH });
  if (deep) {
    throw usage(options.option, `nested more than ${MAX_DOCUMENT_DEPTH} levels deep at ${deep.path}`);
  }
  return value;
}

function parseJsonOrLines(options: { text: string; option: string }): unknown {
  try {
    return JSON.parse(options.text);
  } catch {
    // JSON Lines: one value per line.
    const lines = options.text.split("\n").filter((l) => l.trim() !== "");
    try {
      return lines.map((l) => JSON.parse(l));
    } catch (error) {
      throw usage(options.option, `not valid JSON or JSON Lines: ${(error as Error).message}`, error);
    }
  }
}

/** A JSON object read from a flag (inline or a file); anything else is a usage error naming the flag. */
export async function readJsonObjectInput(options: {
  value: string;
  option: string;
  cwd?: string;
  maxBytes?: number;
}): Promise<Record<string, unknown>> {
  const value = await readJsonInput(options);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw usage(
      options.option,
      `expects a JSON object, e.g. '{"identity":"nursing"}', got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`,
    );
  }
  return value as Record<string, unknown>;
}

/** `--max-input-bytes <n>`: a whole positive number of bytes. */
const MaxInputBytesSchema = z
  .string()
  .regex(/^\d+$/, "a whole number of bytes")
  .transform(Number)
  .pipe(z.number().int().positive())
  .optional();

/** The byte cap from what the command parsed, or the default when `--max-input-bytes` was not given. */
export function maxInputBytesFrom(options: { raw: Record<string, unknown> }): number {
  const value = parseWith({
    schema: MaxInputBytesSchema,
    value: options.raw.maxInputBytes,
    what: "options",
    path: "--max-input-bytes",
  });
  return value ?? DEFAULT_MAX_INPUT_BYTES;
}

export const MAX_INPUT_BYTES_HELP = `largest input file or stdin read, in bytes (default ${DEFAULT_MAX_INPUT_BYTES})`;
