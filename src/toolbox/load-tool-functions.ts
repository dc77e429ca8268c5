/**
 * Loads user toolbox functions from a file. Two forms:
 *
 * 1. JavaScript (.js, .mjs, .cjs): each function starts with a JSDoc-style block right before its
 *    top-level declaration. The block's free text is the description; `@signature` gives the typed
 *    signature (default: the declaration's own parameter list), `@description` overrides the free text and
 *    `@name` the declared name. A function's source runs from its declaration to the next documented
 *    function, so undocumented helpers written after a function travel with it. Only comments may come
 *    before the first documented function.
 *
 *        /**
 *         * True when the user is at least `min` years old.
 *         * @signature IsOldEnough(user: { age: number }, min: number) -> boolean
 *         *\/
 *        function IsOldEnough(user, min) { return Number(user.age) >= min; }
 *
 * 2. JSON or YAML (.json, .yaml, .yml): a list of { name, signature, description, source } (or an object
 *    { functions: [...] }); `sourceFile` (a path relative to the file) may replace `source`.
 *
 * Every function is validated like Toolbox.add; errors name the file and the function.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { WardenError } from "../core/errors.js";
import { parseWith } from "../core/validate.js";
import { type ToolFunction, ToolFunctionSchema } from "./tool-function.js";

const DOC_THEN_DECLARATION =
  /\/\*\*([\s\S]*?)\*\/[ \t]*\r?\n?\s*(?=(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(([^)]*)\))/g;

function invalid(message: string, field?: string): never {
  throw new WardenError({
    code: "INVALID_INPUT",
    message,
    ...(field ? { details: { fields: [field] } } : {}),
  });
}

function docText(block: string): { text: string; tags: Map<string, string> } {
  const tags = new Map<string, string>();
  const free: string[] = [];
  let current: string | undefined;
  for (const raw of block.split("\n")) {
    const line = raw.replace(/^\s*\*?\s?/, "").trimEnd();
    const tag = /^@(\w+)\s*(.*)$/.exec(line.trim());
    if (tag) {
      current = tag[1]!;
      tags.set(current, tag[2]!.trim());
    } else if (current !== undefined && line.trim() !== "") {
      tags.set(current, `${tags.get(current)} ${line.trim()}`.trim());
    } else if (line.trim() !== "") {
      free.push(line.trim());
    } else {
      current = undefined;
    }
  }
  return { text: free.join(" "), tags };
}

function onlyComments(text: string): boolean {
  const stripped = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/[^\n]*/g, "");
  return stripped.trim() === "";
}

/** Parses the JavaScript form (see the module header). `origin` names the file in errors. */
export function parseToolFunctionsJs(options: { source: string; origin?: string }): ToolFunction[] {
  const origin = options.origin ?? "toolbox source";
  const text = options.source;
  const matches = [...text.matchAll(DOC_THEN_DECLARATION)];
  if (matches.length === 0) {
    invalid(
      `${origin}: no documented function found (put a /** ... */ block with @signature before each function)`,
    );
  }
  const first = matches[0]!;
  if (!onlyComments(text.slice(0, first.index))) {
    invalid(`${origin}: code before the first documented function; move it below a documented function`);
  }
  return matches.map((m, i) => {
    const declaredName = m[2]!;
    const start = m.index! + m[0].length;
    const end = i + 1 < matches.length ? matches[i + 1]!.index! : text.length;
    const { text: free, tags } = docText(m[1]!);
    const name = tags.get("name") || declaredName;
    const candidate = {
      name,
      signature: tags.get("signature") || `${declaredName}(${m[3]!.trim()})`,
      description: tags.get("description") || free,
      source: text.slice(start, end).trim(),
    };
    return parseWith({
      schema: ToolFunctionSchema,
      value: candidate,
      what: `toolbox function ${name} in ${origin}`,
      path: "fn",
    });
  });
}

const FileEntrySchema = z
  .object({
    name: z.string(),
    signature: z.string(),
    description: z.string(),
    source: z.string().optional(),
    sourceFile: z.string().optional(),
  })
  .strict();

const FileSchema = z.union([
  z.array(FileEntrySchema),
  z.object({ functions: z.array(FileEntrySchema) }).strict(),
]);

/** Parses the JSON/YAML form from already-parsed data; `baseDir` resolves `sourceFile`. */
export async function parseToolFunctionsData(options: {
  value: unknown;
  origin?: string;
  baseDir?: string;
}): Promise<ToolFunction[]> {
  const origin = options.origin ?? "toolbox data";
  const parsed = parseWith({ schema: FileSchema, value: options.value, what: origin });
  const entries = Array.isArray(parsed) ? parsed : parsed.functions;
  const out: ToolFunction[] = [];
  for (const [i, entry] of entries.entries()) {
    let source = entry.source;
    if (source === undefined) {
      if (entry.sourceFile === undefined)
        invalid(`Invalid ${origin}: ${i}.source: give source or sourceFile`, `${i}.source`);
      const file = path.resolve(options.baseDir ?? process.cwd(), entry.sourceFile);
      source = await readFile(file, "utf8").catch((error: unknown) =>
        invalid(
          `Invalid ${origin}: ${i}.sourceFile: cannot read ${file} (${(error as Error).message})`,
          `${i}.sourceFile`,
        ),
      );
    } else if (entry.sourceFile !== undefined) {
      invalid(`Invalid ${origin}: ${i}: give source or sourceFile, not both`, `${i}.source`);
    }
    out.push(
      parseWith({
        schema: ToolFunctionSchema,
        value: { name: entry.name, signature: entry.signature, description: entry.description, source },
        what: `toolbox function ${entry.name} in ${origin}`,
        path: String(i),
      }),
    );
  }
  return out;
}

/** Reads toolbox functions from a .js/.mjs/.cjs, .json, .yaml or .yml file. */
export async function loadToolFunctions(options: { path: string }): Promise<ToolFunction[]> {
  const file = path.resolve(options.path);
  const text = await readFile(file, "utf8").catch((error: unknown) =>
    invalid(`Cannot read toolbox file ${file}: ${(error as Error).message}`, "path"),
  );
  const ext = path.extname(file).toLowerCase();
  if ([".js", ".mjs", ".cjs"].includes(ext)) return parseToolFunctionsJs({ source: text, origin: file });
  let value: unknown;
  try {
    value =
      ext === ".json" ? JSON.parse(text) : ext === ".yaml" || ext === ".yml" ? parseYaml(text) : undefined;
  } catch (error) {
    invalid(`Invalid toolbox file ${file}: ${(error as Error).message}`, "path");
  }
  if (value === undefined)
    invalid(`Unsupported toolbox file ${file}: use .js, .mjs, .cjs, .json, .yaml or .yml`, "path");
  return parseToolFunctionsData({ value, origin: file, baseDir: path.dirname(file) });
}
