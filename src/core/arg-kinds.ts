/**
 * Argument kinds: which string leaves of a tool call's arguments are paths, URLs, e-mail addresses or
 * shell commands, so that conditions compare their canonical forms (src/core/canonical/) instead of the
 * attacker-chosen raw text. A leaf's kinds come, in this order of priority, from
 *   1. the policy's declaration (`rules.argumentKinds`, resolved per tool by the caller),
 *   2. the tool's JSON Schema (`format`, property names, descriptions that start by naming the kind),
 *   3. the argument's own name (`path`, `paths`, `to`, `cc`, `url`, `command`, `file_path`…),
 *   4. the value's shape (`/…`, `~…`, `./…`, `../…`, `file:` → path; `scheme://…` → url; an address,
 *      bare or with a display name → email; an `@` under an argument named for addresses → email).
 * Every source adds kinds (a leaf may have several: `file:///x` under `uri` is a url and a path): a leaf
 * counted as a path although it is not one only makes the comparisons stricter, because conditions
 * resolve several values the strict way, while a path that no source recognises escapes path rules.
 * Arguments nested deeper than the walker looks are reported, so that kind selectors fail closed.
 */
import { z } from "zod";
import { withFields } from "../util/with-fields.js";
import type { ArgKind } from "./canonical/types.js";

export type { ArgKind } from "./canonical/types.js";

export const ARG_KINDS = ["path", "url", "email", "command"] as const satisfies readonly ArgKind[];

/** `rules.argumentKinds`: tool glob -> argument path (dot-separated, `*` = any one key or index) -> kind. */
export const ArgumentKindsSchema = z.record(
  z.string().min(1),
  z.record(z.string().min(1), z.enum(ARG_KINDS)),
);
export type ArgumentKinds = z.output<typeof ArgumentKindsSchema>;

/** `rules.paths`: how paths are canonicalised for this policy. */
export const PathOptionsSchema = z
  .object({
    /**
     * true: the file system ignores case (macOS', Windows' defaults), paths are compared lower-cased;
     * false: it does not. Absent: unknown, so `pathWithin`/`pathMatches` try both and the strict answer wins.
     */
    caseFold: z.boolean().optional(),
    /** Absolute directory that relative paths resolve against; wins over the caller's `context.cwd`. */
    base: z.string().min(1).optional(),
  })
  .strict();
export type PathOptions = z.output<typeof PathOptionsSchema>;

/** One string inside the arguments, with where it is and what it is. */
export interface ArgLeaf {
  /** Keys and indices from the arguments object down to the leaf (indices as decimal strings). */
  segments: string[];
  value: string;
  /** Its kinds, most authoritative first; empty when it is none of them. Shared: do not mutate. */
  kinds: ArgKind[];
  /**
   * For a command whose arguments the tool takes as a separate list (`{ command: "rm", args: ["-rf",
   * "/srv"] }`), the command line the two make, each argument quoted: commands are read from this.
   */
  commandLine?: string;
}

export interface ArgLeaves {
  leaves: ArgLeaf[];
  /** Set when part of the arguments was not walked (too deep or too many values): kind selectors are unknown. */
  truncated?: string;
}

/** How deep and how many values the walker reads; arguments beyond are reported as `truncated`. */
export const MAX_ARG_DEPTH = 32;
export const MAX_ARG_LEAVES = 10_000;
/** Longer strings, or strings with a line break, are never taken for a path or URL by their shape alone. */
const MAX_SHAPED_LENGTH = 4096;

// Maps, not object literals: an argument named "constructor" must not find Object.prototype's.
const EXACT_NAMES = new Map<string, ArgKind>();
for (const name of [
  "path",
  "paths",
  "file",
  "files",
  "filename",
  "filenames",
  "filepath",
  "filepaths",
  "source",
  "sources",
  "destination",
  "destinations",
  "src",
  "dest",
  "dst",
  "dir",
  "dirs",
  "directory",
  "directories",
  "folder",
  "folders",
  "cwd",
  "root",
  "roots",
])
  EXACT_NAMES.set(name, "path");
for (const name of ["url", "urls", "uri", "uris", "href", "link", "links", "endpoint", "endpoints"])
  EXACT_NAMES.set(name, "url");
