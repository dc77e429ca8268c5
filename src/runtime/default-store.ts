/**
 * Where the memory lives when the user does not say: $WARDEN_STORE, else the XDG state directory
 * (~/.local/state/warden/warden.db). Opened only when an engine actually needs memory. A path that
 * cannot hold a database (its parent is a file, a folder that cannot be written) is a STORE_ERROR that
 * names the path and where it came from, never a raw system error.
 *
 * A `postgres://` (or `postgresql://`) URL opens the PostgreSQL store instead (pg loaded then), so
 * several `warden serve` instances can share keys and sessions; a `schema=<name>` query parameter picks
 * the schema holding Warden's tables.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { WardenError } from "../core/errors.js";
import { createSqliteStore } from "../store/sqlite-store.js";
import { defaultStorePath } from "../store/state-dir.js";
import type { Store } from "../store/store.js";

export { defaultStorePath } from "../store/state-dir.js";

const REASONS: Record<string, string> = {
  ENOTDIR: "a part of its folder is a file, not a directory",
  EEXIST: "a part of its folder is a file, not a directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "read-only file system",
};

export async function openStore(options: {
  path?: string;
  /** A SQLite store checkpoints its log on a thread of its own (sqlite-checkpointer.ts): long-running services. */
  backgroundCheckpoints?: boolean;
}): Promise<Store> {
  const path = options.path ?? defaultStorePath();
  if (/^postgres(ql)?:\/\//i.test(path)) return openPostgres({ url: path });
  const from =
    options.path !== undefined
      ? "--store"
      : process.env.WARDEN_STORE
        ? "$WARDEN_STORE"
        : "the default store path";
  const fail = (why: string, cause: unknown) =>
    new WardenError({
      code: "STORE_ERROR",
      message: `store ${path} (${from}): ${why}`,
      details: { fields: [from === "--store" ? "--store" : "WARDEN_STORE"], path },
      cause,
    });
  if (path !== ":memory:" && !path.startsWith("file:")) {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      const code = (error as { code?: string }).code ?? "";
      throw fail(
        `cannot create its folder ${dirname(path)}: ${REASONS[code] ?? (code || String(error))}`,
        error,
      );
    }
  }
  try {
    return await createSqliteStore({
      path,
      ...(options.backgroundCheckpoints ? { backgroundCheckpoints: true } : {}),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = (cause?.code && REASONS[cause.code]) || (error as Error).message;
    throw fail(why, error);
  }
}

/** The PostgreSQL store at a URL; `schema=` is Warden's parameter, taken out before pg reads the URL. */
async function openPostgres(options: { url: string }): Promise<Store> {
  const url = new URL(options.url);
  const schema = url.searchParams.get("schema") ?? undefined;
  url.searchParams.delete("schema");
  const { createPostgresStore } = await import("../store/postgres-store.js");
  return createPostgresStore({ url: url.toString(), ...(schema ? { schema } : {}) });
}
