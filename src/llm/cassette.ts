/**
 * Record/replay of model requests in a JSONL file, so a benchmark or test run made once against a real
 * provider reproduces exactly, offline and for free. Each line is one provider answer keyed by a hash of
 * everything that determines it (model id, purpose, system, messages, schema); the prompt itself is not
 * stored, so a cassette holds answers but no agent data beyond what the model wrote.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { WardenError } from "../core/errors.js";
import { lazyModule } from "../core/lazy-module.js";
import { CASSETTE_MODES, type CassetteMode } from "./cassette-modes.js";
import type { ModelMessage } from "./model.js";

export { CASSETTE_MODES, type CassetteMode };

export interface CassetteOptions {
  /** The JSONL file; created (with its folder) on the first recording. */
  path: string;
  /** record: always ask the provider and append; replay: never touch the network; auto: replay else record. */
  mode: CassetteMode;
}

const UsageSchema = z.object({ inputTokens: z.number(), outputTokens: z.number() });

const EntrySchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("text"),
    key: z.string().min(1),
    model: z.string(),
    purpose: z.string().optional(),
    text: z.string(),
    usage: UsageSchema,
    /** Latency of the recorded request, for reference (replays take their own time). */
    ms: z.number().optional(),
  }),
  z.object({
    kind: z.literal("embed"),
    key: z.string().min(1),
    model: z.string(),
    embeddings: z.array(z.array(z.number())),
    usage: UsageSchema,
    ms: z.number().optional(),
  }),
]);
export type CassetteEntry = z.output<typeof EntrySchema>;
export type CassetteTextEntry = Extract<CassetteEntry, { kind: "text" }>;
export type CassetteEmbedEntry = Extract<CassetteEntry, { kind: "embed" }>;

export interface Cassette {
  readonly path: string;
  readonly mode: CassetteMode;
  /** The recorded entry for a key (the last one when a key was recorded twice). */
  lookup(options: { key: string }): CassetteEntry | undefined;
  record(options: { entry: CassetteEntry }): Promise<void>;
  /** Number of distinct keys known. */
  size(): number;
}

/** Loaded with the first key: `warden check` imports the cassette modes but hashes nothing. */
const crypto = lazyModule<typeof import("node:crypto")>({ specifier: "node:crypto" });

/** Canonical JSON: object keys sorted, so the hash does not depend on property order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function cassetteKey(options: {
  modelId: string;
  purpose?: string;
  system?: string;
  messages: readonly ModelMessage[];
  schema?: unknown;
}): string {
  const material = canonical([
    "text/v1",
    options.modelId,
    options.purpose ?? "",
    options.system ?? "",
    options.messages.map((m) => ({ role: m.role, content: m.content })),
    options.schema ?? null,
  ]);
  return crypto().createHash("sha256").update(material).digest("hex").slice(0, 32);
}

export function embedCassetteKey(options: { modelId: string; values: readonly string[] }): string {
  const material = canonical(["embed/v1", options.modelId, options.values]);
  return crypto().createHash("sha256").update(material).digest("hex").slice(0, 32);
}

function loadEntries(path: string): Map<string, CassetteEntry> {
  const entries = new Map<string, CassetteEntry>();
  if (!existsSync(path)) return entries;
  const lines = readFileSync(path, "utf8").split("\n");
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `Cassette ${path} line ${index + 1} is not valid JSON: ${(error as Error).message}`,
        details: { path, line: index + 1 },
      });
    }
    const parsed = EntrySchema.safeParse(raw);
    if (!parsed.success) {
      throw new WardenError({
        code: "INVALID_INPUT",
        message: `Cassette ${path} line ${index + 1} is not a cassette entry: ${parsed.error.issues
          .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
          .join("; ")}`,
        details: { path, line: index + 1 },
      });
    }
    entries.set(parsed.data.key, parsed.data);
  });
  return entries;
}

/** Opens (lazily reads) a cassette file. Appends are serialised so concurrent calls never interleave. */
export function openCassette(options: CassetteOptions): Cassette {
  const { path, mode } = options;
  let entries: Map<string, CassetteEntry> | undefined;
  let writes: Promise<void> = Promise.resolve();
  const loaded = (): Map<string, CassetteEntry> => {
    entries ??= loadEntries(path);
    return entries;
  };
  return {
    path,
    mode,
    lookup({ key }) {
      return loaded().get(key);
    },
    record({ entry }) {
      loaded().set(entry.key, entry);
      const line = `${JSON.stringify(entry)}\n`;
      const write = writes.then(async () => {
        mkdirSync(dirname(path), { recursive: true });
        await appendFile(path, line, "utf8");
      });
      // A failed append must not poison later ones; the caller still sees this one's failure.
      writes = write.catch(() => undefined);
      return write.catch((error: unknown) => {
        throw new WardenError({
          code: "INTERNAL",
          message: `Could not append to cassette ${path}: ${(error as Error).message}`,
          details: { path },
          cause: error,
        });
      });
    },
    size() {
      return loaded().size;
    },
  };
}

export function cassetteMiss(options: {
  path: string;
  key: string;
  model: string;
  purpose?: string;
}): WardenError {
  return new WardenError({
    code: "CASSETTE_MISS",
    message: `Cassette ${options.path} has no recording for model ${options.model}, purpose "${
      options.purpose ?? "(none)"
    }", key ${options.key}: record it first (cassette mode "record" or "auto")`,
    details: { path: options.path, key: options.key, model: options.model, purpose: options.purpose },
  });
}