for (const name of [
  "to",
  "cc",
  "bcc",
  "replyto",
  "recipient",
  "recipients",
  "from",
  "sender",
  "email",
  "emails",
])
  EXACT_NAMES.set(name, "email");
for (const name of ["command", "commands", "cmd", "script"]) EXACT_NAMES.set(name, "command");

/** Last words of a compound name (`file_path`, `targetUrl`, `send_to`) that say the kind. */
const LAST_TOKEN = new Map<string, ArgKind>([
  ["path", "path"],
  ["paths", "path"],
  ["file", "path"],
  ["files", "path"],
  ["filename", "path"],
  ["filepath", "path"],
  ["dir", "path"],
  ["directory", "path"],
  ["folder", "path"],
  ["url", "url"],
  ["urls", "url"],
  ["uri", "url"],
  ["uris", "url"],
  ["href", "url"],
  ["link", "url"],
  ["endpoint", "url"],
  ["email", "email"],
  ["emails", "email"],
  ["recipient", "email"],
  ["recipients", "email"],
  ["to", "email"],
  ["cc", "email"],
  ["bcc", "email"],
  // Raw header text ("Bcc: eve@evil.test") names recipients too: read as addresses, it either parses
  // or is undetermined, so a recipient cannot hide in a header block.
  ["header", "email"],
  ["headers", "email"],
  ["command", "command"],
  ["cmd", "command"],
  ["script", "command"],
]);

/** Words of a name; numbers are dropped, so `path2` and `cc_1` say what `path` and `cc` say. */
function nameTokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((t) => t !== "");
}

/** Argument names repeat from call to call: their kind is computed once. */
const nameCache = new Map<string, ArgKind | undefined>();

/** The kind an argument's name says, if any (`paths` → path, `replyTo` → email, `targetUrl` → url). */
export function kindFromName(options: { name: string }): ArgKind | undefined {
  const { name } = options;
  if (nameCache.has(name)) return nameCache.get(name);
  const tokens = nameTokens(name);
  const kind =
    tokens.length === 0
      ? undefined
      : (EXACT_NAMES.get(tokens.join("")) ?? LAST_TOKEN.get(tokens[tokens.length - 1]!));
  if (nameCache.size >= 4096) nameCache.clear();
  nameCache.set(name, kind);
  return kind;
}

const URL_SHAPE = /^[a-z][a-z0-9+.-]*:\/\//i;
/** A bare address (`eve@evil.test`) or one with a display name (`Eve <eve@evil.test>`). */
const ADDRESS_SHAPE = /^(?![/~.])(?!.*:\/\/)([^@\s<>]+@[^@\s<>]+\.[^@\s<>.]+|[^<>@]*<[^@\s<>]+@[^@\s<>]+>)$/;

/** The kinds a value's shape says: an absolute, home, dot-relative or `file:` path; a `scheme://` URL. */
export function kindsFromShape(options: { value: string }): ArgKind[] {
  const { value } = options;
  if (value.length > MAX_SHAPED_LENGTH || /[\r\n]/.test(value)) return [];
  const kinds: ArgKind[] = [];
  if (/^(\/|~|\.\.?(\/|\\|$)|file:)/i.test(value)) kinds.push("path");
  if (URL_SHAPE.test(value)) kinds.push("url");
  if (ADDRESS_SHAPE.test(value)) kinds.push("email");
  return kinds;
}

type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Resolves a local `$ref` (`#/$defs/x`, `#/definitions/x`); anything else is left alone. */
function resolveRef(root: unknown, node: Schema, depth: number): Schema {
  const ref = node.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/") || depth > 8) return node;
  let current: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    current = isObject(current) ? current[key] : undefined;
  }
  return isObject(current) ? resolveRef(root, current, depth + 1) : node;
}

/** Every schema alternative a node stands for (itself, and its anyOf/oneOf/allOf branches). */
function alternatives(root: unknown, node: Schema, depth = 0): Schema[] {
  const resolved = resolveRef(root, node, 0);
  const out = [resolved];
  if (depth > 4) return out;
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const list = resolved[key];
    if (Array.isArray(list)) {
      for (const branch of list) if (isObject(branch)) out.push(...alternatives(root, branch, depth + 1));
    }
  }
  return out;
}

