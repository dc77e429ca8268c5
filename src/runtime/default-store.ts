/**
 * Where the memory lives when the user does not say: $WARDEN_STORE, else the XDG state directory
 * (~/.local/state/warden/warden.db). Opened only when an engine actually needs memory.
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { createSqliteStore } from "../store/sqlite-store.js";
import type { Store } from "../store/store.js";

export function defaultStorePath(): string {
  if (process.env.WARDEN_STORE) return process.env.WARDEN_STORE;
  const base = process.env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(base, "warden", "warden.db");
}

export async function openStore(options: { path?: string }): Promise<Store> {
  const path = options.path ?? defaultStorePath();
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  return createSqliteStore({ path });
}
