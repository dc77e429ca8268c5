/**
 * The real paths of a tool call's path arguments, for an upstream that shares this machine's file
 * system (a filesystem MCP server the proxy starts). Warden's canonical paths are lexical: they resolve
 * `..` but cannot know that `tmp/link` is a symbolic link to `../app`, while the server follows it. So a
 * write "under tmp/" lands in app/, and a read of `app/config.txt -> .env` returns the secret. Replacing
 * each path argument by its real path (links resolved, the missing tail kept) before the check, and
 * forwarding exactly that, makes the checked path the one the server opens (up to a link created
 * between the two, which no proxy can see).
 *
 * Only arguments named as paths (`path`, `paths`, `source`, `destination`…, by their name or the tool's
 * schema) are rewritten, never a value that merely looks like a path (a file's content `/tmp/x`).
 *
 * The lookups are synchronous: each is one realpath(3) of a local path, a few microseconds from the
 * kernel's caches, while the promise form sends it through the thread pool and back, which costs more
 * than the lookup itself on every proxied call (the proxy is for an upstream on this machine's disks).
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { posix } from "node:path";
import { kindFromName, kindsFromSchema, leafName } from "../core/arg-kinds.js";

/** Link hops and path components followed at most, so a loop or a huge path stays bounded. */
const MAX_HOPS = 64;

export interface RealPathRewrite {
  /** Where the argument is, e.g. "paths.1". */
  at: string;
  from: string;
  to: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Is the value at `segments` a path by its name or by the tool's schema (not by its shape)? */
function namedPath(options: { segments: readonly string[]; inputSchema?: unknown }): boolean {
  const { segments } = options;
  const name = leafName({ segments });
  if (name !== undefined && kindFromName({ name }) === "path") return true;
  return (
    options.inputSchema !== undefined &&
    kindsFromSchema({ schema: options.inputSchema, segments }).includes("path")
  );
}

/** What `read` returns, or undefined when it throws (a missing file, a permission refused). */
function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * The path with every symbolic link resolved, a missing tail appended to its real parent; undefined for
 * a link loop or a path too deep to follow (the server cannot open it either, so it is left as given).
 */
function realPathOf(path: string, hops: number): string | undefined {
  if (hops > MAX_HOPS) return undefined;
  try {
    return realpathSync.native(path);
  } catch {
    // A dangling link: follow it by hand, so its target is what is checked.
    const link = attempt(() => lstatSync(path));
    if (link?.isSymbolicLink()) {
      const target = attempt(() => readlinkSync(path, "utf8"));
      if (target === undefined) return undefined;
      return realPathOf(posix.resolve(posix.dirname(path), target), hops + 1);
    }
    const parent = posix.dirname(path);
    if (parent === path) return path;
    const realParent = realPathOf(parent, hops + 1);
    return realParent === undefined ? undefined : posix.join(realParent, posix.basename(path));
  }
}

/** `path` (absolute) with every symbolic link resolved, as realPathArgs resolves an argument; itself when it cannot be. */
export function realPath(options: { path: string }): string {
  return realPathOf(options.path, 0) ?? options.path;
}

/**
 * The server's reading of a path argument (as `path.resolve` reads it: absolute, or relative to `base`),
 * or undefined when it is not one the proxy can resolve (relative with no base, `~`, a NUL byte).
 */
function serverPath(value: string, base: string | undefined): string | undefined {
  if (value.includes("\u0000") || value.startsWith("~")) return undefined;
  if (value.startsWith("/")) return posix.resolve(value);
  return base?.startsWith("/") ? posix.resolve(base, value) : undefined;
}

/**
 * The arguments with each named path argument replaced by its real path where that differs (a copy;
 * the input is not changed), and the list of what was rewritten.
 */
export function realPathArgs(options: {
  args: Record<string, unknown>;
  inputSchema?: unknown;
  /** What relative paths resolve against (the policy's `rules.paths.base`). */
  base?: string;
}): { args: Record<string, unknown>; rewrites: RealPathRewrite[] } {
  const rewrites: RealPathRewrite[] = [];
  // One path of segments, pushed and popped along the walk; an object or array is copied only when
  // something under it was rewritten (most calls rewrite nothing, and then the arguments go on as given).
  const segments: string[] = [];
  const visit = (value: unknown, depth: number): unknown => {
    if (depth > MAX_HOPS) return value;
    if (typeof value === "string") {
      if (segments.length === 0 || !namedPath({ segments, inputSchema: options.inputSchema })) return value;
      const resolved = serverPath(value, options.base);
      if (resolved === undefined) return value;
      const real = realPathOf(resolved, 0);
      if (real === undefined || real === resolved) return value;
      rewrites.push({ at: segments.join("."), from: value, to: real });
      return real;
    }
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        segments.push(String(i));
        const item = visit(value[i], depth + 1);
        segments.pop();
        if (item !== value[i]) {
          copy ??= [...value];
          copy[i] = item;
        }
      }
      return copy ?? value;
    }
    if (isRecord(value)) {
      let changed = false;
      const entries: [string, unknown][] = [];
      for (const [key, item] of Object.entries(value)) {
        segments.push(key);
        const seen = visit(item, depth + 1);
        segments.pop();
        if (seen !== item) changed = true;
        entries.push([key, seen]);
      }
      // fromEntries, not assignment: a key "__proto__" stays an own property.
      return changed ? Object.fromEntries(entries) : value;
    }
    return value;
  };
  const args = visit(options.args, 0) as Record<string, unknown>;
  return { args: rewrites.length > 0 ? args : options.args, rewrites };
}