/** The schema nodes that describe the value at `segments`, with the property name each was reached by. */
function schemaNodesAt(root: unknown, segments: readonly string[]): { node: Schema; name?: string }[] {
  if (!isObject(root)) return [];
  let current: { node: Schema; name?: string }[] = [{ node: root }];
  for (const segment of segments) {
    const next: { node: Schema; name?: string }[] = [];
    for (const { node, name } of current) {
      for (const alt of alternatives(root, node)) {
        const props = alt.properties;
        if (isObject(props) && isObject(props[segment])) next.push({ node: props[segment], name: segment });
        else if (isObject(alt.additionalProperties) && !/^\d+$/.test(segment))
          next.push({ node: alt.additionalProperties, name: segment });
        if (/^\d+$/.test(segment)) {
          const prefix = alt.prefixItems;
          const at = Array.isArray(prefix) ? prefix[Number(segment)] : undefined;
          if (isObject(at)) next.push({ node: at, ...(name !== undefined ? { name } : {}) });
          else if (isObject(alt.items))
            next.push({ node: alt.items, ...(name !== undefined ? { name } : {}) });
        }
      }
    }
    if (next.length === 0) return [];
    current = next;
  }
  return current;
}

const DESCRIPTION_KINDS: [RegExp, ArgKind][] = [
  [
    /^\s*(an?\s+|the\s+)?(absolute\s+|relative\s+|full\s+)?(file\s*|directory\s+|folder\s+)?(path|filename)\b/i,
    "path",
  ],
  [/^\s*(an?\s+|the\s+)?(url|uri|link)\b/i, "url"],
  [/^\s*(an?\s+|the\s+)?(recipient|e-?mail\s+address)/i, "email"],
  [/^\s*(an?\s+|the\s+)?(shell\s+)?command\b/i, "command"],
];

function kindsOfSchemaNode(root: unknown, node: Schema, name: string | undefined): ArgKind[] {
  const kinds: ArgKind[] = [];
  for (const alt of alternatives(root, node)) {
    const format = typeof alt.format === "string" ? alt.format.toLowerCase() : "";
    if (["uri", "url", "iri", "uri-reference", "iri-reference"].includes(format)) kinds.push("url");
    if (format === "email" || format === "idn-email") kinds.push("email");
    const description = typeof alt.description === "string" ? alt.description : "";
    for (const [re, kind] of DESCRIPTION_KINDS) if (re.test(description)) kinds.push(kind);
  }
  const byName = name !== undefined ? kindFromName({ name }) : undefined;
  if (byName) kinds.push(byName);
  return kinds;
}

/** The kinds a tool's JSON Schema (`inputSchema`) gives the value at `segments`. */
export function kindsFromSchema(options: { schema: unknown; segments: readonly string[] }): ArgKind[] {
  const out: ArgKind[] = [];
  for (const { node, name } of schemaNodesAt(options.schema, options.segments)) {
    out.push(...kindsOfSchemaNode(options.schema, node, name));
  }
  return out;
}

/** Does a declared argument path (`paths`, `paths.*`, `*.to`) cover the leaf (itself or an ancestor)? */
function declaredCovers(pattern: readonly string[], segments: string[]): boolean {
  if (pattern.length > segments.length) return false;
  return pattern.every((p, i) => p === "*" || p === segments[i]);
}

type Declared = Readonly<Record<string, ArgKind | readonly ArgKind[]>>;
const splitDeclarations = new WeakMap<Declared, [string[], readonly ArgKind[]][]>();

/** A declaration's argument paths split once (declarations live as long as the policy). */
function declarationsOf(declared: Declared): [string[], readonly ArgKind[]][] {
  let split = splitDeclarations.get(declared);
  if (!split) {
    split = Object.entries(declared).map(([path, kind]) => [
      path.split("."),
      typeof kind === "string" ? [kind] : kind,
    ]);
    splitDeclarations.set(declared, split);
  }
  return split;
}

