/**
 * Demonstration files: how users inject cases into GuardAgent's memory by hand (paper §4.2).
 *
 * A file holds a list of demonstrations, each an object with
 *   input   (string, required)  the guarded agent's input, e.g. "Identity: nursing\nQuestion: ..."
 *   output  (string, required)  the agent's output / log, e.g. knowledge + "Generated code:" + code + "Answer:"
 *   plan    (string, required)  the four-step plan: 1) summarise the guard request, 2) what applies to the
 *                               input, 3) what the output log shows, 4) how the guardrail code should decide
 *   code    (string, required)  the guardrail code (JavaScript, calling toolbox functions)
 *   id      (string, optional)  a stable id; the store assigns one when absent
 *   label   (0 | 1, optional)   the label this code produces (0 = requests satisfied, 1 = violated)
 *   meta    (object, optional)  any JSON metadata
 * and no other keys. Three encodings, chosen by extension:
 *   .json            a JSON array of such objects
 *   .jsonl, .ndjson  one JSON object per line (blank lines are skipped)
 *   .yaml, .yml      a YAML list of such objects (block scalars `|` suit multi-line text)
 * A directory is read file by file in name order (not recursively), skipping other extensions. Errors
 * name the file, the item (and line, for JSONL) and the field.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { WardenError } from "../core/errors.js";
import { lazyModule } from "../core/lazy-module.js";
import { parseWith } from "../core/validate.js";
import { type DemonstrationInput, DemonstrationInputSchema } from "./demonstration-input.js";

/** The YAML parser, loaded only for a demonstrations file in YAML (core/lazy-module.ts). */
const yaml = lazyModule<typeof import("yaml")>({ specifier: "yaml" });

const JSON_EXTENSIONS = new Set([".json"]);
const JSONL_EXTENSIONS = new Set([".jsonl", ".ndjson"]);
const YAML_EXTENSIONS = new Set([".yaml", ".yml"]);

export const DEMONSTRATION_FILE_EXTENSIONS: readonly string[] = [
  ...JSON_EXTENSIONS,
  ...JSONL_EXTENSIONS,
  ...YAML_EXTENSIONS,
];

/** Loads the demonstrations of one file, or of every demonstration file in a directory. */
export async function loadDemonstrations(options: { path: string }): Promise<DemonstrationInput[]> {
  const { path } = options;
  const info = await stat(path).catch(() => undefined);
  if (!info) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `Demonstration path not found: ${path}`,
      details: { fields: ["path"], path },
    });
  }
  let files: string[];
  if (info.isDirectory()) {
    const entries = await readdir(path, { withFileTypes: true });
    files = entries
      .filter((e) => e.isFile() && DEMONSTRATION_FILE_EXTENSIONS.includes(extname(e.name).toLowerCase()))
      .map((e) => join(path, e.name))
      .sort();
  } else {
    files = [path];
  }
  const all: DemonstrationInput[] = [];
  const seenIds = new Map<string, string>();
  for (const file of files) {
    const items = await readDemonstrationFile({ file });
    for (const [index, item] of items.entries()) {
      if (item.id !== undefined) {
        const where = `${file} item ${index}`;
        const previous = seenIds.get(item.id);
        if (previous !== undefined) {
          throw new WardenError({
            code: "INVALID_INPUT",
            message: `Invalid demonstration file ${file}: [${index}].id: "${item.id}" is also used by ${previous}`,
            details: { fields: [`[${index}].id`], file, index },
          });
        }
        seenIds.set(item.id, where);
      }
      all.push(item);
    }
  }
  return all;
}

/** Parses one demonstration file (format from its extension). */
export async function readDemonstrationFile(options: { file: string }): Promise<DemonstrationInput[]> {
  const { file } = options;
  const extension = extname(file).toLowerCase();
  if (!DEMONSTRATION_FILE_EXTENSIONS.includes(extension)) {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `Unsupported demonstration file ${file}: use ${DEMONSTRATION_FILE_EXTENSIONS.join(", ")}`,
      details: { fields: ["path"], file },
    });
  }
  const text = await readFile(file, "utf8").catch((error: unknown) => {
    throw new WardenError({
      code: "INVALID_INPUT",
      message: `Cannot read demonstration file ${file}`,
      details: { fields: ["path"], file },
      cause: error,
    });
  });
  return parseDemonstrations({ text, format: formatOf(extension), file });
}

export type DemonstrationFileFormat = "json" | "jsonl" | "yaml";

/** Parses demonstration text already in memory; `file` names it in errors. */
export function parseDemonstrations(options: {
  text: string;
  format: DemonstrationFileFormat;
  file?: string;
}): DemonstrationInput[] {
  const file = options.file ?? "(text)";
  const text = options.text.replace(/^\uFEFF/, "");
  const invalid = (message: string, details: Record<string, unknown> = {}) =>
    new WardenError({
      code: "INVALID_INPUT",
      message: `Invalid demonstration file ${file}: ${message}`,
      details: { file, ...details },
    });

  if (options.format === "jsonl") {
    const out: DemonstrationInput[] = [];
    for (const [n, line] of text.split(/\r?\n/).entries()) {
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw invalid(`line ${n + 1} (item ${out.length}) is not JSON: ${(error as Error).message}`, {
          line: n + 1,
          index: out.length,
        });
      }
      out.push(validateItem({ value, index: out.length, file, where: `line ${n + 1}, ` }));
    }
    return out;
  }

  let value: unknown;
  try {
    value = options.format === "json" ? JSON.parse(text) : yaml().parse(text);
  } catch (error) {
    throw invalid(`not valid ${options.format === "json" ? "JSON" : "YAML"}: ${(error as Error).message}`);
  }
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) {
    throw invalid(
      `expected a list of demonstrations, found ${typeof value === "object" ? "an object" : typeof value}`,
    );
  }
  return value.map((item, index) => validateItem({ value: item, index, file, where: "" }));
}

function validateItem(options: {
  value: unknown;
  index: number;
  file: string;
  where: string;
}): DemonstrationInput {
  return parseWith({
    schema: DemonstrationInputSchema,
    value: options.value,
    what: `demonstration file ${options.file} (${options.where}item ${options.index})`,
    path: `[${options.index}]`,
  });
}

function formatOf(extension: string): DemonstrationFileFormat {
  if (JSONL_EXTENSIONS.has(extension)) return "jsonl";
  if (YAML_EXTENSIONS.has(extension)) return "yaml";
  return "json";
}
