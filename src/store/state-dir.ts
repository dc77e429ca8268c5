/**
 * Where Warden keeps state when the user does not say: the memory database at $WARDEN_STORE, else in
 * the XDG state directory (~/.local/state/warden/warden.db), and the hook's session histories beside
 * it. A module of its own, with no database import, so `warden hook` can find its folder without
 * loading the SQLite store.
 */
import { homedir } from "node:os";
import { dirname, join } from "node:path";

function stateBase(): string {
  return join(process.env.XDG_STATE_HOME || join(homedir(), ".local", "state"), "warden");
}

export function defaultStorePath(): string {
  return process.env.WARDEN_STORE || join(stateBase(), "warden.db");
}

/**
 * The folder of `warden hook`'s session histories: $WARDEN_HOOK_SESSIONS, else `hook-sessions` beside
 * the default store (in the state directory when $WARDEN_STORE is not a file: `:memory:`, `file:` URIs).
 */
export function defaultSessionsDir(): string {
  if (process.env.WARDEN_HOOK_SESSIONS) return process.env.WARDEN_HOOK_SESSIONS;
  const store = process.env.WARDEN_STORE;
  const onDisk = store !== undefined && store !== "" && store !== ":memory:" && !store.startsWith("file:");
  return join(onDisk ? dirname(store) : stateBase(), "hook-sessions");
}