/** The kinds the policy declares for the leaf at `segments`, given the declarations for its tool. */
export function kindsFromDeclaration(options: { declared: Declared; segments: string[] }): ArgKind[] {
  const out: ArgKind[] = [];
  for (const [pattern, kinds] of declarationsOf(options.declared)) {
    if (declaredCovers(pattern, options.segments)) out.push(...kinds);
  }
  return out;
}

/** The nearest object key above a leaf (array indices skipped): the leaf's argument name. */
export function leafName(options: { segments: readonly string[] }): string | undefined {
  const { segments } = options;
  for (let i = segments.length - 1; i >= 0; i -= 1) {
    if (!/^\d+$/.test(segments[i]!)) return segments[i];
  }
  return undefined;
}

function unique(kinds: ArgKind[]): ArgKind[] {
  return kinds.filter((k, i) => kinds.indexOf(k) === i);
}

export interface ArgKindSources {
  /** The policy's declarations that apply to this tool: argument path -> kind(s). */
  declared?: Readonly<Record<string, ArgKind | readonly ArgKind[]>>;
  /** The tool's JSON Schema for its arguments (MCP `inputSchema`), when known. */
  inputSchema?: unknown;
}

/** What a leaf's place says: its own kinds, and e-mail when an enclosing argument is named for addresses. */
interface Place {
  kinds: ArgKind[];
  /** `{ cc: { address: "eve@evil.test" } }`, `{ to: [{ name, email }] }`: the leaf is an address if it has an @. */
  underEmail: boolean;
}

/** The kinds that depend on where a leaf is (declaration, schema, name), not on its value. */
function kindsOfPlace(sources: ArgKindSources, segments: string[]): Place {
  const kinds: ArgKind[] = [];
  if (sources.declared) kinds.push(...kindsFromDeclaration({ declared: sources.declared, segments }));
  if (sources.inputSchema !== undefined)
    kinds.push(...kindsFromSchema({ schema: sources.inputSchema, segments }));
  const name = leafName({ segments });
  const byName = name !== undefined ? kindFromName({ name }) : undefined;
  if (byName) kinds.push(byName);
  const ancestors = segments.slice(0, name !== undefined ? segments.lastIndexOf(name) : 0);
  const underEmail = ancestors.some((a) => !/^\d+$/.test(a) && kindFromName({ name: a }) === "email");
  // Deduplicated here, once per place (the result is cached), not once per leaf.
  return { kinds: unique(kinds), underEmail };
}

/**
 * Place kinds by declarations, schema and argument path. Declarations and schemas are long-lived objects
 * (the policy's, the proxy's `tools/list`), so they key weak maps; the same arguments recur call after call.
 */
const NO_SOURCE = {};
const placeCache = new WeakMap<object, WeakMap<object, Map<string, Place>>>();

function cachedKindsOfPlace(sources: ArgKindSources, segments: string[]): Place {
  const schema = sources.inputSchema;
  if (schema !== undefined && (typeof schema !== "object" || schema === null))
    return kindsOfPlace(sources, segments);
  const declaredKey = sources.declared ?? NO_SOURCE;
  const schemaKey = (schema as object | undefined) ?? NO_SOURCE;
  let bySchema = placeCache.get(declaredKey);
  if (!bySchema) {
    bySchema = new WeakMap();
    placeCache.set(declaredKey, bySchema);
  }
  let byPlace = bySchema.get(schemaKey);
  if (!byPlace) {
    byPlace = new Map();
    bySchema.set(schemaKey, byPlace);
  }
  const key = segments.join("\u0000");
  let place = byPlace.get(key);
  if (!place) {
    place = kindsOfPlace(sources, segments);
    if (byPlace.size >= 4096) byPlace.clear();
    byPlace.set(key, place);
  }
  return place;
}

/** The kinds of the string at `segments`, from every source, most authoritative first. */
export function kindsOfLeaf(options: ArgKindSources & { segments: string[]; value: string }): ArgKind[] {
  const place = cachedKindsOfPlace(options, options.segments);
  const shape = kindsFromShape({ value: options.value });
  const inherited = place.underEmail && options.value.includes("@");
  if (shape.length === 0 && !inherited) return place.kinds;
  return unique([...place.kinds, ...(inherited ? (["email"] as const) : []), ...shape]);
}

/** Names under which tools take a command's arguments as a list beside the command. */
const ARGV_KEYS = ["args", "argv", "arguments"];

/** The argument list beside a command (strings or numbers only), if the object has one. */
function argvOf(object: Record<string, unknown>): string[] | undefined {
  for (const key of ARGV_KEYS) {
    const list = Object.hasOwn(object, key) ? object[key] : undefined;
    if (Array.isArray(list) && list.every((x) => typeof x === "string" || typeof x === "number")) {
      return list.map(String);
    }
  }
  return undefined;
}

/** One word for a POSIX shell, whatever it contains: single-quoted, `'` written as `'\''`. */
function shellQuote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}

interface Walk {
  sources: ArgKindSources;
  leaves: ArgLeaf[];
  /** Values visited (strings, numbers, containers): bounded, so a huge argument cannot stall a check. */
  visited: number;
  truncated?: string;
}

function walkValue(state: Walk, value: unknown, segments: string[]): void {
  if (state.truncated !== undefined) return;
  state.visited += 1;
  if (state.visited > MAX_ARG_LEAVES) {
    state.truncated = `more than ${MAX_ARG_LEAVES} argument values`;
    return;
  }
  if (typeof value === "string") {
    // withFields: a literal beginning with the spread costs microseconds per leaf on Node 20 (with-fields.ts).
    const kinds = kindsOfLeaf(withFields({ base: state.sources, fields: { segments, value } }));
    state.leaves.push({ segments, value, kinds });
    return;
  }
  if (typeof value !== "object" || value === null) return;
  if (segments.length >= MAX_ARG_DEPTH) {
    state.truncated = `arguments nested deeper than ${MAX_ARG_DEPTH} levels`;
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && state.truncated === undefined; i += 1) {
      walkValue(state, value[i], [...segments, String(i)]);
    }
    return;
  }
  const argv = argvOf(value as Record<string, unknown>);
  for (const key of Object.keys(value)) {
    keyLeaf(state, key, segments);
    const item = (value as Record<string, unknown>)[key];
    const before = state.leaves.length;
    walkValue(state, item, [...segments, key]);
    const leaf = state.leaves[before];
    if (argv !== undefined && typeof item === "string" && leaf?.kinds.includes("command")) {
      leaf.commandLine = [item, ...argv.map(shellQuote)].join(" ");
    }
  }
}

/** Marks a leaf that is an object's key, not a value: `args.a.*` selects values only. */
export const KEY_SEGMENT = "#key";

/** A key that is more than a plain field name (`path`, `encoding`): it could itself be a value. */
const VALUE_LIKE_KEY = /[/\\@:]|^\./;

/**
 * An object key can name a path, URL or address too (`{ files: { "/etc/shadow": "…" } }`): a key
 * whose shape says so, or a value-like key of an object whose own name says so (`files: { "app/.env":
 * … }`), is a leaf of that kind, so kind selectors cannot be walked around by moving the value into a
 * key. Plain field names (`{ cc: { address, name } }`) stay keys.
 */
function keyLeaf(state: Walk, key: string, segments: string[]): void {
  const shape = kindsFromShape({ value: key });
  const parent =
    segments.length > 0 && VALUE_LIKE_KEY.test(key)
      ? kindFromName({ name: segments[segments.length - 1]! })
      : undefined;
  const kinds = parent !== undefined && !shape.includes(parent) ? [parent, ...shape] : shape;
  if (kinds.length === 0) return;
  state.visited += 1;
  state.leaves.push({ segments: [...segments, key, KEY_SEGMENT], value: key, kinds });
}

/** Every string leaf of the arguments (arrays and nested objects included) with its kinds. */
export function argLeaves(options: ArgKindSources & { args: unknown }): ArgLeaves {
  const sources: ArgKindSources = {
    ...(options.declared ? { declared: options.declared } : {}),
    ...(options.inputSchema !== undefined ? { inputSchema: options.inputSchema } : {}),
  };
  const state: Walk = { sources, leaves: [], visited: 0 };
  walkValue(state, options.args, []);
  return state.truncated !== undefined
    ? { leaves: state.leaves, truncated: state.truncated }
    : { leaves: state.leaves };
}
